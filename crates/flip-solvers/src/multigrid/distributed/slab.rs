//! Where one rank's slab sits in the (replicated, globally indexed) level 0 and level 1, and
//! the data movement of the slab V-cycle: loading the residual into the owned rows, storing
//! the correction, refreshing one colour of the layers next to the slab, and summing the
//! ranks' restrictions into level 1.
//!
//! A padded row `pr` of a level holds cells `(·, j, k)` with `pr = (j + 1) + pj (k + pz)`, so
//! the slab axis' layer `g` (y in 2D, z in 3D) is the padded layer `g + 1` and spans
//! `rows_per_layer` consecutive rows (1 in 2D, `pj` in 3D).

use super::super::level::Level;
use flip_plugin::abi::SlabLayout;
use flip_plugin::sdk::{Distributed, SolveError};
use rayon::prelude::*;
use std::ops::Range;

/// One rank's rows of level 0 and level 1.
pub(super) struct SlabRows {
    layout: SlabLayout,
    /// Global linear index of the slab vectors' first cell (its lowest ghost layer).
    offset: usize,
    /// Padded level-0 rows of the owned layers.
    fine: Range<usize>,
    /// Level-1 layers this rank's restriction touches (`[lo, hi)`, unpadded).
    coarse_layers: Range<usize>,
    /// Level-1 padded rows of `coarse_layers`.
    coarse: Range<usize>,
    /// Level 0's spans with every row outside `fine` emptied: the kernels then visit only the
    /// owned cells (swapped into the level while the slab V-cycle runs).
    pub owned_spans: [Vec<(u32, u32)>; 2],
    /// Scratch cell field of the slab (halo exchanges).
    field: Vec<f64>,
    /// This rank's restriction block, and every rank's after the gather.
    block: Vec<f64>,
    blocks: Vec<f64>,
}

/// A value of a colour-split vector that crosses a halo exchange (as f64).
pub(super) trait SlabValue: Copy {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}

impl SlabValue for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl SlabValue for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// Rows per layer of the slab axis on `level`.
fn rows_per_layer(level: &Level) -> usize {
    if level.three_d() {
        level.pdims[1]
    } else {
        1
    }
}

impl SlabRows {
    /// The slab of `layout` on `fine` (level 0) and `coarse` (level 1).
    pub fn new(layout: SlabLayout, fine: &Level, coarse: &Level) -> Self {
        let (first, end) = (
            layout.first as usize,
            (layout.first + layout.owned) as usize,
        );
        let rl = rows_per_layer(fine);
        let axis = layout.axis as usize;
        // Restriction reads fine layers 2c - 1 ..= 2c + 2 for coarse layer c (`transfer`).
        let lo = first.div_ceil(2).saturating_sub(1);
        let hi = (end / 2 + 1).min(coarse.dims[axis]);
        let crl = rows_per_layer(coarse);
        let spans = fine.spans.clone();
        let mut slab = Self {
            layout,
            offset: (first - layout.ghost_lo as usize) * layout.layer_len(),
            fine: (first + 1) * rl..(end + 1) * rl,
            coarse_layers: lo..hi,
            coarse: (lo + 1) * crl..(hi + 1) * crl,
            owned_spans: spans,
            field: vec![0.0; layout.local_dims().iter().product()],
            block: Vec::new(),
            blocks: Vec::new(),
        };
        slab.mask_spans();
        slab
    }

    /// Every row of `fine` (level 0 of a one-level hierarchy, gathered whole): only
    /// [`Self::load_b`] and [`Self::store_x`] apply, on global vectors.
    pub fn whole(layout: SlabLayout, fine: &Level) -> Self {
        Self {
            layout,
            offset: 0,
            fine: 0..fine.rows(),
            coarse_layers: 0..0,
            coarse: 0..0,
            owned_spans: [Vec::new(), Vec::new()],
            field: Vec::new(),
            block: Vec::new(),
            blocks: Vec::new(),
        }
    }

    /// Empties the spans outside the owned rows.
    fn mask_spans(&mut self) {
        for spans in &mut self.owned_spans {
            for (pr, s) in spans.iter_mut().enumerate() {
                if !self.fine.contains(&pr) {
                    *s = (0, 0);
                }
            }
        }
    }

    /// The slab these rows were made for.
    pub fn layout(&self) -> &SlabLayout {
        &self.layout
    }

    /// Global linear index of the slab vectors' first cell (its lowest ghost layer).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Level-1 padded rows this rank restricts into.
    pub fn coarse_rows(&self) -> Range<usize> {
        self.coarse.clone()
    }

    /// Zeroes level 0's residual outside the owned rows: the restriction then sums only this
    /// rank's fine cells, and the ranks' sums add up to the global restriction.
    pub fn clear_foreign_residual(&self, fine: &mut Level) {
        let half = fine.half;
        for c in &mut fine.cs {
            c.r[..self.fine.start * half].fill(0.0);
            c.r[self.fine.end * half..].fill(0.0);
        }
    }

    /// Global cell `(j, k)`'s row of a slab vector, or `None` for a padded row.
    fn row_start(&self, level: &Level, pr: usize) -> Option<usize> {
        let (j, k) = level.row_jk(pr)?;
        let [ni, nj, _] = level.dims;
        Some(ni * (j + nj * k) - self.offset)
    }

    /// Loads the slab vector `r` into level 0's right-hand side on the owned rows.
    pub fn load_b(&self, level: &mut Level, r: &[f64]) {
        let (half, ni) = (level.half, level.dims[0]);
        let rows = self.fine.clone();
        for colour in 0..2 {
            let mut b = std::mem::take(&mut level.cs[colour].b);
            let l = &*level;
            b[rows.start * half..rows.end * half]
                .par_chunks_mut(half)
                .enumerate()
                .for_each(|(t, b)| {
                    let pr = rows.start + t;
                    b.fill(0.0);
                    let Some(base) = self.row_start(l, pr) else {
                        return;
                    };
                    let e = (colour + l.row_parity(pr)) & 1;
                    let inv = &l.cs[colour].inv_diag[pr * half..][..half];
                    // Entry h is cell ip = 2h + e, i = ip - 1.
                    for h in 0..half {
                        let ip = 2 * h + e;
                        if inv[h] != 0.0 && (1..=ni).contains(&ip) {
                            b[h] = r[base + ip - 1] as f32;
                        }
                    }
                });
            level.cs[colour].b = b;
        }
    }

    /// Level 0's `x` on the owned rows as the slab vector `z` (0 on the ghost layers).
    pub fn store_x(&self, level: &Level, z: &mut [f64]) {
        let (half, ni) = (level.half, level.dims[0]);
        z.fill(0.0);
        for pr in self.fine.clone() {
            let Some(base) = self.row_start(level, pr) else {
                continue;
            };
            let out = &mut z[base..base + ni];
            for colour in 0..2 {
                let e = (colour + level.row_parity(pr)) & 1;
                let x = &level.cs[colour].x[pr * half..][..half];
                for (h, &x) in x.iter().enumerate() {
                    let ip = 2 * h + e;
                    if (1..=ni).contains(&ip) {
                        out[ip - 1] = f64::from(x);
                    }
                }
            }
        }
    }

    /// Refreshes `colour`'s `x` on the layer next to each end of the slab from the neighbour
    /// (what the next half-sweep or residual reads there).
    pub fn exchange(
        &mut self,
        level: &mut Level,
        colour: usize,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let mut x = [
            std::mem::take(&mut level.cs[0].x),
            std::mem::take(&mut level.cs[1].x),
        ];
        let mut colours = [false; 2];
        colours[colour] = true;
        let [x0, x1] = &mut x;
        let result = self.exchange_vectors(level, [x0, x1], colours, d);
        let [x0, x1] = x;
        level.cs[0].x = x0;
        level.cs[1].x = x1;
        result
    }

    /// Refreshes the `colours` of the colour-split vector `x` (level 0's layout) on the layer
    /// next to each end of the slab from the neighbour, in one halo exchange.
    pub fn exchange_vectors<T: SlabValue>(
        &mut self,
        level: &Level,
        x: [&mut [T]; 2],
        colours: [bool; 2],
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let l = self.layout;
        let (first, last) = (l.first as usize, (l.first + l.owned) as usize - 1);
        let sends = [(l.ghost_lo > 0, first), (l.ghost_hi > 0, last)];
        let ghosts = [
            (l.ghost_lo > 0, first.wrapping_sub(1)),
            (l.ghost_hi > 0, last + 1),
        ];
        let picked = |c: &usize| colours[*c];
        for (_, g) in sends.into_iter().filter(|s| s.0) {
            for c in (0..2).filter(picked) {
                self.copy_layer(level, &mut *x[c], c, g, true);
            }
        }
        d.halo_exchange(&mut self.field, 1)?;
        for (_, g) in ghosts.into_iter().filter(|s| s.0) {
            for c in (0..2).filter(picked) {
                self.copy_layer(level, &mut *x[c], c, g, false);
            }
        }
        Ok(())
    }

    /// Copies `colour`'s entries `x` of global layer `g` into the scratch field (`out`) or
    /// back.
    fn copy_layer<T: SlabValue>(
        &mut self,
        level: &Level,
        x: &mut [T],
        colour: usize,
        g: usize,
        out: bool,
    ) {
        let (half, ni) = (level.half, level.dims[0]);
        let rl = rows_per_layer(level);
        for pr in (g + 1) * rl..(g + 2) * rl {
            let Some(base) = self.row_start(level, pr) else {
                continue;
            };
            let e = (colour + level.row_parity(pr)) & 1;
            let x = &mut x[pr * half..][..half];
            for (h, x) in x.iter_mut().enumerate() {
                let ip = 2 * h + e;
                if (1..=ni).contains(&ip) {
                    let f = &mut self.field[base + ip - 1];
                    if out {
                        *f = x.to_f64();
                    } else {
                        *x = T::from_f64(*f);
                    }
                }
            }
        }
    }

    /// Replaces level 1's right-hand side by the sum of every rank's restriction (each rank
    /// restricted its own fine cells into [`Self::coarse_rows`]; the sum runs in rank order).
    ///
    /// # Errors
    /// A failed gather.
    pub fn sum_restrictions(
        &mut self,
        coarse: &mut Level,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let per_layer = rows_per_layer(coarse) * coarse.half;
        let rows = self.coarse.start * coarse.half..self.coarse.end * coarse.half;
        self.block.clear();
        let layers = &self.coarse_layers;
        self.block.extend([layers.start as f64, layers.end as f64]);
        for c in &coarse.cs {
            self.block
                .extend(c.b[rows.clone()].iter().map(|&v| f64::from(v)));
        }
        let ranks = d.ranks() as usize;
        let layers_total = coarse.pdims[self.layout.axis as usize] + 4 * ranks;
        self.blocks
            .resize(2 * ranks + 2 * per_layer * layers_total, 0.0);
        let total = d.all_gather_blocks(&self.block, &mut self.blocks)?;
        for c in &mut coarse.cs {
            c.b.fill(0.0);
        }
        let mut at = 0;
        while at < total {
            let (lo, hi) = (self.blocks[at] as usize, self.blocks[at + 1] as usize);
            let n = (hi - lo) * per_layer;
            let start = (lo + 1) * per_layer;
            at += 2;
            for c in &mut coarse.cs {
                let src = &self.blocks[at..at + n];
                for (b, &v) in c.b[start..start + n].iter_mut().zip(src) {
                    *b += v as f32;
                }
                at += n;
            }
        }
        Ok(())
    }
}
