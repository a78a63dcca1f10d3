//! Bodies of imported meshes: `mesh PATH` in the `bodies` parameter (3D), read like the
//! solids' mesh import (OBJ or STL, relative to the graph file) and scaled by the body's
//! `scale`.

use super::super::common::with_causes;
use flip_core::rigid::{BodyMesh, MeshFrame};
use flip_core::solids::load_mesh;
use glam::Vec3;
use std::path::Path;

/// What a body's mesh is read against: the graph file's folder and the grid's cell size.
pub(super) struct MeshSource<'a> {
    /// Folder that relative paths start from.
    pub base_dir: &'a Path,
    /// Cell size (m): the mesh's distance cache is sampled at half of it.
    pub dx: f32,
}

/// Loads `path` scaled by `scale` as a body: its mesh in its own frame and where that frame
/// lies in the file's coordinates (scaled).
pub(super) fn load(
    source: &MeshSource<'_>,
    path: &str,
    scale: f64,
) -> Result<(BodyMesh, MeshFrame), String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err("a mesh's `scale` must be > 0".into());
    }
    let imported = load_mesh(
        &source.base_dir.join(path),
        Vec3::splat(scale as f32),
        Vec3::ZERO,
    )
    .map_err(|e| with_causes(&e))?;
    BodyMesh::from_file_mesh(&imported.mesh, 0.5 * source.dx)
        .map_err(|e| format!("mesh `{path}`: {e}"))
}
