//! Imported OBJ/STL solids as meshes for the 3D viewport: each still solids node of shape
//! `mesh` is loaded as the node loads it (`flip_core::solids::load_triangles`, scaled and
//! translated, then turned by `rotate` about `translate`). Moving (keyframed) ones are left to
//! the solid cells, which follow them.

use flip_core::solids::load_triangles;
use flip_core::surface::TriMesh;
use flip_graph::{GraphDoc, NodeDoc, NodeRegistry, ParamValue};
use flip_nodes::nodes::solids::KEYFRAMES_PARAM;
use flip_nodes::roles::{KindFacts, NodeRole};
use glam::{EulerRot, Quat, Vec3};
use std::path::Path;

/// The still imported solids of a 3D `doc` (paths relative to `base_dir`; solids nodes by
/// their role in `registry`); files that do not load are skipped (the solids node reports
/// them).
pub fn load(doc: &GraphDoc, registry: &NodeRegistry, base_dir: &Path) -> Vec<TriMesh> {
    if doc.settings.grid_spec().is_2d() {
        return vec![];
    }
    let is_solids =
        |n: &NodeDoc| (registry.get(&n.kind)).is_some_and(|k| k.spec.role() == NodeRole::Solids);
    let still = |n: &NodeDoc| text(n, KEYFRAMES_PARAM).trim().is_empty();
    doc.nodes
        .iter()
        .filter(|n| is_solids(n) && !n.bypass)
        .filter(|n| text(n, "shape") == "mesh" && still(n))
        .filter_map(|n| {
            let file = text(n, "mesh");
            let (scale, translate) = (
                vec3(n, "scale", Vec3::ONE),
                vec3(n, "translate", Vec3::ZERO),
            );
            let mut mesh = load_triangles(&base_dir.join(file), scale, translate).ok()?;
            let d = vec3(n, "rotate", Vec3::ZERO);
            let turn = Quat::from_euler(
                EulerRot::XYZ,
                d.x.to_radians(),
                d.y.to_radians(),
                d.z.to_radians(),
            );
            for p in &mut mesh.positions {
                *p = translate + turn * (*p - translate);
            }
            Some(mesh)
        })
        .collect()
}

fn text<'a>(n: &'a NodeDoc, name: &str) -> &'a str {
    match n.params.get(name) {
        Some(ParamValue::Text(t)) => t,
        _ => "",
    }
}

fn vec3(n: &NodeDoc, name: &str, default: Vec3) -> Vec3 {
    match n.params.get(name) {
        Some(ParamValue::Vector(v)) if v.len() == 3 => {
            Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
        }
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use flip_graph::GraphDoc;
    use std::path::Path;

    #[test]
    fn the_imported_cup_is_loaded_where_the_solids_node_puts_it() {
        let graphs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../graphs");
        let doc = GraphDoc::load(&graphs.join("cup_pour_3d.ron")).unwrap();
        let registry = flip_nodes::builtin_registry(Default::default());
        let meshes = super::load(&doc, &registry, &graphs);
        assert_eq!(meshes.len(), 1);
        let m = &meshes[0];
        assert!(m.triangles.len() > 10);
        // scaled by 0.025 about the origin, moved to translate (0.5125, 0.0625, 0.5125)
        let (lo, hi) = m.positions.iter().fold(
            (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        assert!(
            lo.cmpge(glam::Vec3::ZERO).all() && hi.cmple(glam::Vec3::ONE).all(),
            "{lo} {hi}"
        );
        let centre = 0.5 * (lo + hi);
        assert!(
            (centre.x - 0.5125).abs() < 0.05 && (centre.z - 0.5125).abs() < 0.05,
            "{centre}"
        );
        // a 2D graph has none
        let flat = GraphDoc::load(&graphs.join("cup_2d.ron")).unwrap();
        assert!(super::load(&flat, &registry, &graphs).is_empty());
    }
}
