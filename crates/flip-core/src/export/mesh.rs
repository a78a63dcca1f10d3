//! Surface meshes as Wavefront OBJ (positions, normals) and binary little-endian PLY
//! (positions, normals, optional per-vertex velocity), written atomically.

use super::write_atomic;
use crate::surface::TriMesh;
use glam::Vec3;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `mesh` as OBJ: `v`, `vn` and `f a//a b//b c//c` lines (1-based). Atomic.
pub fn write_mesh_obj(path: &Path, mesh: &TriMesh) -> std::io::Result<()> {
    write_atomic(
        path,
        |tmp| {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            writeln!(out, "# flipgraph liquid surface")?;
            for p in &mesh.positions {
                writeln!(out, "v {} {} {}", p.x, p.y, p.z)?;
            }
            for n in &mesh.normals {
                writeln!(out, "vn {} {} {}", n.x, n.y, n.z)?;
            }
            for t in &mesh.triangles {
                let [a, b, c] = t.map(|v| v + 1);
                writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}")?;
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        },
        |e| e,
    )
}

/// The PLY header of a mesh, with `vx vy vz` when `velocity` is given.
fn mesh_ply_header(vertices: usize, faces: usize, velocity: bool) -> String {
    let mut h = format!(
        "ply\nformat binary_little_endian 1.0\ncomment flipgraph liquid surface\n\
         element vertex {vertices}\nproperty float x\nproperty float y\nproperty float z\n\
         property float nx\nproperty float ny\nproperty float nz\n"
    );
    if velocity {
        h.push_str("property float vx\nproperty float vy\nproperty float vz\n");
    }
    h.push_str(&format!(
        "element face {faces}\nproperty list uchar int vertex_indices\nend_header\n"
    ));
    h
}

/// Writes `mesh` as binary PLY; `velocity` (one per vertex, m/s) becomes the vertex attribute
/// `vx vy vz`. Atomic.
pub fn write_mesh_ply(
    path: &Path,
    mesh: &TriMesh,
    velocity: Option<&[Vec3]>,
) -> std::io::Result<()> {
    if let Some(v) = velocity {
        if v.len() != mesh.positions.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} velocities for {} vertices",
                    v.len(),
                    mesh.positions.len()
                ),
            ));
        }
    }
    let header = mesh_ply_header(
        mesh.positions.len(),
        mesh.triangles.len(),
        velocity.is_some(),
    );
    write_atomic(
        path,
        |tmp| {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            out.write_all(header.as_bytes())?;
            let floats = if velocity.is_some() { 9 } else { 6 };
            let mut rec = [0u8; 36];
            for (i, (p, n)) in mesh.positions.iter().zip(&mesh.normals).enumerate() {
                let v = velocity.map_or(Vec3::ZERO, |v| v[i]);
                let values = [p.to_array(), n.to_array(), v.to_array()];
                for (slot, x) in rec.chunks_exact_mut(4).zip(values.as_flattened()) {
                    slot.copy_from_slice(&x.to_le_bytes());
                }
                out.write_all(&rec[..4 * floats])?;
            }
            for t in &mesh.triangles {
                out.write_all(&[3u8])?;
                for v in t {
                    out.write_all(&(*v as i32).to_le_bytes())?;
                }
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        },
        |e| e,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle() -> TriMesh {
        TriMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, 0.5, 0.25)],
            normals: vec![Vec3::Z; 3],
            triangles: vec![[0, 1, 2]],
        }
    }

    #[test]
    fn obj_lists_vertices_normals_and_one_based_faces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.obj");
        write_mesh_obj(&path, &triangle()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1..4], ["v 0 0 0", "v 1 0 0", "v 0 0.5 0.25"]);
        assert_eq!(lines[4], "vn 0 0 1");
        assert_eq!(lines[7], "f 1//1 2//2 3//3");
        assert!(!super::super::tmp_path(&path).exists());
    }

    #[test]
    fn ply_has_normals_velocity_and_faces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.ply");
        let vel = [Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO, Vec3::ONE];
        write_mesh_ply(&path, &triangle(), Some(&vel)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header = mesh_ply_header(3, 1, true);
        assert_eq!(&bytes[..header.len()], header.as_bytes());
        assert_eq!(bytes.len(), header.len() + 3 * 9 * 4 + 1 + 3 * 4);
        let f = |i: usize| {
            let at = header.len() + 4 * i;
            f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
        };
        assert_eq!([f(5), f(6), f(7), f(8)], [1.0, 1.0, 2.0, 3.0]);
        let faces = header.len() + 3 * 9 * 4;
        assert_eq!(bytes[faces], 3);
        assert_eq!(&bytes[faces + 5..faces + 9], &1i32.to_le_bytes());
        // a velocity per vertex or nothing
        let err = write_mesh_ply(&path, &triangle(), Some(&vel[..2])).unwrap_err();
        assert!(err.to_string().contains("2 velocities for 3 vertices"));
    }
}
