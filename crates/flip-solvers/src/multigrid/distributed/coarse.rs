//! The V-cycle below the divided levels: every rank restricts its own cells of the last
//! divided level into the layers of the first gathered level it touches, the restrictions are
//! gathered to one rank (the *coarse rank*, [`COARSE_RANK`]), summed in rank order and cycled
//! there, and each rank gets back the correction on the layers it touched, the ones its
//! interpolation reads. The other ranks neither build nor store the levels below the first
//! gathered one. A host whose suite lacks the gather to one rank gets the older scheme: the
//! restrictions gathered to every rank and the coarse V-cycle run on all of them (the same
//! arithmetic, so the same result).
//!
//! A block holds the touched layers `[lo, hi)` (two values), then the level's colour-split
//! entries of those layers' padded rows, colour 0 then colour 1.

use super::super::hierarchy::Hierarchy;
use super::super::level::Level;
use super::slab::{layer_rows, rows_per_layer, SlabRows};
use crate::hierarchy::cycle::vcycle;
use flip_sdk::{Distributed, SolveError};
use std::ops::Range;

/// The rank that builds and cycles the gathered levels.
pub(super) const COARSE_RANK: u32 = 0;

/// Where the gathered levels are built and cycled: on [`COARSE_RANK`] when `one_rank` is asked
/// for and the host can gather to one rank, otherwise (`None`) on every rank.
pub(super) fn coarse_rank(d: &Distributed, one_rank: bool) -> Option<u32> {
    (one_rank && d.has_rooted_blocks()).then_some(COARSE_RANK)
}

/// Colour-split entries of `level`'s layers `layers` (padded rows), as a range of `cs[c]`.
fn entries(level: &Level, layers: &Range<usize>) -> Range<usize> {
    let rows = layer_rows(level, layers);
    rows.start * level.half..rows.end * level.half
}

/// The blocks of `layers` on `level` (in rank order) held in `blocks[..total]`, as the
/// layers and where each colour's entries start.
fn blocks_of(blocks: &[f64], level: &Level) -> Vec<(Range<usize>, usize)> {
    let per_layer = rows_per_layer(level) * level.half;
    let mut out = Vec::new();
    let mut at = 0;
    while at < blocks.len() {
        let layers = blocks[at] as usize..blocks[at + 1] as usize;
        let n = layers.len() * per_layer;
        out.push((layers, at + 2));
        at += 2 + 2 * n;
    }
    out
}

impl SlabRows {
    /// The layers of the first gathered level this rank's restriction writes.
    fn gathered_touch(&self) -> Range<usize> {
        self.levels
            .last()
            .expect("level 0 is divided")
            .touch
            .clone()
    }

    /// Room for every rank's block of `coarse`'s touched layers (each rank touches at most
    /// two layers besides its own).
    fn blocks_capacity(&self, coarse: &Level, ranks: usize) -> usize {
        let layers = coarse.pdims[self.layout.axis as usize] + 4 * ranks;
        2 * ranks + 2 * layers * rows_per_layer(coarse) * coarse.half
    }

    /// This rank's block of `v` (the level's `b` or `x` per colour) on `layers`.
    fn pack(&mut self, coarse: &Level, layers: &Range<usize>, v: [&[f32]; 2]) {
        let range = entries(coarse, layers);
        self.block.clear();
        self.block.extend([layers.start as f64, layers.end as f64]);
        for c in v {
            self.block
                .extend(c[range.clone()].iter().map(|&v| f64::from(v)));
        }
    }

    /// The V-cycle from the first gathered level `g` down (its right-hand side restricted
    /// into it by every rank on its touched layers), leaving the correction on this rank's
    /// touched layers.
    ///
    /// # Errors
    /// A failed gather or scatter.
    pub fn coarse_cycle(
        &mut self,
        h: &mut Hierarchy,
        g: usize,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        match self.root {
            Some(root) => self.cycle_on(root, h, g, d),
            None => {
                self.sum_restrictions(&mut h.levels[g], d)?;
                vcycle(h, g, true, true, None);
                Ok(())
            }
        }
    }

    /// Replaces `coarse`'s right-hand side by the sum of every rank's restriction, gathered to
    /// every rank.
    fn sum_restrictions(&mut self, coarse: &mut Level, d: &Distributed) -> Result<(), SolveError> {
        let touch = self.gathered_touch();
        let [b0, b1] = &coarse.cs;
        self.pack(coarse, &touch, [&b0.b, &b1.b]);
        self.blocks
            .resize(self.blocks_capacity(coarse, d.ranks() as usize), 0.0);
        let total = d.all_gather_blocks(&self.block, &mut self.blocks)?;
        add_blocks(&self.blocks[..total], coarse);
        Ok(())
    }

    /// [`Self::coarse_cycle`] with the gathered levels on rank `root` only.
    fn cycle_on(
        &mut self,
        root: u32,
        h: &mut Hierarchy,
        g: usize,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let touch = self.gathered_touch();
        let coarse = &h.levels[g];
        self.pack(coarse, &touch, [&coarse.cs[0].b, &coarse.cs[1].b]);
        let is_root = d.rank() == root;
        let capacity = self.blocks_capacity(coarse, d.ranks() as usize);
        self.blocks.resize(if is_root { capacity } else { 0 }, 0.0);
        let gathered = d.gather_blocks(root, &self.block, &mut self.blocks);
        // The root answers even when its gather failed (with empty blocks), so no rank waits.
        let lens = match (&gathered, is_root) {
            (Ok(total), true) => {
                add_blocks(&self.blocks[..*total], &mut h.levels[g]);
                vcycle(h, g, true, true, None);
                self.pack_corrections(&h.levels[g], *total)
            }
            _ => vec![0; d.ranks() as usize],
        };
        let coarse = &mut h.levels[g];
        let expected = 2 * entries(coarse, &touch).len();
        self.block.resize(expected, 0.0);
        let received = d.scatter_blocks(root, &self.blocks, &lens, &mut self.block)?;
        gathered?;
        if received != expected {
            return Err(SolveError::Failed(format!(
                "the coarse rank sent {received} correction values for {expected}"
            )));
        }
        let range = entries(coarse, &touch);
        let (x0, x1) = self.block.split_at(range.len());
        for (c, x) in coarse.cs.iter_mut().zip([x0, x1]) {
            for (x, &v) in c.x[range.clone()].iter_mut().zip(x) {
                *x = v as f32;
            }
        }
        Ok(())
    }

    /// On the root: replaces the gathered restriction blocks in `blocks[..total]` by each
    /// rank's correction on the layers its block named (entries only, no header); returns
    /// their lengths in rank order.
    fn pack_corrections(&mut self, coarse: &Level, total: usize) -> Vec<usize> {
        let mut lens = Vec::new();
        let mut at = 0;
        for (layers, _) in blocks_of(&self.blocks[..total], coarse) {
            let range = entries(coarse, &layers);
            for c in &coarse.cs {
                let out = &mut self.blocks[at..at + range.len()];
                for (o, &v) in out.iter_mut().zip(&c.x[range.clone()]) {
                    *o = f64::from(v);
                }
                at += range.len();
            }
            lens.push(2 * range.len());
        }
        self.blocks.truncate(at);
        lens
    }
}

/// Replaces `coarse`'s right-hand side by the sum, in rank order, of the restriction blocks
/// `blocks`.
fn add_blocks(blocks: &[f64], coarse: &mut Level) {
    for c in &mut coarse.cs {
        c.b.fill(0.0);
    }
    for (layers, start) in blocks_of(blocks, coarse) {
        let range = entries(coarse, &layers);
        let n = range.len();
        for (c, colour) in coarse.cs.iter_mut().enumerate() {
            let src = &blocks[start + c * n..start + (c + 1) * n];
            for (b, &v) in colour.b[range.clone()].iter_mut().zip(src) {
                *b += v as f32;
            }
        }
    }
}
