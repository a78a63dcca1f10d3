//! Projected Gauss-Seidel relaxation and the LCP residual on one level.
//!
//! Every relaxation here solves the bound-constrained problem
//! `x ≥ lo ⊥ (A x − t) ≥ 0` row-wise (`lo = −∞` on linear rows), which covers the fine LCP
//! (eq. 3.7: `t = rhs`, `lo = 0` on S), the FAS coarse problems `N^H(p) = f^H` of Alg. 3
//! (`t = g + f`, `lo = f` on S) and the correction problems of the FMG baseline.

use super::csr::PAR_ROWS;
use super::system::Level;
use rayon::prelude::*;

/// One projected Gauss-Seidel sweep [CPS92]: `x_i ← max(lo_i, (t_i − Σ_{j≠i} a_ij x_j) / a_ii)`.
///
/// Colour by colour (red-black on the fine 5/7-point stencil): unknowns of one colour are not
/// coupled, so each colour is relaxed in parallel and the result equals a sequential sweep in
/// colour order, whatever the thread count.
pub(crate) fn sweep(level: &Level, t: &[f64], lo: &[f64], x: &mut [f64]) {
    for range in &level.colours {
        let (before, rest) = x.split_at_mut(range.start);
        let (mid, after) = rest.split_at_mut(range.len());
        let (start, end) = (range.start, range.end);
        let update = |k: usize, xi: &mut f64| {
            let i = start + k;
            let d = level.diag[i];
            if d <= 0.0 {
                return; // no coupling at all (cannot happen for SPD rows)
            }
            let (cs, vs) = level.a.row(i);
            let mut sigma = 0.0;
            for (&j, &a) in cs.iter().zip(vs) {
                let j = j as usize;
                if j < start {
                    sigma += a * before[j];
                } else if j >= end {
                    sigma += a * after[j - end];
                }
            }
            *xi = ((t[i] - sigma) / d).max(lo[i]);
        };
        if mid.len() < PAR_ROWS {
            mid.iter_mut().enumerate().for_each(|(k, xi)| update(k, xi));
        } else {
            mid.par_iter_mut()
                .enumerate()
                .for_each(|(k, xi)| update(k, xi));
        }
    }
}

/// Residual of the bound-constrained problem, `r_i = −min(x_i − lo_i, (A x − t)_i)`:
/// `t − A x` on linear rows and `−min(x − lo, A x − t)` on S (eq. 3.9/3.12, i.e. `f − N(x)` of
/// Alg. 3). Writes `r` and returns `max |r|`.
pub(crate) fn residual(level: &Level, t: &[f64], lo: &[f64], x: &[f64], r: &mut [f64]) -> f64 {
    residual_with(level, t, lo, x, r, |_| 1.0)
}

/// [`residual`] with the S rows in the diagonally scaled form `−min(a_ii (x_i − lo_i), …)`
/// (the same complementarity; both branches then have the units of `A x`).
pub(crate) fn residual_scaled(
    level: &Level,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    r: &mut [f64],
) -> f64 {
    residual_with(level, t, lo, x, r, |i| level.diag[i])
}

fn residual_with(
    level: &Level,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    r: &mut [f64],
    scale: impl Fn(usize) -> f64 + Sync,
) -> f64 {
    let row = |i: usize| -> f64 {
        let w = level.a.row_dot(i, x) - t[i];
        if level.s[i] && lo[i].is_finite() {
            -(scale(i) * (x[i] - lo[i])).min(w)
        } else {
            -w
        }
    };
    if r.len() < PAR_ROWS {
        r.iter_mut().enumerate().fold(0.0, |m, (i, o)| {
            *o = row(i);
            m.max(o.abs())
        })
    } else {
        r.par_iter_mut()
            .enumerate()
            .map(|(i, o)| {
                *o = row(i);
                o.abs()
            })
            .reduce(|| 0.0, f64::max)
    }
}

/// `max |r|` of [`residual`] without storing it.
pub(crate) fn residual_norm(level: &Level, t: &[f64], lo: &[f64], x: &[f64]) -> f64 {
    let row = |i: usize| -> f64 {
        let w = level.a.row_dot(i, x) - t[i];
        (x[i] - lo[i]).min(w).abs()
    };
    if x.len() < PAR_ROWS {
        (0..x.len()).map(row).fold(0.0, f64::max)
    } else {
        (0..x.len())
            .into_par_iter()
            .map(row)
            .reduce(|| 0.0, f64::max)
    }
}

/// `N(x) = min(a_ii x, A x − g)` on S, `A x − g` elsewhere (eq. 4.6 with `b = −g`, the S rows
/// diagonally scaled as in [`residual_scaled`]).
pub(crate) fn operator(level: &Level, g: &[f64], x: &[f64], out: &mut [f64]) {
    let row = |i: usize| -> f64 {
        let w = level.a.row_dot(i, x) - g[i];
        if level.s[i] {
            (level.diag[i] * x[i]).min(w)
        } else {
            w
        }
    };
    if out.len() < PAR_ROWS {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = row(i));
    } else {
        out.par_iter_mut()
            .enumerate()
            .for_each(|(i, o)| *o = row(i));
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
