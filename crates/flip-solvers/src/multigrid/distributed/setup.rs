//! The hierarchy of a distributed solve, built with the fine work divided among the ranks:
//! each rank loads level 0 from its own slab problem (owned and ghost layers) and builds its own
//! layers of each divided coarse level (see `slab`) from the level above, taking the layers
//! beside them from its neighbours (`margins`); the first gathered level's layers of all ranks
//! are gathered into every rank (each needs the transfer masks of the layers it restricts
//! into), and the coarser levels are built as in a single-process solve on the rank that
//! cycles them (`coarse`). On the rows a rank works on the result is the single-process
//! hierarchy (cell by cell the same arithmetic), so only the work, and the memory of the
//! divided levels, is divided. Where the slab has too few ghost layers, or with
//! rediscretisation or a single level, every rank gathers the whole matrix and builds the whole
//! hierarchy.

use super::super::coarsen::{self, FineCover};
use super::super::hierarchy::Hierarchy;
use super::super::level::Level;
use super::super::slivers::drop_slivers;
use super::gather::GlobalProblem;
use super::{margins, slab};
use flip_abi::SlabLayout;
use flip_sdk::{Distributed, Problem, SolveError};
use std::ops::Range;

/// Ghost layers the layer-divided build reads beyond the owned ones on each side: the Galerkin
/// coarsening of a coarse layer reads its children's layers, the kinds of the coarse layers
/// beside it (two fine layers further) and walks up to four fine layers on to a Dirichlet
/// point, whose distance reads the couplings of one layer more, which read one more.
pub(super) const LOAD_MARGIN: usize = 6;

/// Padded rows of the slab axis' layers `layers` on `level`.
fn layer_rows(level: &Level, layers: Range<usize>) -> Range<usize> {
    let rl = if level.three_d() { level.pdims[1] } else { 1 };
    (layers.start + 1) * rl..(layers.end + 1) * rl
}

/// Where a rank's hierarchy stops being divided and who builds the rest.
#[derive(Clone, Copy)]
pub(super) struct Gathered {
    /// Fewest cells every rank must own of a coarse level to divide it.
    pub min_cells: usize,
    /// The rank that builds and cycles the levels below the first gathered one (`None`: every
    /// rank).
    pub root: Option<u32>,
}

/// Brings `h` up to date with the matrix of this rank's slab problem `p`; returns whether it
/// was rebuilt (on every rank alike).
///
/// # Errors
/// A failed reduction or gather.
pub(super) fn update(
    h: &mut Hierarchy,
    p: &Problem<'_>,
    d: &Distributed,
    buf: &mut Blocks,
    global: &mut GlobalProblem,
    gathered: Gathered,
) -> Result<bool, SolveError> {
    let l = *d.layout();
    let n = l.global_dims[l.axis as usize] as usize;
    h.fit(l.global_dims.map(|v| v as usize));
    let (lo, hi) = (
        (l.first - l.ghost_lo) as usize,
        (l.first + l.owned + l.ghost_hi) as usize,
    );
    let margins = (lo == 0 || l.ghost_lo as usize >= LOAD_MARGIN)
        && (hi == n || l.ghost_hi as usize >= LOAD_MARGIN);
    if h.reads_face_open() || h.depth() < 2 || !margins {
        let g = global.gather(d, p, h.reads_face_open())?;
        let rebuilt = h.update(&g.view());
        return Ok(d.max1(f64::from(u8::from(rebuilt)))? > 0.0);
    }
    let cover = FineCover {
        rows: layer_rows(&h.levels[0], lo..hi),
        inner: layer_rows(
            &h.levels[0],
            lo + usize::from(lo > 0)..hi - usize::from(hi < n),
        ),
        offset: lo * l.layer_len(),
    };
    let (changed, uniform) = coarsen::load_fine(&mut h.levels[0], p, &cover);
    if d.max1(f64::from(u8::from(changed || !h.build.built)))? == 0.0 {
        return Ok(false);
    }
    // The kernels of this rank's rows only need the uniform coupling of its loaded rows.
    h.levels[0].set_uniform(uniform);
    let divided = slab::divided_levels(&l, h, gathered.min_cells, d)?;
    let mut own = l.first as usize..(l.first + l.owned) as usize;
    for c in 1..=divided {
        own = slab::coarse_of(&own);
        build_divided(h, c, &own, &l, d, &mut buf.field)?;
    }
    // The first gathered level: every rank's own layers of it, gathered to every rank.
    let g = divided + 1;
    own = slab::coarse_of(&own);
    h.coarsen_rows(g, layer_rows(&h.levels[g], own.clone()));
    buf.gather_level(&mut h.levels[g], own, &l, d)?;
    h.levels[g].compute_unk();
    h.complete(g);
    if gathered.root.is_none_or(|r| r == d.rank()) {
        h.rebuild_from(g + 1);
    } else {
        // The levels below are neither built nor touched here: their memory stays unmapped.
        h.build.built = true;
    }
    Ok(true)
}

/// Builds divided level `c` on this rank: its `own` layers from level `c - 1`, then the
/// margins from the neighbours, before and again after the slivers are dropped (a sliver
/// beside a margin changes the diagonal across it), then the masks and colour-split arrays.
fn build_divided(
    h: &mut Hierarchy,
    c: usize,
    own: &Range<usize>,
    l: &SlabLayout,
    d: &Distributed,
    field: &mut Vec<f64>,
) -> Result<(), SolveError> {
    h.coarsen_rows(c, layer_rows(&h.levels[c], own.clone()));
    margins::exchange_margins(&mut h.levels[c], own, l, d, field)?;
    h.levels[c].compute_unk();
    drop_slivers(&mut h.levels[c], c);
    margins::exchange_margins(&mut h.levels[c], own, l, d, field)?;
    h.levels[c].compute_unk();
    h.finish(c);
    Ok(())
}

/// Buffers of the setup's gather and margin exchanges.
#[derive(Default)]
pub(super) struct Blocks {
    mine: Vec<f64>,
    all: Vec<f64>,
    field: Vec<f64>,
}

impl Blocks {
    /// Replaces `coarse`'s matrix (kinds, diagonal, Dirichlet excess and weight, couplings)
    /// by every rank's `layers` of it (the ranks' layers partition the level).
    fn gather_level(
        &mut self,
        coarse: &mut Level,
        layers: Range<usize>,
        l: &SlabLayout,
        d: &Distributed,
    ) -> Result<(), SolveError> {
        let pi = coarse.pdims[0];
        let per_layer = layer_rows(coarse, 0..1).len() * pi;
        let cells = layer_rows(coarse, layers.clone());
        let cells = cells.start * pi..cells.end * pi;
        self.mine.clear();
        self.mine.extend([layers.start as f64, layers.end as f64]);
        self.mine
            .extend(coarse.kind[cells.clone()].iter().map(|&k| f64::from(k)));
        for a in [&coarse.diag, &coarse.excess, &coarse.dweight] {
            self.mine
                .extend(a[cells.clone()].iter().map(|&v| f64::from(v)));
        }
        for a in 0..3 {
            self.mine
                .extend(coarse.off[cells.clone()].iter().map(|o| f64::from(o[a])));
        }
        let ranks = d.ranks() as usize;
        let layers_total = coarse.pdims[l.axis as usize];
        self.all
            .resize(2 * ranks + 7 * per_layer * layers_total, 0.0);
        let total = d.all_gather_blocks(&self.mine, &mut self.all)?;
        let mut at = 0;
        while at < total {
            let (lo, hi) = (self.all[at] as usize, self.all[at + 1] as usize);
            let n = (hi - lo) * per_layer;
            let start = layer_rows(coarse, lo..hi).start * pi;
            let dst = start..start + n;
            at += 2;
            let mut next = || {
                at += n;
                &self.all[at - n..at]
            };
            for (k, &v) in coarse.kind[dst.clone()].iter_mut().zip(next()) {
                *k = v as u8;
            }
            for a in [&mut coarse.diag, &mut coarse.excess, &mut coarse.dweight] {
                for (x, &v) in a[dst.clone()].iter_mut().zip(next()) {
                    *x = v as f32;
                }
            }
            for a in 0..3 {
                for (o, &v) in coarse.off[dst.clone()].iter_mut().zip(next()) {
                    o[a] = v as f32;
                }
            }
        }
        Ok(())
    }
}
