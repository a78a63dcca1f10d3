//! Where one rank's slab sits in the (replicated, globally indexed) levels of the hierarchy:
//! the layers it owns on each *divided* level (level 0 and the coarser levels of which every
//! rank still owns [`MIN_LAYERS`] layers and [`MIN_CELLS`] cells), the rows the kernels visit
//! there, and the loading of the residual into level 0 and the storing of the correction. The
//! data movement between the ranks is in `exchange`.
//!
//! A padded row `pr` of a level holds cells `(·, j, k)` with `pr = (j + 1) + pj (k + pz)`, so
//! the slab axis' layer `g` (y in 2D, z in 3D) is the padded layer `g + 1` and spans
//! `rows_per_layer` consecutive rows (1 in 2D, `pj` in 3D). A coarse layer `c` is made of the
//! fine layers `2c` and `2c + 1`; it belongs to the rank that owns fine layer `2c`, so a rank
//! owning fine layers `[a, b)` owns coarse layers `[⌈a/2⌉, ⌈b/2⌉)`.

use super::super::hierarchy::Hierarchy;
use super::super::level::Level;
use flip_abi::SlabLayout;
use flip_sdk::{Distributed, SolveError};
use rayon::prelude::*;
use std::ops::Range;

/// Fewest layers every rank must own of a level below level 0 for it to be divided (the
/// margin its neighbours take from it); the levels below the divided ones are gathered (to
/// one rank, see `coarse`).
pub(super) const MIN_LAYERS: usize = super::margins::MARGIN;

/// Fewest cells every rank must own of a level below level 0 for it to be divided: below
/// this, the level's sweeps cost less than the exchanges they would need (measured with
/// `flipgraph bench mpi` and `bench step --mpi` on 2 ranks).
pub(super) const MIN_CELLS: usize = 8192;

/// Rows per layer of the slab axis on `level`.
pub(super) fn rows_per_layer(level: &Level) -> usize {
    if level.three_d() {
        level.pdims[1]
    } else {
        1
    }
}

/// Padded rows of the slab axis' layers `layers` on `level`.
pub(super) fn layer_rows(level: &Level, layers: &Range<usize>) -> Range<usize> {
    let rl = rows_per_layer(level);
    (layers.start + 1) * rl..(layers.end + 1) * rl
}

/// The coarse layers owned by the rank owning fine layers `fine`.
pub(super) fn coarse_of(fine: &Range<usize>) -> Range<usize> {
    fine.start.div_ceil(2)..fine.end.div_ceil(2)
}

/// Levels below level 0 that every rank can divide ([`SlabRows::divisible`], the fewest over
/// the ranks). Collective.
///
/// # Errors
/// A failed reduction.
pub(super) fn divided_levels(
    l: &SlabLayout,
    h: &Hierarchy,
    min_cells: usize,
    d: &Distributed,
) -> Result<usize, SolveError> {
    let mine = SlabRows::divisible(l, h, min_cells) as f64;
    Ok(-d.max1(-mine)? as usize)
}

/// One rank's part of a divided level.
pub(super) struct LevelRows {
    /// Layers of the slab axis this rank owns.
    pub own: Range<usize>,
    /// Padded rows of `own`.
    pub rows: Range<usize>,
    /// Layers of the next coarser level this rank's restriction writes (its own and one
    /// partial layer on each side: restriction reads fine layers `2c - 1 ..= 2c + 2` for
    /// coarse layer `c`, see `transfer`).
    pub touch: Range<usize>,
    /// The level's spans with every row outside `rows` emptied: the kernels then visit only
    /// the owned cells (swapped into the level while this rank works on it).
    pub owned_spans: [Vec<(u32, u32)>; 2],
}

impl LevelRows {
    fn new(level: &Level, coarse: &Level, own: Range<usize>, axis: usize) -> Self {
        let rows = layer_rows(level, &own);
        let touch =
            own.start.div_ceil(2).saturating_sub(1)..(own.end / 2 + 1).min(coarse.dims[axis]);
        let mut owned_spans = level.spans.clone();
        for spans in &mut owned_spans {
            for (pr, s) in spans.iter_mut().enumerate() {
                if !rows.contains(&pr) {
                    *s = (0, 0);
                }
            }
        }
        Self {
            own,
            rows,
            touch,
            owned_spans,
        }
    }
}

/// One rank's rows of the divided levels, and the buffers of its exchanges.
pub(super) struct SlabRows {
    pub(super) layout: SlabLayout,
    /// Global linear index of the slab vectors' first cell (its lowest ghost layer).
    offset: usize,
    /// The divided levels `0..levels.len()`, finest first.
    pub levels: Vec<LevelRows>,
    /// Scratch cell field of the slab (halo exchanges).
    pub(super) field: Vec<f64>,
    /// This rank's restriction block (then its correction), and every rank's after the
    /// gather (on the coarse rank).
    pub(super) block: Vec<f64>,
    pub(super) blocks: Vec<f64>,
    /// The rank that cycles the gathered levels, or `None` for every rank (see `coarse`).
    pub(super) root: Option<u32>,
}

impl SlabRows {
    /// The slab of `layout` on the hierarchy `h` (at least two levels), dividing level 0 and
    /// the `coarse` levels below it; the gathered levels are cycled on `root` (`None`: on
    /// every rank).
    pub fn new(layout: SlabLayout, h: &Hierarchy, coarse: usize, root: Option<u32>) -> Self {
        let axis = layout.axis as usize;
        let mut own = layout.first as usize..(layout.first + layout.owned) as usize;
        let mut levels = Vec::new();
        for l in 0..=coarse {
            levels.push(LevelRows::new(
                &h.levels[l],
                &h.levels[l + 1],
                own.clone(),
                axis,
            ));
            own = coarse_of(&own);
        }
        Self {
            layout,
            offset: (layout.first - layout.ghost_lo) as usize * layout.layer_len(),
            levels,
            field: vec![0.0; layout.local_dims().iter().product()],
            block: Vec::new(),
            blocks: Vec::new(),
            root,
        }
    }

    /// Levels below level 0 this rank can divide: those of which it owns at least
    /// [`MIN_LAYERS`] layers and `min_cells` cells, above the coarsest (the ranks then agree on
    /// the minimum).
    pub fn divisible(layout: &SlabLayout, h: &Hierarchy, min_cells: usize) -> usize {
        let axis = layout.axis as usize;
        let mut own = layout.first as usize..(layout.first + layout.owned) as usize;
        let mut n = 0;
        while n + 2 < h.depth() {
            own = coarse_of(&own);
            let dims = h.levels[n + 1].dims;
            let cells = own.len() * dims.iter().product::<usize>() / dims[axis];
            if own.len() < MIN_LAYERS || cells < min_cells {
                break;
            }
            n += 1;
        }
        n
    }

    /// Every row of `fine` (level 0 of a one-level hierarchy, gathered whole): only
    /// [`Self::load_b`] and [`Self::store_x`] apply, on global vectors.
    pub fn whole(layout: SlabLayout, fine: &Level) -> Self {
        let own = 0..fine.dims[layout.axis as usize];
        Self {
            layout,
            offset: 0,
            levels: vec![LevelRows {
                rows: 0..fine.rows(),
                own,
                touch: 0..0,
                owned_spans: [Vec::new(), Vec::new()],
            }],
            field: Vec::new(),
            block: Vec::new(),
            blocks: Vec::new(),
            root: None,
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

    /// Swaps level `l`'s spans with its owned spans (in, and back out).
    pub fn swap_spans(&mut self, h: &mut Hierarchy, l: usize) {
        std::mem::swap(&mut h.levels[l].spans, &mut self.levels[l].owned_spans);
    }

    /// Zeroes the divided levels' residuals on the layers beside the owned ones that a
    /// restriction reads (three on each side: coarse layer `c` reads `2c - 1 ..= 2c + 2`): a
    /// restriction then sums only this rank's cells, and the ranks' sums add up to the global
    /// restriction. Nothing writes the residual outside the owned rows, and the layers further
    /// away are left untouched (their memory is never mapped, see `docs/guide/mpi.md`).
    pub fn clear_foreign_residual(&self, h: &mut Hierarchy) {
        for (part, level) in self.levels.iter().zip(&mut h.levels) {
            let n = level.dims[self.layout.axis as usize];
            let own = &part.own;
            let below = own.start.saturating_sub(3)..own.start;
            let above = own.end..(own.end + 3).min(n);
            let half = level.half;
            for layers in [below, above] {
                let rows = layer_rows(level, &layers);
                for c in &mut level.cs {
                    c.r[rows.start * half..rows.end * half].fill(0.0);
                }
            }
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
        let rows = self.levels[0].rows.clone();
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
        for pr in self.levels[0].rows.clone() {
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
}
