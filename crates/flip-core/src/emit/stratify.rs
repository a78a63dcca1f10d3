//! Stratified jitter across neighbouring sub-cells: each sample's offset along an axis is
//! uniform in its sub-cell, as with independent jitter, but the offsets of the sub-cells beside
//! it (across the other axes) are Owen-scrambled radical inverses (Owen 1995; Kensler 2013,
//! "Correlated multi-jittered sampling"), so every aligned 2×2, 4×4 (3D) or 2, 4, 8 (2D) block
//! of sub-cells puts exactly one offset into each of its strata along the axis. A shape's face
//! that cuts through a layer of sub-cells then keeps its sample count within one, and its mean
//! height within a stratum, in every patch the width of the level-set kernel, instead of a
//! binomial count per column.

use crate::random::stream_seed;

/// Bits of the sub-cell index taken per transverse axis: blocks of 8 sub-cells (4 cells at 2
/// per cell, the particle level set's kernel width) along each.
const BITS: u32 = 3;

/// The offset in `[0, 1)` along `axis` of the sub-cell at global sub-cell coordinates `sub`,
/// for an emission seeded with `seed` in `dim` dimensions.
pub(super) fn offset(seed: u64, dim: usize, axis: usize, sub: [u64; 3]) -> f32 {
    // the Morton index of the sub-cell in its block (transverse axes interleaved), and the key
    // of its block: the layer along `axis` and the block's coordinates across it
    let (mut index, mut block, mut n) = (0u64, [sub[axis], 0, 0], 0usize);
    let across = dim as u32 - 1;
    for b in (0..dim).filter(|&b| b != axis) {
        for bit in 0..BITS {
            index |= ((sub[b] >> bit) & 1) << (bit * across + n as u32);
        }
        block[n + 1] = sub[b] >> BITS;
        n += 1;
    }
    let levels = BITS * across;
    let key = stream_seed(seed, [axis as u64, block[0], block[1], block[2]]);
    // radical inverse of `index`, each digit flipped by a hash of the digits before it
    let (mut value, mut node) = (0u64, 1u64);
    for level in 0..levels {
        let bit = (index >> level) & 1;
        let flip = stream_seed(key, [node]) & 1;
        value |= (bit ^ flip) << (63 - level);
        node = (node << 1) | bit;
    }
    // uniform within the finest stratum (a key no prefix node takes)
    value |= stream_seed(key, [index | 1 << 62]) >> levels;
    (value >> 40) as f32 / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each aligned block of 8 sub-cells along x (2D, y offsets) fills the 8 strata once, and
    /// each offset's histogram over many blocks is flat.
    #[test]
    fn blocks_fill_every_stratum_once_and_offsets_are_uniform() {
        let mut counts = [0usize; 16];
        for row in 0..64u64 {
            for block in 0..16u64 {
                let mut strata = [0usize; 8];
                for i in 0..8 {
                    let u = offset(7, 2, 1, [block * 8 + i, row, 0]);
                    assert!((0.0..1.0).contains(&u));
                    strata[(u * 8.0) as usize] += 1;
                    counts[(u * 16.0) as usize] += 1;
                }
                assert_eq!(strata, [1; 8], "row {row} block {block}");
            }
        }
        let mean = (64 * 16 * 8 / 16) as f64;
        assert!(
            counts
                .iter()
                .all(|&c| (c as f64 - mean).abs() < 0.25 * mean),
            "{counts:?}"
        );
    }

    /// In 3D every aligned 4×4 patch of sub-cells across y fills 16 strata of y once.
    #[test]
    fn patches_fill_strata_in_3d() {
        for layer in 0..4u64 {
            let mut strata = [0usize; 16];
            for x in 4..8u64 {
                for z in 8..12u64 {
                    strata[(offset(3, 3, 1, [x, layer, z]) * 16.0) as usize] += 1;
                }
            }
            assert_eq!(strata, [1; 16]);
        }
    }
}
