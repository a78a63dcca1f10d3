use crate::nodes;
use flip_graph::registry::RegistryError;
use flip_graph::{NodePack, NodeRegistry};
use flip_host::PluginSet;
use std::sync::Arc;

/// The built-in node kinds, then the node plugins' kinds (`<plugin>/<kind>`); the
/// pressure-solve node offers the algorithms of `plugins`.
pub struct BuiltinNodes {
    /// Loaded solver plugins.
    pub plugins: Arc<PluginSet>,
}

impl NodePack for BuiltinNodes {
    fn register(&self, r: &mut NodeRegistry) -> Result<(), RegistryError> {
        r.register(nodes::solids::kind())?;
        r.register(nodes::rigid_bodies::kind())?;
        r.register(nodes::emitter::kind())?;
        r.register(nodes::p2g::kind())?;
        r.register(nodes::gravity::kind())?;
        r.register(nodes::wave_absorber::kind())?;
        r.register(nodes::marker::kind())?;
        r.register(nodes::level_set::kind())?;
        r.register(nodes::extrapolate::kind())?;
        r.register(nodes::pressure::kind(self.plugins.clone()))?;
        r.register(nodes::reflect::kind())?;
        r.register(nodes::viscosity::kind(self.plugins.clone()))?;
        r.register(nodes::particle_viscosity::kind())?;
        r.register(nodes::cooling::kind())?;
        r.register(nodes::g2p::kind())?;
        r.register(nodes::advect::kind())?;
        r.register(nodes::volume_correction::kind(self.plugins.clone()))?;
        r.register(nodes::reseed::kind())?;
        r.register(nodes::sink::kind())?;
        r.register(nodes::smoke_source::kind())?;
        r.register(nodes::advect_grid::kind())?;
        r.register(nodes::buoyancy::kind())?;
        r.register(nodes::vorticity::kind())?;
        r.register(nodes::gas_domain::kind())?;
        r.register(nodes::export::kind())?;
        r.register(nodes::whitewater::kind())?;
        r.register(nodes::export_whitewater::kind())?;
        r.register(nodes::export_liquid_cache::kind())?;
        r.register(nodes::liquid_cache::kind())?;
        r.register(nodes::export_bodies::kind())?;
        r.register(nodes::export_fields::kind())?;
        r.register(nodes::surface::kind())?;
        r.register(nodes::export_vdb::kind())?;
        r.register(nodes::tallcell::source::kind())?;
        r.register(nodes::tallcell::extrapolate::kind())?;
        r.register(nodes::tallcell::advect::kind())?;
        r.register(nodes::tallcell::refit::kind())?;
        r.register(nodes::tallcell::gravity::kind())?;
        r.register(nodes::tallcell::pressure::kind(self.plugins.clone()))?;
        r.register(nodes::tallcell::export::kind())?;
        for (plugin, kind) in self.plugins.node_kinds() {
            let child = self.plugins.solver_child.clone();
            r.register(nodes::plugin_node::kind(plugin.clone(), kind, child))?;
        }
        Ok(())
    }
}

/// The kind names of the built-in nodes, which node plugins may not take
/// (`flip_host::LoadOptions::builtin_node_kinds`).
pub fn builtin_kind_names() -> Vec<String> {
    builtin_registry(Default::default())
        .kinds()
        .map(|k| k.spec.kind.clone())
        .collect()
}

/// A registry with the step pair and every built-in kind.
pub fn builtin_registry(plugins: Arc<PluginSet>) -> NodeRegistry {
    let mut r = NodeRegistry::with_state(crate::kinds::state_slots());
    r.add_pack(&BuiltinNodes { plugins })
        .expect("built-in kinds have distinct ids");
    r
}

#[cfg(test)]
mod tests {
    use super::builtin_registry;
    use crate::roles::{FrameWrites, KindFacts, NodeRole};
    use flip_graph::{NodeRegistry, NodeSpec};

    fn registry() -> NodeRegistry {
        builtin_registry(Default::default())
    }

    /// The kinds whose spec satisfies `f`, in registration order.
    fn kinds_where(r: &NodeRegistry, f: impl Fn(&NodeSpec) -> bool) -> Vec<&str> {
        r.kinds()
            .map(|k| &k.spec)
            .filter(|s| f(s))
            .map(|s| s.kind.as_str())
            .collect()
    }

    #[test]
    fn every_built_in_kind_declares_a_role() {
        let r = registry();
        assert!(r.kinds().count() > 20);
        let undeclared = kinds_where(&r, |s| s.role() == NodeRole::Other);
        assert!(undeclared.is_empty(), "no role declared: {undeclared:?}");
    }

    #[test]
    fn the_roles_callers_ask_for_pick_the_kinds_they_matched_by_name() {
        let r = registry();
        let role = |role: NodeRole| kinds_where(&r, |s| s.role() == role);
        assert_eq!(role(NodeRole::Emitter), ["emitter"]);
        assert_eq!(role(NodeRole::Pressure), ["pressure"]);
        assert_eq!(role(NodeRole::Viscosity), ["viscosity"]);
        assert_eq!(role(NodeRole::VolumeCorrection), ["volume_correction"]);
        assert_eq!(role(NodeRole::LevelSet), ["level_set"]);
        assert_eq!(role(NodeRole::CellMarker), ["marker"]);
        assert_eq!(role(NodeRole::Solids), ["solids"]);
        assert_eq!(role(NodeRole::RigidBodies), ["rigid_bodies"]);
        assert_eq!(role(NodeRole::BodyExport), ["export_bodies"]);
        assert_eq!(role(NodeRole::Surface), ["surface"]);
        assert_eq!(role(NodeRole::GridToParticle), ["g2p"]);
        assert_eq!(role(NodeRole::ParticleExport), ["export"]);
        assert_eq!(role(NodeRole::Whitewater), ["whitewater"]);
        let particle_files = kinds_where(&r, |s| s.role().writes_particle_files());
        assert_eq!(
            particle_files,
            ["export", "export_whitewater", "export_liquid_cache"]
        );
        assert_eq!(
            role(NodeRole::FieldExport),
            ["export_fields", "export_vdb", "tallcell_export"]
        );
        let boundary = kinds_where(&r, |s| s.role().is_step_boundary());
        assert_eq!(boundary, ["step_input", "step_output"]);
        let transfers = kinds_where(&r, |s| s.role().is_transfer());
        assert_eq!(transfers, ["p2g", "g2p"]);
        let particle_stages = kinds_where(&r, |s| s.role().is_particle_stage());
        assert_eq!(particle_stages, ["p2g", "g2p", "advect"]);
        let upkeep = kinds_where(&r, |s| s.role().is_particle_upkeep());
        assert_eq!(upkeep, ["volume_correction", "reseed"]);
        let plugin = kinds_where(&r, |s| s.role().solves_with_plugin());
        assert_eq!(
            plugin,
            [
                "pressure",
                "viscosity",
                "volume_correction",
                "tallcell_pressure"
            ]
        );
    }

    #[test]
    fn the_memory_models_keep_the_estimates_figures() {
        let r = registry();
        let bytes = |kind: &str| r.get(kind).unwrap().spec.memory().cell_bytes;
        assert_eq!(bytes("pressure"), 160.0);
        assert_eq!(bytes("volume_correction"), 180.0);
        assert_eq!(bytes("p2g"), 27.0);
        assert_eq!(bytes("level_set"), 12.0);
        let keeping = kinds_where(&r, |s| s.memory().cell_bytes != 0.0);
        assert_eq!(
            keeping,
            [
                "p2g",
                "level_set",
                "pressure",
                "reflect",
                "viscosity",
                "volume_correction"
            ]
        );
        let writes = |kind: &str| r.get(kind).unwrap().spec.memory().frame_writes;
        assert_eq!(writes("export"), FrameWrites::ParticlesAndPreview);
        assert_eq!(
            writes("export_fields"),
            FrameWrites::CellFields {
                fields: 6,
                header: 4096
            }
        );
        let writing = kinds_where(&r, |s| s.memory().frame_writes != FrameWrites::None);
        assert_eq!(writing, ["export", "export_fields"]);
    }

    #[test]
    fn live_parameters_are_the_editors_former_list() {
        let r = registry();
        let live = |kind: &str| r.get(kind).unwrap().spec.live_params.clone();
        assert_eq!(live("gravity"), ["gravity"]);
        assert_eq!(live("g2p"), ["flip_ratio"]);
        assert_eq!(
            live("pressure"),
            ["tolerance", "rel_tolerance", "abs_tolerance"]
        );
        let with_live = kinds_where(&r, |s| !s.live_params.is_empty());
        assert_eq!(
            live("viscosity"),
            ["viscosity", "rel_tolerance", "abs_tolerance"]
        );
        assert_eq!(with_live, ["gravity", "pressure", "viscosity", "g2p"]);
    }
}
