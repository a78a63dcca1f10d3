//! Red-black Gauss-Seidel (Karlsson §5.3, eq. 53-54): cells are coloured by the parity of
//! `i + j + k`; a half-sweep updates one colour from the other. With the colour-split layout
//! (see `level`) a half-sweep writes one colour's `x` while reading the other's, so rows run in
//! parallel and each row is a vectorised loop over contiguous slices.

use super::level::{ColourView, Level, Neighbours, RowGeom};
use crate::hierarchy::Smoother;
use rayon::prelude::*;

/// Colour updated first by a forward sweep.
pub(crate) const RED: usize = 0;
/// The other colour.
pub(crate) const BLACK: usize = 1;

/// Red-black Gauss-Seidel in f32 on the colour-split levels: the linear hierarchy's smoother.
pub(crate) struct RedBlack;

impl Smoother<Level> for RedBlack {
    fn forward(&self, level: &mut Level, sweeps: usize, zero_guess: bool) {
        smooth_forward(level, sweeps, zero_guess);
    }
    fn backward(&self, level: &mut Level, sweeps: usize) {
        smooth_backward(level, sweeps);
    }
    /// A red half-sweep reads black only; a backward sweep starts with black, reading red.
    fn reads_first(&self, backward: bool) -> Option<usize> {
        Some(if backward { RED } else { BLACK })
    }
}

/// One half-sweep: `x[c] = (b[c] - Σ A[c][n] x[n]) / A[c][c]` on the cells of `colour` (eq. 54).
/// With `zero_other`, the other colour is taken as zero (first half-sweep from a zero guess),
/// so stale values are never read.
pub(crate) fn half_sweep(level: &mut Level, colour: usize, zero_other: bool) {
    let three_d = level.three_d();
    if zero_other {
        run::<true, false>(level, colour);
    } else if three_d {
        run::<false, true>(level, colour);
    } else {
        run::<false, false>(level, colour);
    }
}

/// `n` forward sweeps (red then black). `zero_guess`: `x` is taken as 0 on entry.
pub(crate) fn smooth_forward(level: &mut Level, n: usize, zero_guess: bool) {
    for s in 0..n {
        half_sweep(level, RED, zero_guess && s == 0);
        half_sweep(level, BLACK, false);
    }
}

/// `n` backward sweeps (black then red): the adjoint of [`smooth_forward`], for a symmetric
/// V-cycle (post-smoothing with the reversed colour order).
pub(crate) fn smooth_backward(level: &mut Level, n: usize) {
    for _ in 0..n {
        half_sweep(level, BLACK, false);
        half_sweep(level, RED, false);
    }
}

fn run<const ZERO: bool, const THREE_D: bool>(level: &mut Level, colour: usize) {
    let (half, pj) = (level.half, level.pdims[1]);
    let w = level.uniform.unwrap_or(0.0);
    let uniform = level.uniform.is_some();
    let uniform_rows = &level.uniform_rows;
    let parallel = level.parallel();
    let min = level.min_rows();
    let spans = &level.spans[colour];
    let [c0, c1] = &mut level.cs;
    let (me, ot) = if colour == 0 { (c0, &*c1) } else { (c1, &*c0) };
    let x = &mut me.x;
    let me = ColourView::of(&me.inv_diag, &me.diag, &me.off, &[], &[], &me.b);
    let ot = ColourView::of(&ot.inv_diag, &ot.diag, &ot.off, &[], &ot.x, &ot.b);
    let kernel = |pr: usize, row: &mut [f32]| {
        let (lo, hi) = spans[pr];
        if lo >= hi {
            return;
        }
        let g = RowGeom {
            base: pr * half,
            lo: lo as usize,
            hi: hi as usize,
            e: (colour + pr % pj + pr / pj) & 1,
            sy: half,
            sz: half * pj,
        };
        let row = &mut row[g.lo..g.hi];
        if uniform && uniform_rows[pr] {
            row_sweep::<ZERO, THREE_D, true>(&g, &me, &ot, w, row);
        } else {
            row_sweep::<ZERO, THREE_D, false>(&g, &me, &ot, w, row);
        }
    };
    if parallel {
        x.par_chunks_mut(half)
            .enumerate()
            .with_min_len(min)
            .for_each(|(pr, row)| kernel(pr, row));
    } else {
        x.chunks_mut(half)
            .enumerate()
            .for_each(|(pr, row)| kernel(pr, row));
    }
}

#[inline(always)]
fn row_sweep<const ZERO: bool, const THREE_D: bool, const UNI: bool>(
    g: &RowGeom,
    me: &ColourView<'_>,
    ot: &ColourView<'_>,
    w: f32,
    x: &mut [f32],
) {
    let n = g.n();
    let x = &mut x[..n];
    let (b, inv) = (g.at(me.b, 0), g.at(me.inv_diag, 0));
    if ZERO {
        for t in 0..n {
            x[t] = b[t] * inv[t];
        }
        return;
    }
    let nb = Neighbours::new(g, me.off, ot.off, ot.x, THREE_D, UNI);
    for t in 0..n {
        x[t] = (b[t] - nb.sum::<THREE_D, UNI>(w, t)) * inv[t];
    }
}
