use crate::nodes;
use flip_graph::registry::RegistryError;
use flip_graph::{NodePack, NodeRegistry};
use flip_host::PluginSet;
use std::sync::Arc;

/// The built-in node kinds; the pressure-solve node offers the algorithms of `plugins`.
pub struct BuiltinNodes {
    /// Loaded solver plugins.
    pub plugins: Arc<PluginSet>,
}

impl NodePack for BuiltinNodes {
    fn register(&self, r: &mut NodeRegistry) -> Result<(), RegistryError> {
        r.register(nodes::solids::kind())?;
        r.register(nodes::emitter::kind())?;
        r.register(nodes::p2g::kind())?;
        r.register(nodes::gravity::kind())?;
        r.register(nodes::marker::kind())?;
        r.register(nodes::level_set::kind())?;
        r.register(nodes::extrapolate::kind())?;
        r.register(nodes::pressure::kind(self.plugins.clone()))?;
        r.register(nodes::g2p::kind())?;
        r.register(nodes::advect::kind())?;
        r.register(nodes::volume_correction::kind(self.plugins.clone()))?;
        r.register(nodes::reseed::kind())?;
        r.register(nodes::smoke_source::kind())?;
        r.register(nodes::advect_grid::kind())?;
        r.register(nodes::buoyancy::kind())?;
        r.register(nodes::vorticity::kind())?;
        r.register(nodes::gas_domain::kind())?;
        r.register(nodes::export::kind())?;
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
        Ok(())
    }
}

/// A registry with the step pair and every built-in kind.
pub fn builtin_registry(plugins: Arc<PluginSet>) -> NodeRegistry {
    let mut r = NodeRegistry::new();
    r.add_pack(&BuiltinNodes { plugins })
        .expect("built-in kinds have distinct ids");
    r
}

/// Kinds whose work is done by a solver plugin: their failures are the plugin's.
pub const PLUGIN_KINDS: [&str; 3] = ["pressure", "volume_correction", "tallcell_pressure"];
