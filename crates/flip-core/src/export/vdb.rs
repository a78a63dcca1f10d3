//! OpenVDB files (file format 224: OpenVDB 7 and later, Houdini, Blender): float and vec3
//! grids on the simulation grid's cell centres. No maintained Rust writer exists, so this is a
//! small one after the layout of OpenVDB's `io::Archive`: header, per grid a descriptor with
//! stream offsets, compression flags, metadata, transform, tree topology, then leaf buffers.
//! The tree is the standard 5-4-3 one; every 8³ block of the grid is a leaf, values are
//! stored whole (no active-mask compression), raw or zlib-compressed. Voxel `(i, j, k)` is the
//! cell centre `((i, j, k) + ½)·dx` (a uniform scale-translate map).

use super::write_atomic;
use crate::grid::GridSpec;
use glam::Vec3;
use std::hash::{Hash, Hasher};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

#[cfg(test)]
mod tests;
mod tree;

/// `OPENVDB_MAGIC`, written as an `int64`.
const MAGIC: i64 = 0x5644_4220;
/// `OPENVDB_FILE_VERSION_MULTIPASS_IO`.
const FILE_VERSION: u32 = 224;
/// The OpenVDB library version the layout follows.
const LIBRARY_VERSION: [u32; 2] = [10, 0];
/// `COMPRESS_ZIP`.
const COMPRESS_ZIP: u32 = 0x1;

/// Values of one grid, one per cell of the simulation grid (x fastest).
#[derive(Clone, Copy, Debug)]
pub enum VdbValues<'a> {
    /// A scalar per cell (`Tree_float_5_4_3`).
    Float(&'a [f32]),
    /// A vector per cell (`Tree_vec3s_5_4_3`).
    Vec3(&'a [Vec3]),
}

/// The grid class, which decides the active voxels and the background.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VdbClass {
    /// A signed distance (negative inside): active within `half_width` voxels of the surface,
    /// elsewhere `±half_width·dx` (OpenVDB's narrow band; float grids only).
    LevelSet {
        /// Narrow-band half width in voxels (OpenVDB's default is 3).
        half_width: f32,
    },
    /// A density: active where non-zero, background 0.
    FogVolume,
    /// Any other field: every voxel of the grid active, background 0.
    Unknown,
}

/// One grid to write.
#[derive(Clone, Copy, Debug)]
pub struct VdbGrid<'a> {
    /// The grid's name (unique within the file).
    pub name: &'a str,
    /// Its class.
    pub class: VdbClass,
    /// Its values.
    pub values: VdbValues<'a>,
}

/// How the value buffers are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VdbCompression {
    /// Raw.
    None,
    /// zlib (OpenVDB's `COMPRESS_ZIP`).
    #[default]
    Zlib,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Refuses grids that do not fit `spec` or cannot be stored.
fn check(spec: &GridSpec, grids: &[VdbGrid<'_>]) -> io::Result<()> {
    for (n, g) in grids.iter().enumerate() {
        let len = match g.values {
            VdbValues::Float(v) => v.len(),
            VdbValues::Vec3(v) => v.len(),
        };
        if g.name.is_empty() || grids[..n].iter().any(|o| o.name == g.name) {
            return Err(invalid(format!(
                "grid name `{}` is empty or repeated",
                g.name
            )));
        }
        if len != spec.cell_count() {
            let cells = spec.cell_count();
            return Err(invalid(format!(
                "grid `{}`: {len} values for {cells} cells",
                g.name
            )));
        }
        if matches!(g.class, VdbClass::LevelSet { .. }) && matches!(g.values, VdbValues::Vec3(_)) {
            return Err(invalid(format!(
                "grid `{}`: a level set must be scalar",
                g.name
            )));
        }
    }
    if spec.dims().iter().any(|&n| n > i32::MAX as usize / 2) {
        return Err(invalid(format!(
            "grid of {:?} cells is too large",
            spec.dims()
        )));
    }
    Ok(())
}

/// Writes `grids` (cell-centred on `spec`) as an OpenVDB file. Atomic: writes `<path>.tmp`,
/// then renames it.
pub fn write_vdb(
    path: &Path,
    spec: &GridSpec,
    grids: &[VdbGrid<'_>],
    compression: VdbCompression,
) -> io::Result<()> {
    check(spec, grids)?;
    write_atomic(
        path,
        |tmp| {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            write_header(&mut out, grids)?;
            for grid in grids {
                write_grid(&mut out, spec, grid, compression)?;
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        },
        |e| e,
    )
}

pub(super) fn write_u32(out: &mut impl Write, v: u32) -> io::Result<()> {
    out.write_all(&v.to_le_bytes())
}

fn write_string(out: &mut impl Write, s: &str) -> io::Result<()> {
    write_u32(out, s.len() as u32)?;
    out.write_all(s.as_bytes())
}

fn write_vec3d(out: &mut impl Write, v: f64) -> io::Result<()> {
    (0..3).try_for_each(|_| out.write_all(&v.to_le_bytes()))
}

/// Metadata entries: name, type name, byte size, value.
fn write_metadata(out: &mut impl Write, entries: &[(&str, &str)]) -> io::Result<()> {
    write_u32(out, entries.len() as u32)?;
    for (name, value) in entries {
        write_string(out, name)?;
        write_string(out, "string")?;
        write_string(out, value)?;
    }
    Ok(())
}

/// Magic, versions, the grid-offsets flag, a UUID (a hash of the contents, so equal files are
/// equal byte for byte), file metadata and the grid count.
fn write_header(out: &mut impl Write, grids: &[VdbGrid<'_>]) -> io::Result<()> {
    out.write_all(&MAGIC.to_le_bytes())?;
    write_u32(out, FILE_VERSION)?;
    LIBRARY_VERSION
        .iter()
        .try_for_each(|&v| write_u32(out, v))?;
    out.write_all(&[1])?;
    out.write_all(content_uuid(grids).as_bytes())?;
    write_metadata(out, &[("creator", "flipgraph")])?;
    write_u32(out, grids.len() as u32)
}

/// A version-4-shaped UUID from two hashes of the grids' names and values.
fn content_uuid(grids: &[VdbGrid<'_>]) -> String {
    let hash = |seed: u64| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        for g in grids {
            g.name.hash(&mut h);
            match g.values {
                VdbValues::Float(v) => v.iter().for_each(|x| x.to_bits().hash(&mut h)),
                VdbValues::Vec3(v) => v
                    .iter()
                    .for_each(|x| x.to_array().map(f32::to_bits).hash(&mut h)),
            }
        }
        h.finish()
    };
    let (a, b) = (hash(1), hash(2));
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// One grid: descriptor (name, tree type, no instance parent, three stream offsets filled in
/// afterwards), compression flags, metadata, transform, topology, buffers.
fn write_grid<W: Write + Seek>(
    out: &mut W,
    spec: &GridSpec,
    grid: &VdbGrid<'_>,
    compression: VdbCompression,
) -> io::Result<()> {
    let tree_type = match grid.values {
        VdbValues::Float(_) => "Tree_float_5_4_3",
        VdbValues::Vec3(_) => "Tree_vec3s_5_4_3",
    };
    write_string(out, grid.name)?;
    write_string(out, tree_type)?;
    write_string(out, "")?;
    let offsets_at = out.stream_position()?;
    out.write_all(&[0u8; 24])?;
    let grid_pos = out.stream_position()?;
    let zlib = compression == VdbCompression::Zlib;
    write_u32(out, if zlib { COMPRESS_ZIP } else { 0 })?;
    let class = match grid.class {
        VdbClass::LevelSet { .. } => "level set",
        VdbClass::FogVolume => "fog volume",
        VdbClass::Unknown => "unknown",
    };
    write_metadata(out, &[("class", class), ("name", grid.name)])?;
    write_transform(out, spec.dx)?;
    let field = tree::Field::new(spec, grid);
    let leaves = tree::leaf_buffers(&field, zlib);
    tree::write_topology(out, &field, &leaves, zlib)?;
    let block_pos = out.stream_position()?;
    for leaf in &leaves {
        out.write_all(&leaf.record)?;
    }
    let end_pos = out.stream_position()?;
    out.seek(SeekFrom::Start(offsets_at))?;
    for pos in [grid_pos, block_pos, end_pos] {
        out.write_all(&(pos as i64).to_le_bytes())?;
    }
    out.seek(SeekFrom::Start(end_pos))?;
    Ok(())
}

/// `UniformScaleTranslateMap`: translation, scale, voxel size, 1/scale, 1/scale², 1/(2 scale).
fn write_transform(out: &mut impl Write, dx: f32) -> io::Result<()> {
    let h = f64::from(dx);
    write_string(out, "UniformScaleTranslateMap")?;
    for v in [0.5 * h, h, h, 1.0 / h, 1.0 / (h * h), 0.5 / h] {
        write_vec3d(out, v)?;
    }
    Ok(())
}
