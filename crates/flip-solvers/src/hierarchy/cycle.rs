//! The multigrid cycles on a [`Hierarchy`] of any level type, for the correction equation of a
//! level.

use super::{CoarseSolve, CycleTerm, Hierarchy, MultigridLevel, Smoother, Transfer};

/// V-cycle on level `l` for `A x = b` (Karlsson 2014 Alg. 9, Chentanez & Müller 2011 Alg. 3),
/// or for `(A + T) x = b` on the levels that carry `term`.
///
/// `zero_guess`: `x` is taken as 0 on entry (its old contents are never read). `symmetric`:
/// post-smoothing runs in the adjoint order, making the cycle a symmetric operator (the MGPCG
/// preconditioner, McAdams et al. 2010). With a term, the smoothers sweep `A_l` with the term
/// lagged (not at all from a zero guess, where it vanishes), so a symmetric cycle stays
/// symmetric; the residual and the coarsest solve include it.
pub(crate) fn vcycle<L: MultigridLevel>(
    h: &mut Hierarchy<L>,
    l: usize,
    zero_guess: bool,
    symmetric: bool,
    term: Option<&dyn CycleTerm<L>>,
) {
    let term = term.filter(|t| l < t.carried());
    if l + 1 == h.depth() {
        if zero_guess {
            h.coarse.solve(&mut h.levels[l]);
        } else {
            h.coarse.correct(&mut h.levels[l]);
        }
        if let Some(t) = term {
            t.correct_coarsest(&h.coarse, &mut h.levels[l]);
        }
        return;
    }
    let sweeps = h.sweeps(l);
    let smoother = &h.smoother;
    let level = &mut h.levels[l];
    match term.filter(|_| !zero_guess) {
        Some(t) => t.lagged(l, level, &mut |x| smoother.forward(x, sweeps, false)),
        None => smoother.forward(level, sweeps, zero_guess), // Alg. 9 lines 1-3
    }
    match term {
        Some(t) => t.residual(l, level),
        None => level.residual(true), // line 4
    }
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        h.transfer
            .restrict(&fine[l], &mut coarse[0], term.is_none()); // line 5
    }
    vcycle(h, l + 1, true, symmetric, term); // lines 6-7 (p^{m-1} = 0)
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        // Line 8, eq. 58, for the part the first post-smoothing sweep reads, and where a
        // lagged term reads `x`.
        let only = h.smoother.reads_first(symmetric);
        h.transfer.prolong(&mut coarse[0], &mut fine[l], true, only);
        if let (Some(t), Some(wrote)) = (term, only) {
            t.complete_prolongation(l, &mut coarse[0], &mut fine[l], wrote);
        }
    }
    // Lines 9-11, in the adjoint order when symmetric.
    let smoother = &h.smoother;
    let mut post = |x: &mut L| {
        if symmetric {
            smoother.backward(x, sweeps);
        } else {
            smoother.forward(x, sweeps, false);
        }
    };
    match term {
        Some(t) => t.lagged(l, &mut h.levels[l], &mut post),
        None => post(&mut h.levels[l]),
    }
}

/// Full cycle on level 0 for `A x = b`, `x` taken as 0 on entry (Karlsson 2014 Alg. 10,
/// Chentanez & Müller 2011 Alg. 4 on the correction equation): restrict the right-hand side to
/// every level, solve the coarsest, then for each finer level interpolate the coarse solution
/// as initial guess and run a V-cycle.
pub(crate) fn full_cycle<L: MultigridLevel>(h: &mut Hierarchy<L>) {
    let depth = h.depth();
    for l in 0..depth - 1 {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        let fine = &mut fine[l];
        fine.zero_x();
        fine.residual(false); // r = b (x = 0)
        h.transfer.restrict(fine, &mut coarse[0], false); // Alg. 4 lines 3-5
    }
    h.coarse.solve(&mut h.levels[depth - 1]); // line 7
    for l in (0..depth - 1).rev() {
        {
            let (fine, coarse) = h.levels.split_at_mut(l + 1);
            // Alg. 10 line 4: p^m = prolong(p^{m-1}), the part the V-cycle's first sweep reads.
            let only = h.smoother.reads_first(false);
            h.transfer
                .prolong(&mut coarse[0], &mut fine[l], false, only);
        }
        vcycle(h, l, false, false, None); // line 6
    }
}
