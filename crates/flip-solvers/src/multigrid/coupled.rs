//! MGPCG on the coupled (rigid-body) kind: the outer CG applies `A + J C Jᵀ`
//! ([`crate::coupled::coupled_cg`]) and is preconditioned by the same symmetric V-cycle of `A`
//! as [`super::MgPcgSolver`] (McAdams, Sifakis & Teran 2010); the bodies' low-rank term lives
//! only in the outer iteration.

use super::hierarchy::Hierarchy;
use super::level::Level;
use super::MultigridConfig;
use crate::hierarchy::cycle::vcycle;
use flip_sdk::{BodyTerms, Problem, SolveStats};
use rayon::prelude::*;

/// Solves the coupled problem of `grid` and `bodies` on the hierarchy `h` built for `grid`'s
/// matrix.
pub(super) fn solve(
    h: &mut Hierarchy,
    grid: &mut Problem<'_>,
    bodies: &BodyTerms<'_>,
    config: &MultigridConfig,
) -> SolveStats {
    crate::coupled::coupled_cg(
        grid,
        bodies,
        config.tolerance,
        config.max_iterations,
        |r, z| {
            gather(&mut h.levels[0], r);
            vcycle(h, 0, true, true);
            scatter(&h.levels[0], z);
        },
    )
}

/// Calls `f(entry, cell)` for every unknown of colour `colour` in padded row `pr` of `level`'s
/// colour-split layout, with its grid cell index.
fn for_each_unknown(level: &Level, colour: usize, pr: usize, mut f: impl FnMut(usize, usize)) {
    let (lo, hi) = level.spans[colour][pr];
    if lo >= hi {
        return;
    }
    let [ni, nj, _] = level.dims;
    let Some((j, k)) = level.row_jk(pr) else {
        return;
    };
    let e = (colour + level.row_parity(pr)) & 1;
    let inv = &level.cs[colour].inv_diag[pr * level.half..][..level.half];
    // Entry h is cell ip = 2h + e, i = ip - 1 (as `outer::load`).
    let base = ni * (j + nj * k) + e;
    let span = inv.iter().enumerate().take(hi as usize).skip(lo as usize);
    for (h, _) in span.filter(|&(_, &d)| d != 0.0) {
        f(h, base + 2 * h - 1);
    }
}

/// The grid vector `r` into level 0's right-hand side `b` (f32, colour-split), 0 elsewhere.
fn gather(level: &mut Level, r: &[f64]) {
    let half = level.half;
    for colour in 0..2 {
        let mut b = std::mem::take(&mut level.cs[colour].b);
        let lv = &*level;
        b.par_chunks_mut(half).enumerate().for_each(|(pr, b)| {
            b.fill(0.0);
            for_each_unknown(lv, colour, pr, |h, c| b[h] = r[c] as f32);
        });
        level.cs[colour].b = b;
    }
}

/// Level 0's solution `x` (colour-split) into the grid vector `z`, 0 off the unknowns (row by
/// row, as `outer::store`).
fn scatter(level: &Level, z: &mut [f64]) {
    let [ni, nj, _] = level.dims;
    let half = level.half;
    z.par_chunks_mut(ni)
        .enumerate()
        .with_min_len(level.min_rows())
        .for_each(|(row, out)| {
            let pr = level.at(0, row % nj, row / nj) / level.pdims[0];
            let q = level.row_parity(pr);
            out.fill(0.0);
            for colour in 0..2 {
                let (lo, hi) = level.spans[colour][pr];
                let e = (colour + q) & 1;
                let x = &level.cs[colour].x[pr * half..][..half];
                let inv = &level.cs[colour].inv_diag[pr * half..][..half];
                for h in lo as usize..hi as usize {
                    if inv[h] != 0.0 {
                        out[2 * h + e - 1] = f64::from(x[h]);
                    }
                }
            }
        });
}
