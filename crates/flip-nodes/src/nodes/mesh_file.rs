//! The imported-mesh parameters shared by `solids` and `emitter`: an OBJ/STL file, a scale per
//! axis and a translation (rotations are the solids node's `rotate`, about `translate`).

use super::common::with_causes;
use crate::params::Params;
use flip_core::solids::{load_mesh, MeshSdf, MeshShape};
use flip_graph::{NodeError, NodeInit, ParamSpec};
use glam::Vec3;
use std::sync::Arc;

/// `mesh`, `scale` and `translate`.
pub(crate) fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::path(
            "mesh",
            "Mesh",
            "OBJ or STL file (ASCII or binary) for shape `mesh`, relative to the graph file",
            "",
        ),
        ParamSpec::vec3(
            "scale",
            "Scale",
            "mesh scale per axis (file units to m)",
            [1.0, 1.0, 1.0],
        ),
        ParamSpec::vec3(
            "translate",
            "Translate",
            "where the mesh file's origin goes (m); the pivot of rotations",
            [0.0, 0.0, 0.0],
        ),
    ]
}

/// Loads the node's mesh; accepted defects are printed as warnings naming the node.
pub(crate) fn load(init: &NodeInit<'_>) -> Result<MeshShape, NodeError> {
    let p = Params(init.params);
    let rel = p.text("mesh")?;
    if rel.is_empty() {
        return Err(NodeError::param(
            "mesh",
            "shape `mesh` needs the `mesh` parameter (an OBJ or STL path)",
        ));
    }
    let scale = p.vec3("scale")?;
    let translate = p.vec3("translate")?;
    let imported = load_mesh(&init.base_dir.join(rel), scale, translate)
        .map_err(|e| NodeError::param("mesh", with_causes(&e)))?;
    for w in &imported.warnings {
        eprintln!("warning: node `{}`: {w}", init.id);
    }
    let spec = init.settings.grid_spec();
    let around = (Vec3::ZERO, spec.extent());
    let h = cache_spacing(spec.dx, around.1 - around.0);
    let sdf = MeshSdf::cached(&imported.mesh, around, h, spec.is_2d());
    Ok(MeshShape(Arc::new(sdf)))
}

/// Most nodes of a mesh's distance cache.
const MAX_CACHE_NODES: f32 = 8.0e6;

/// The cache's node spacing: half a cell (finer than the simulation), coarser only where the
/// domain would need more than [`MAX_CACHE_NODES`] nodes.
fn cache_spacing(dx: f32, extent: Vec3) -> f32 {
    let h = 0.5 * dx;
    let nodes = |h: f32| (extent / h + Vec3::ONE).element_product();
    if nodes(h) <= MAX_CACHE_NODES {
        h
    } else {
        (extent.element_product() / MAX_CACHE_NODES).cbrt().max(h)
    }
}
