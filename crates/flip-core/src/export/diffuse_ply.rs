//! Diffuse (whitewater) particles as a binary PLY point cloud.

use super::write_atomic;
use crate::whitewater::Diffuse;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The PLY header for `n` diffuse particles.
fn header(n: usize) -> String {
    format!(
        "ply\nformat binary_little_endian 1.0\ncomment flipgraph whitewater: type 0 spray, 1 foam, \
         2 bubble\nelement vertex {n}\nproperty float x\nproperty float y\nproperty float z\n\
         property float vx\nproperty float vy\nproperty float vz\nproperty uchar type\n\
         property float lifetime\nproperty uint id\nend_header\n"
    )
}

/// Bytes of one vertex: six floats, the type, the lifetime and the id.
const RECORD: usize = 24 + 1 + 4 + 4;

/// Writes `diffuse` as a binary little-endian PLY point cloud (`x y z vx vy vz` as `float`,
/// `type` as `uchar`: 0 spray, 1 foam, 2 bubble, `lifetime` in seconds as `float`, `id` as
/// `uint`: the id modulo 2³²), readable by Blender, Houdini and ParaView. Atomic.
pub fn write_diffuse_ply(path: &Path, diffuse: &Diffuse) -> std::io::Result<()> {
    write_atomic(
        path,
        |tmp| {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            out.write_all(header(diffuse.len()).as_bytes())?;
            let mut rec = [0u8; RECORD];
            for i in 0..diffuse.len() {
                let (p, v) = (diffuse.pos[i], diffuse.vel[i]);
                for (slot, x) in rec[..24]
                    .chunks_exact_mut(4)
                    .zip([p.x, p.y, p.z, v.x, v.y, v.z])
                {
                    slot.copy_from_slice(&x.to_le_bytes());
                }
                rec[24] = diffuse.kind[i] as u8;
                rec[25..29].copy_from_slice(&diffuse.lifetime[i].to_le_bytes());
                rec[29..].copy_from_slice(&(diffuse.id[i] as u32).to_le_bytes());
                out.write_all(&rec)?;
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        },
        |e| e,
    )
}
