//! Frame export, always atomic (write `<path>.tmp`, then rename): binary PLY and VTK poly-data
//! point clouds, PNG previews, VTK image data and OpenVDB grids of grid fields, and OBJ /
//! binary PLY surface meshes, rigid bodies (JSON transforms per frame, OBJ meshes once).

use crate::particles::Particles;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

mod bodies;
mod density_png;
mod diffuse_ply;
mod mesh;
mod png;
mod tallcell_map;
mod tallcell_png;
mod vdb;
mod vtk;
mod vtp;

pub use bodies::{write_bodies_json, write_body_obj};
pub use density_png::write_density_png;
pub use diffuse_ply::write_diffuse_ply;
pub use mesh::{write_mesh_obj, write_mesh_ply};
pub use png::write_png;
pub use tallcell_png::write_tallcell_png;
pub use vdb::{write_vdb, VdbClass, VdbCompression, VdbGrid, VdbValues};
pub use vtk::{as_f32, cell_velocity, write_fields_vti, CellField};
pub use vtp::write_particles_vtp;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Creating, writing or renaming the file failed.
    #[error("cannot write {}", .path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Encoding the image failed.
    #[error("cannot encode {}", .path.display())]
    Image {
        /// The file being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: image::ImageError,
    },
}

/// `<path>.tmp`, the name a file is written under before the rename.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes with `write` into `<path>.tmp`, then renames it to `path`; removes the temporary file
/// on failure.
pub fn write_atomic<E>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
    rename_err: impl FnOnce(std::io::Error) -> E,
) -> Result<(), E> {
    let tmp = tmp_path(path);
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(rename_err));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The PLY header for `n` vertices with position, velocity and id.
fn ply_header(n: usize) -> String {
    format!(
        "ply\nformat binary_little_endian 1.0\ncomment flipgraph particles\nelement vertex {n}\n\
         property float x\nproperty float y\nproperty float z\n\
         property float vx\nproperty float vy\nproperty float vz\nproperty uint id\nend_header\n"
    )
}

/// Bytes of one PLY vertex: six floats and the id.
const PLY_RECORD: usize = 28;

/// Writes the particles as a binary little-endian PLY point cloud (vertex `x y z vx vy vz` as
/// `float`, `id` as `uint`: the particle's id modulo 2³², or its index when it has none),
/// readable by Blender, Houdini and ParaView. Atomic: writes `<path>.tmp`, then renames it.
pub fn write_ply(path: &Path, particles: &Particles) -> std::io::Result<()> {
    write_atomic(
        path,
        |tmp| {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            out.write_all(ply_header(particles.len()).as_bytes())?;
            let mut rec = [0u8; PLY_RECORD];
            for (i, (p, v)) in particles.pos.iter().zip(&particles.vel).enumerate() {
                for (slot, x) in rec.chunks_exact_mut(4).zip([p.x, p.y, p.z, v.x, v.y, v.z]) {
                    slot.copy_from_slice(&x.to_le_bytes());
                }
                let id = particles.id_of(i) as u32; // PLY has no 64-bit integers
                rec[24..].copy_from_slice(&id.to_le_bytes());
                out.write_all(&rec)?;
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        },
        |e| e,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn ply_header_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frame.ply");
        let mut ps = Particles::default();
        ps.push(Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 0.5, 0.25));
        ps.push(Vec3::new(4.0, 5.0, 6.0), Vec3::ZERO);
        ps.push(Vec3::ZERO, Vec3::ONE);
        write_ply(&path, &ps).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header = ply_header(3);
        assert!(header.starts_with("ply\nformat binary_little_endian 1.0\n"));
        assert!(header.contains("element vertex 3\n") && header.ends_with("end_header\n"));
        assert!(header.contains("property uint id\n"));
        assert_eq!(bytes.len(), header.len() + 3 * PLY_RECORD);
        assert_eq!(&bytes[..header.len()], header.as_bytes());
        let body = &bytes[header.len()..];
        let f = |i: usize| f32::from_le_bytes(body[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(
            [f(0), f(1), f(2), f(3), f(4), f(5)],
            [1.0, 2.0, 3.0, -1.0, 0.5, 0.25]
        );
        let id = |i: usize| u32::from_le_bytes(body[28 * i + 24..28 * i + 28].try_into().unwrap());
        assert_eq!([id(0), id(1), id(2)], [0, 1, 2]);
        assert_eq!(f(7), 4.0);
        assert!(!tmp_path(&path).exists());
        // an unwritable target fails and leaves no temporary file behind
        let bad = dir.path().join("missing").join("x.ply");
        assert!(write_ply(&bad, &ps).is_err());
    }
}
