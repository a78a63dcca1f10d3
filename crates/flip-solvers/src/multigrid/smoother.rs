//! Red-black Gauss-Seidel (Karlsson §5.3, eq. 53-54): cells are coloured by the parity of
//! `i + j + k`; a half-sweep updates one colour from the other, so the rows of a half-sweep are
//! independent and run in parallel.

use super::level::Level;
use rayon::prelude::*;

/// Colour updated first by a forward sweep.
pub(crate) const RED: usize = 0;
/// The other colour.
pub(crate) const BLACK: usize = 1;

/// One half-sweep: `x[c] = (b[c] - Σ A[c][n] x[n]) / A[c][c]` on the cells of `colour` (eq. 54).
/// With `zero_other`, the other colour is taken as zero (first half-sweep from a zero guess),
/// so stale values are never read.
pub(crate) fn half_sweep(level: &Level, colour: usize, zero_other: bool) {
    let three_d = level.pz == 1;
    match (three_d, zero_other) {
        (true, false) => run::<true, false>(level, colour),
        (false, false) => run::<false, false>(level, colour),
        (_, true) => run::<false, true>(level, colour),
    }
}

/// `n` forward sweeps (red then black). `zero_guess`: `x` is taken as 0 on entry.
pub(crate) fn smooth_forward(level: &Level, n: usize, zero_guess: bool) {
    for s in 0..n {
        half_sweep(level, RED, zero_guess && s == 0);
        half_sweep(level, BLACK, false);
    }
}

/// `n` backward sweeps (black then red): the adjoint of [`smooth_forward`], for a symmetric
/// V-cycle (post-smoothing with the reversed colour order).
pub(crate) fn smooth_backward(level: &Level, n: usize) {
    for _ in 0..n {
        half_sweep(level, BLACK, false);
        half_sweep(level, RED, false);
    }
}

fn run<const THREE_D: bool, const ZERO: bool>(level: &Level, colour: usize) {
    let rows = level.rows();
    if level.parallel() {
        let min_len = (rows / 64).max(1);
        (0..rows)
            .into_par_iter()
            .with_min_len(min_len)
            .for_each(|pr| row::<THREE_D, ZERO>(level, pr, colour));
    } else {
        (0..rows).for_each(|pr| row::<THREE_D, ZERO>(level, pr, colour));
    }
}

#[inline(always)]
fn row<const THREE_D: bool, const ZERO: bool>(level: &Level, pr: usize, colour: usize) {
    let (lo, hi) = level.spans[pr];
    if lo >= hi {
        return;
    }
    let pi = level.pdims[0];
    let (sy, sz) = (level.stride[1], level.stride[2]);
    let (jp, kp) = (pr % level.pdims[1], pr / level.pdims[1]);
    let (coef, b, x) = (&level.coef[..], &level.b[..], &level.x);
    let first = lo as usize + 1;
    let start = first + ((first + jp + kp + colour) & 1);
    let base = pr * pi;
    for ip in (start..hi as usize + 1).step_by(2) {
        let c = base + ip;
        let cf = coef[c];
        if cf.inv_diag == 0.0 {
            continue;
        }
        let mut s = b[c];
        if !ZERO {
            s -= cf.off[0] * x.get(c + 1)
                + coef[c - 1].off[0] * x.get(c - 1)
                + cf.off[1] * x.get(c + sy)
                + coef[c - sy].off[1] * x.get(c - sy);
            if THREE_D {
                s -= cf.off[2] * x.get(c + sz) + coef[c - sz].off[2] * x.get(c - sz);
            }
        }
        x.set(c, s * cf.inv_diag);
    }
}
