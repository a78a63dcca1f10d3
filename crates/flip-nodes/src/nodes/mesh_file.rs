//! The imported-mesh parameters shared by `solids` and `emitter`: an OBJ/STL file, a scale per
//! axis and a translation (rotations are the solids node's `rotate`, about `translate`).

use crate::params::Params;
use flip_core::solids::{load_mesh, MeshSdf, MeshShape};
use flip_graph::{NodeError, NodeInit, ParamSpec};
use std::error::Error;
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
    Ok(MeshShape(Arc::new(MeshSdf::new(&imported.mesh))))
}

/// An error and its sources, `: `-separated.
fn with_causes(e: &dyn Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&flip_plugin::text::sanitize(&s.to_string()));
        source = s.source();
    }
    text
}
