//! The 5-4-3 tree of one grid: a root table of 4096³ internal nodes, 128³ internal nodes, and
//! 8³ leaves. Child offsets inside a node have x most significant and z fastest; node masks
//! are little-endian `u64` words.

use super::{write_u32, VdbClass, VdbGrid, VdbValues};
use crate::grid::GridSpec;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Log2 of the voxels per axis below a node of each level: leaf, lower and upper internal.
const LEAF_BITS: u32 = 3;
const LOWER_BITS: u32 = 4 + LEAF_BITS;
const UPPER_BITS: u32 = 5 + LOWER_BITS;
/// `NO_MASK_AND_ALL_VALS`: every value of the node follows.
const ALL_VALUES: u8 = 6;

/// A grid's values as stored: the class's active voxels and background applied.
pub(super) struct Field<'a> {
    dims: [usize; 3],
    components: usize,
    data: &'a [f32],
    class: VdbClass,
    background: f32,
}

impl<'a> Field<'a> {
    pub(super) fn new(spec: &GridSpec, grid: &VdbGrid<'a>) -> Self {
        let (components, data) = match grid.values {
            VdbValues::Float(v) => (1, v),
            VdbValues::Vec3(v) => (3, bytemuck::cast_slice(v)),
        };
        let background = match grid.class {
            VdbClass::LevelSet { half_width } => half_width * spec.dx,
            _ => 0.0,
        };
        Self {
            dims: spec.dims(),
            components,
            data,
            class: grid.class,
            background,
        }
    }

    /// Appends the background value's bytes.
    fn push_background(&self, out: &mut Vec<u8>) {
        for _ in 0..self.components {
            out.extend_from_slice(&self.background.to_le_bytes());
        }
    }

    /// Appends the stored value of voxel `v` and tells whether it is active.
    fn push_voxel(&self, v: [usize; 3], out: &mut Vec<u8>) -> bool {
        if (0..3).any(|a| v[a] >= self.dims[a]) {
            self.push_background(out);
            return false;
        }
        let c = v[0] + self.dims[0] * (v[1] + self.dims[1] * v[2]);
        let value = &self.data[c * self.components..(c + 1) * self.components];
        let active = match self.class {
            VdbClass::LevelSet { .. } => {
                let active = value[0].abs() < self.background;
                let stored = if active {
                    value[0]
                } else {
                    self.background.copysign(value[0])
                };
                out.extend_from_slice(&stored.to_le_bytes());
                return active;
            }
            VdbClass::FogVolume => value.iter().any(|&x| x != 0.0),
            VdbClass::Unknown => true,
        };
        value
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        active
    }
}

/// One leaf: its origin and its buffer record (value mask, then the compressed values).
pub(super) struct Leaf {
    origin: [usize; 3],
    pub(super) record: Vec<u8>,
    mask: [u64; 8],
}

/// Every 8³ block of the grid, in the order the tree stores them (root children sorted by
/// origin, then child offsets), with its buffer record; built and compressed in parallel.
pub(super) fn leaf_buffers(field: &Field<'_>, zlib: bool) -> Vec<Leaf> {
    let blocks = field.dims.map(|n| n.div_ceil(1 << LEAF_BITS));
    let mut origins: Vec<[usize; 3]> = (0..blocks[0])
        .flat_map(|x| (0..blocks[1]).flat_map(move |y| (0..blocks[2]).map(move |z| [x, y, z])))
        .map(|b| b.map(|n| n << LEAF_BITS))
        .collect();
    origins.sort_by_key(|&o| tree_order(o));
    origins
        .par_iter()
        .map(|&origin| {
            let mut raw = Vec::with_capacity(512 * 4 * field.components);
            let mut mask = [0u64; 8];
            for n in 0..512usize {
                let v = [
                    origin[0] + (n >> 6),
                    origin[1] + ((n >> 3) & 7),
                    origin[2] + (n & 7),
                ];
                if field.push_voxel(v, &mut raw) {
                    mask[n >> 6] |= 1 << (n & 63);
                }
            }
            let mut record: Vec<u8> = mask.iter().flat_map(|w| w.to_le_bytes()).collect();
            record.extend(compressed_values(&raw, zlib));
            Leaf {
                origin,
                record,
                mask,
            }
        })
        .collect()
}

/// Sort key: upper node origin (x, y, z), then the lower node's and the leaf's offsets.
fn tree_order(o: [usize; 3]) -> ([usize; 3], usize, usize) {
    (
        o.map(|n| n >> UPPER_BITS << UPPER_BITS),
        offset(o, LOWER_BITS, 5),
        offset(o, LEAF_BITS, 4),
    )
}

/// Offset of the child holding voxel `o` in a node of `2^log2` children per axis whose
/// children span `2^child_bits` voxels: x most significant, z fastest.
fn offset(o: [usize; 3], child_bits: u32, log2: u32) -> usize {
    let axis = |n: usize| (n >> child_bits) & ((1 << log2) - 1);
    (axis(o[0]) << (2 * log2)) | (axis(o[1]) << log2) | axis(o[2])
}

/// `NO_MASK_AND_ALL_VALS`, then the values raw, or zlib-compressed behind their byte count
/// (negative: stored raw, when compression does not pay), as OpenVDB's `writeData`.
fn compressed_values(raw: &[u8], zlib: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() / 2 + 16);
    out.push(ALL_VALUES);
    if !zlib {
        out.extend_from_slice(raw);
        return out;
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let zipped = z.write_all(raw).and_then(|()| z.finish()).ok();
    match zipped.filter(|z| z.len() < raw.len()) {
        Some(z) => {
            out.extend_from_slice(&(z.len() as i64).to_le_bytes());
            out.extend_from_slice(&z);
        }
        None => {
            out.extend_from_slice(&(-(raw.len() as i64)).to_le_bytes());
            out.extend_from_slice(raw);
        }
    }
    out
}

fn write_mask(out: &mut impl Write, words: &[u64]) -> io::Result<()> {
    words
        .iter()
        .try_for_each(|w| out.write_all(&w.to_le_bytes()))
}

/// An internal node's topology: child mask, an empty value mask, and its values (background
/// tiles, zero where a child is).
fn write_internal(
    out: &mut impl Write,
    field: &Field<'_>,
    log2: u32,
    children: &[usize],
    zlib: bool,
) -> io::Result<()> {
    let count = 1usize << (3 * log2);
    let mut child_mask = vec![0u64; count / 64];
    for &c in children {
        child_mask[c >> 6] |= 1 << (c & 63);
    }
    write_mask(out, &child_mask)?;
    write_mask(out, &vec![0u64; count / 64])?;
    let mut tile = Vec::new();
    field.push_background(&mut tile);
    let zero = vec![0u8; tile.len()];
    let mut values = Vec::with_capacity(count * tile.len());
    for n in 0..count {
        let is_child = child_mask[n >> 6] & (1 << (n & 63)) != 0;
        values.extend_from_slice(if is_child { &zero } else { &tile });
    }
    out.write_all(&compressed_values(&values, zlib))
}

/// Buffer count, background, the root table (no tiles; the upper nodes by origin), and each
/// upper node's subtree depth first, leaves as their value masks.
pub(super) fn write_topology(
    out: &mut impl Write,
    field: &Field<'_>,
    leaves: &[Leaf],
    zlib: bool,
) -> io::Result<()> {
    // upper origin → lower offset → the leaves (indices into `leaves`, in order)
    let mut tree: BTreeMap<[usize; 3], BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for (n, leaf) in leaves.iter().enumerate() {
        let (upper, lower, _) = tree_order(leaf.origin);
        tree.entry(upper)
            .or_default()
            .entry(lower)
            .or_default()
            .push(n);
    }
    write_u32(out, 1)?;
    let mut background = Vec::new();
    field.push_background(&mut background);
    out.write_all(&background)?;
    write_u32(out, 0)?;
    write_u32(out, tree.len() as u32)?;
    for (origin, lowers) in &tree {
        for c in origin {
            out.write_all(&(*c as i32).to_le_bytes())?;
        }
        let children: Vec<usize> = lowers.keys().copied().collect();
        write_internal(out, field, 5, &children, zlib)?;
        for in_lower in lowers.values() {
            let offsets: Vec<usize> = in_lower
                .iter()
                .map(|&n| offset(leaves[n].origin, LEAF_BITS, 4))
                .collect();
            write_internal(out, field, 4, &offsets, zlib)?;
            for &n in in_lower {
                write_mask(out, &leaves[n].mask)?;
            }
        }
    }
    Ok(())
}
