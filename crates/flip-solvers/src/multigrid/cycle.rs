//! Multigrid cycles on the hierarchy, in f32, for the correction equation of a level.

use super::hierarchy::Hierarchy;
use super::smoother::{smooth_backward, smooth_forward, BLACK, RED};
use super::transfer::{prolong, restrict};

/// V-cycle on level `l` for `A x = b` (Karlsson Alg. 9, Chentanez & Müller Alg. 3).
///
/// `zero_guess`: `x` is taken as 0 on entry (its old contents are never read). `symmetric`:
/// post-smoothing runs the colours in reverse order, making the cycle a symmetric operator
/// (the MGPCG preconditioner, McAdams et al. 2010).
pub(crate) fn vcycle(h: &mut Hierarchy, l: usize, zero_guess: bool, symmetric: bool) {
    if l + 1 == h.depth() {
        if zero_guess {
            h.coarse.solve(&mut h.levels[l]);
        } else {
            // Exact coarse solve of the correction: x += A⁻¹ (b - A x).
            h.coarse.correct(&mut h.levels[l]);
        }
        return;
    }
    let sweeps = h.sweeps(l);
    smooth_forward(&mut h.levels[l], sweeps, zero_guess); // Alg. 9 lines 1-3
                                                          // Line 4: the smoothing ended with a black half-sweep, after which the black residual is
                                                          // zero: only red cells are computed and restricted.
    h.levels[l].residual(true);
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        restrict(&fine[l], &mut coarse[0], true); // line 5
    }
    vcycle(h, l + 1, true, symmetric); // lines 6-7 (p^{m-1} = 0)
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        // Line 8, eq. 58, for the colour the first post-smoothing half-sweep reads.
        let read_first = if symmetric { RED } else { BLACK };
        prolong(&mut coarse[0], &mut fine[l], true, Some(read_first));
    }
    if symmetric {
        smooth_backward(&mut h.levels[l], sweeps); // lines 9-11, adjoint order
    } else {
        smooth_forward(&mut h.levels[l], sweeps, false);
    }
}

/// Full cycle on level 0 for `A x = b`, `x` taken as 0 on entry (Karlsson Alg. 10, Chentanez &
/// Müller Alg. 4 on the correction equation): restrict the right-hand side to every level, solve
/// the coarsest, then for each finer level interpolate the coarse solution as initial guess and
/// run a V-cycle.
pub(crate) fn full_cycle(h: &mut Hierarchy) {
    let depth = h.depth();
    for l in 0..depth - 1 {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        let fine = &mut fine[l];
        fine.zero_x();
        fine.residual(false); // r = b (x = 0), weighted for the restriction
        restrict(fine, &mut coarse[0], false); // Alg. 4 lines 3-5
    }
    h.coarse.solve(&mut h.levels[depth - 1]); // line 7
    for l in (0..depth - 1).rev() {
        {
            let (fine, coarse) = h.levels.split_at_mut(l + 1);
            // Alg. 10 line 4: p^m = prolong(p^{m-1}); the V-cycle's first half-sweep (red)
            // reads black only.
            prolong(&mut coarse[0], &mut fine[l], false, Some(BLACK));
        }
        vcycle(h, l, false, false); // line 6
    }
}
