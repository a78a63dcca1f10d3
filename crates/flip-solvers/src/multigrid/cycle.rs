//! Multigrid cycles on the hierarchy, in f32, for the correction equation of a level.

use super::hierarchy::Hierarchy;
use super::smoother::{smooth_backward, smooth_forward};
use super::transfer::{prolong, restrict};

/// V-cycle on level `l` for `A x = b` (Karlsson Alg. 9, Chentanez & Müller Alg. 3).
///
/// `zero_guess`: `x` is taken as 0 on entry (its old contents are never read). `symmetric`:
/// post-smoothing runs the colours in reverse order, making the cycle a symmetric operator
/// (the MGPCG preconditioner, McAdams et al. 2010).
pub(crate) fn vcycle(
    h: &mut Hierarchy,
    l: usize,
    n_sweep: usize,
    zero_guess: bool,
    symmetric: bool,
) {
    if l + 1 == h.depth() {
        if zero_guess {
            h.coarse.solve(&h.levels[l]);
        } else {
            // Exact coarse solve of the correction: x += A⁻¹ (b - A x).
            coarse_correction(h, l);
        }
        return;
    }
    smooth_forward(&h.levels[l], n_sweep, zero_guess); // Alg. 9 lines 1-3
    h.levels[l].residual(); // line 4
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        restrict(&fine[l], &mut coarse[0]); // line 5
    }
    vcycle(h, l + 1, n_sweep, true, symmetric); // lines 6-7 (p^{m-1} = 0)
    {
        let (fine, coarse) = h.levels.split_at(l + 1);
        prolong(&coarse[0], &fine[l], true); // line 8, eq. 58
    }
    if symmetric {
        smooth_backward(&h.levels[l], n_sweep); // lines 9-11, adjoint order
    } else {
        smooth_forward(&h.levels[l], n_sweep, false);
    }
}

/// Full cycle on level 0 for `A x = b`, `x` taken as 0 on entry (Karlsson Alg. 10, Chentanez &
/// Müller Alg. 4 on the correction equation): restrict the right-hand side to every level, solve
/// the coarsest, then for each finer level interpolate the coarse solution as initial guess and
/// run a V-cycle.
pub(crate) fn full_cycle(h: &mut Hierarchy, n_sweep: usize) {
    let depth = h.depth();
    for l in 0..depth - 1 {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        let fine = &mut fine[l];
        fine.zero_x();
        fine.residual(); // r = b (x = 0), weighted for the restriction
        restrict(fine, &mut coarse[0]); // Alg. 4 lines 3-5
    }
    h.coarse.solve(&h.levels[depth - 1]); // line 7
    for l in (0..depth - 1).rev() {
        {
            let (fine, coarse) = h.levels.split_at(l + 1);
            prolong(&coarse[0], &fine[l], false); // Alg. 10 line 4: p^m = prolong(p^{m-1})
        }
        vcycle(h, l, n_sweep, false, false); // line 6
    }
}

/// `x += A⁻¹ (b - A x)` on the coarsest level `l` (used when it holds a non-zero guess).
fn coarse_correction(h: &mut Hierarchy, l: usize) {
    let level = &mut h.levels[l];
    let n = level.len();
    let x_old: Vec<f32> = (0..n).map(|c| level.x.get(c)).collect();
    let inv_norm = std::mem::replace(&mut level.inv_norm, vec![1.0; n]);
    level.residual();
    level.inv_norm = inv_norm;
    let b = std::mem::replace(&mut level.b, level.r.clone());
    h.coarse.solve(level);
    level.b = b;
    for (c, &x) in x_old.iter().enumerate() {
        if level.coef[c].inv_diag != 0.0 {
            level.x.set(c, level.x.get(c) + x);
        }
    }
}
