//! Projected Gauss-Seidel relaxation and the LCP residual on one level.
//!
//! Every relaxation here solves the bound-constrained problem
//! `x ≥ lo ⊥ (A x − t) ≥ 0` row-wise (`lo = −∞` on linear rows), which covers the fine LCP
//! (eq. 3.7: `t = rhs`, `lo = 0` on S), the FAS coarse problems `N^H(p) = f^H` of Alg. 3
//! (`t = g + f`, `lo = f` on S) and the correction problems of the FMG baseline.

use super::csr::parallel;
use super::system::Level;
use rayon::prelude::*;

/// Rows per rayon task at least (keeps the splitting overhead small).
const MIN_ROWS: usize = 256;

/// Writes `out[i] = row(i)` for every `i`, in parallel when the level is large enough.
fn rows(level: &Level, out: &mut [f64], row: impl Fn(usize) -> f64 + Sync + Send) {
    if parallel(out.len(), level.a.per_row()) {
        out.par_iter_mut()
            .enumerate()
            .with_min_len(MIN_ROWS)
            .for_each(|(i, o)| *o = row(i));
    } else {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = row(i));
    }
}

/// `max_i row(i)` over the level's unknowns, in parallel when the level is large enough.
fn max_rows(level: &Level, row: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
    let n = level.len();
    if parallel(n, level.a.per_row()) {
        (0..n)
            .into_par_iter()
            .with_min_len(MIN_ROWS)
            .map(row)
            .reduce(|| 0.0, f64::max)
    } else {
        (0..n).map(row).fold(0.0, f64::max)
    }
}

/// One projected Gauss-Seidel sweep [CPS92]: `x_i ← max(lo_i, (t_i − Σ_{j≠i} a_ij x_j) / a_ii)`.
///
/// Colour by colour (red-black on the fine 5/7-point stencil, more colours on the Galerkin
/// levels): unknowns of one colour are not coupled, so each colour is relaxed in parallel and
/// the result equals a sequential sweep in colour order, whatever the thread count. This is
/// Lai et al.'s PGS smoother with a multicolour ordering of the unknowns (any ordering is a
/// Gauss-Seidel ordering; this one is parallel).
pub(crate) fn sweep(level: &Level, t: &[f64], lo: &[f64], x: &mut [f64]) {
    let per_row = level.a.per_row();
    for range in &level.colours {
        let (before, rest) = x.split_at_mut(range.start);
        let (mid, after) = rest.split_at_mut(range.len());
        let (start, end) = (range.start, range.end);
        let update = |(k, xi): (usize, &mut f64)| {
            let i = start + k;
            let d = level.diag[i];
            if d <= 0.0 {
                return; // no coupling at all (cannot happen for SPD rows)
            }
            // Smaller columns belong to earlier colours, larger ones to later colours.
            let sigma = level.a.sigma(i, before, after, end);
            *xi = ((t[i] - sigma) / d).max(lo[i]);
        };
        if parallel(mid.len(), per_row) {
            mid.par_iter_mut()
                .enumerate()
                .with_min_len(MIN_ROWS)
                .for_each(update);
        } else {
            mid.iter_mut().enumerate().for_each(update);
        }
    }
}

/// Residual of the bound-constrained problem, `r_i = −min(x_i − lo_i, (A x − t)_i)`:
/// `t − A x` on linear rows and `−min(x − lo, A x − t)` on S (eq. 3.9/3.12, i.e. `f − N(x)` of
/// Alg. 3). Writes `r`.
pub(crate) fn residual(level: &Level, t: &[f64], lo: &[f64], x: &[f64], r: &mut [f64]) {
    residual_with(level, t, lo, x, r, |_| 1.0);
}

/// [`residual`] with the S rows in the diagonally scaled form `−min(a_ii (x_i − lo_i), …)`
/// (the same complementarity; both branches then have the units of `A x`).
pub(crate) fn residual_scaled(level: &Level, t: &[f64], lo: &[f64], x: &[f64], r: &mut [f64]) {
    residual_with(level, t, lo, x, r, |i| level.diag[i]);
}

fn residual_with(
    level: &Level,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    r: &mut [f64],
    scale: impl Fn(usize) -> f64 + Sync + Send,
) {
    rows(level, r, |i| {
        let w = level.a.row_dot(i, level.diag[i], x) - t[i];
        if level.s[i] && lo[i].is_finite() {
            -(scale(i) * (x[i] - lo[i])).min(w)
        } else {
            -w
        }
    });
}

/// `max |r|` of [`residual`] without storing it.
pub(crate) fn residual_norm(level: &Level, t: &[f64], lo: &[f64], x: &[f64]) -> f64 {
    max_rows(level, |i| {
        let w = level.a.row_dot(i, level.diag[i], x) - t[i];
        (x[i] - lo[i]).min(w).abs()
    })
}

/// The FAS coarse problem of Alg. 3, line 9, on `level` for `x = R x^h` and `rr = R r^h`:
/// `f = N(x) + rr` with `N(x) = min(a_ii x, A x − g)` on S and `A x − g` elsewhere (eq. 4.6
/// with `b = −g`, the S rows diagonally scaled as in [`residual_scaled`]). Writes the
/// bound-constrained form of `N(y) = f` (`t = g + f`, `lo = f / a_ii` on S, −∞ elsewhere) into
/// `t` and `lo`, which [`sweep`] relaxes.
pub(crate) fn coarse_problem(
    level: &Level,
    g: &[f64],
    x: &[f64],
    rr: &[f64],
    t: &mut [f64],
    lo: &mut [f64],
) {
    let row = |(i, (t, lo)): (usize, (&mut f64, &mut f64))| {
        let w = level.a.row_dot(i, level.diag[i], x) - g[i];
        let f = if level.s[i] {
            (level.diag[i] * x[i]).min(w)
        } else {
            w
        } + rr[i];
        *t = g[i] + f;
        *lo = if level.s[i] {
            f / level.diag[i]
        } else {
            f64::NEG_INFINITY
        };
    };
    if parallel(t.len(), level.a.per_row()) {
        t.par_iter_mut()
            .zip(lo.par_iter_mut())
            .enumerate()
            .with_min_len(MIN_ROWS)
            .for_each(row);
    } else {
        t.iter_mut().zip(lo.iter_mut()).enumerate().for_each(row);
    }
}

/// Relaxes until the residual drops below `max(rel · initial, abs)` or `max_sweeps` sweeps
/// (used as the coarsest-level solve of the V-cycles). Returns the sweeps done.
pub(crate) fn solve_coarsest(
    level: &Level,
    t: &[f64],
    lo: &[f64],
    x: &mut [f64],
    rel: f64,
    max_sweeps: usize,
) -> usize {
    let r0 = residual_norm(level, t, lo, x);
    let target = (rel * r0).max(1e-300);
    for k in 0..max_sweeps {
        sweep(level, t, lo, x);
        if k % 4 == 3 && residual_norm(level, t, lo, x) <= target {
            return k + 1;
        }
    }
    max_sweeps
}
