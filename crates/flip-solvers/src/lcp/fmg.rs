//! The baseline of Lai et al.: Chentanez & Müller's multigrid LCP solver [CM12], a standard
//! *linear* multigrid for the pressure correction with projected smoothing, iterated as full
//! cycles (Chentanez & Müller 2011, Alg. 3 V-cycle and Alg. 4 full cycle) with 4 pre- and
//! post-smoothing sweeps, trilinear transfers and directly discretised coarse matrices.
//!
//! The LCP changes to the linear solver (our reading; [CM12] itself is not among the sources we
//! had): the correction `e` of `p` obeys `e ≥ −p` on S; every smoothing sweep projects onto its
//! level's bound; a coarse bound is the most restrictive of its S children's remaining slack
//! (`max (lo − e)`, which keeps piecewise-constant corrections feasible); and the residual
//! handed to the coarser level is the LCP residual (zero where a cell is held at its bound), so
//! the linear coarse levels do not try to undo active constraints.

use super::cache::Cached;
use super::coarse::{Hierarchy, MgOptions};
use super::smooth::{residual, residual_norm, solve_coarsest, sweep};
use super::system::{Level, NONE};
use super::transfer::{Boundary, CoarseMatrix, Interpolation};
use super::vcycle::{COARSEST_REDUCTION, COARSEST_SWEEPS};
use super::{stats, DEFAULT_TOLERANCE};
use crate::tolerance::Tolerance;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Parameters of [`FmgSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FmgConfig {
    /// Stopping rule on the LCP residual.
    pub tolerance: Tolerance,
    /// Most full cycles.
    pub max_iterations: usize,
    /// Projected smoothing sweeps before and after each coarse correction (Chentanez &
    /// Müller: 4).
    pub n_sweep: usize,
}

impl Default for FmgConfig {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: 1000,
            n_sweep: 4,
        }
    }
}

/// Projected full multigrid; `iterations` counts full cycles.
pub struct FmgSolver {
    /// Parameters.
    pub config: FmgConfig,
    cache: Cached<Hierarchy>,
}

impl FmgSolver {
    /// A solver with `config`.
    pub fn new(config: FmgConfig) -> Self {
        Self {
            config,
            cache: Cached::new(Hierarchy::new(OPTIONS, false)),
        }
    }
}

/// Chentanez & Müller's hierarchy: trilinear transfers, no boundary treatment, coarse matrices
/// from averaged open-face fractions.
const OPTIONS: MgOptions = MgOptions {
    interpolation: Interpolation::Trilinear,
    boundary: Boundary::Simple,
    coarse: CoarseMatrix::DirectDiscretisation,
};

/// Coarse bounds: for each coarse unknown, `max (lo − e)` over its children in S (−∞ if none).
fn coarse_bounds(fine: &Level, coarse: &Level, lo: &[f64], e: &[f64]) -> Vec<f64> {
    let mut out = vec![f64::NEG_INFINITY; coarse.len()];

    for u in 0..fine.len() {
        if !fine.s[u] {
            continue;
        }
        let [i, j, k] = fine.ijk[u].map(|v| v as usize);
        let parent = coarse.index([(i / 2) as isize, (j / 2) as isize, (k / 2) as isize]);
        let c = parent.map_or(NONE, |p| coarse.unknown[p]);
        if c != NONE {
            out[c as usize] = out[c as usize].max(lo[u] - e[u]);
        }
    }
    out
}

/// Correction-scheme V-cycle on level `l` for `e ≥ lo ⊥ A e − t ≥ 0` ([CM11] Alg. 3, with
/// projected smoothing).
fn vcycle(h: &Hierarchy, l: usize, e: &mut [f64], t: &[f64], lo: &[f64], n_sweep: usize) {
    let level = &h.levels[l];
    if l + 1 == h.levels.len() {
        solve_coarsest(level, t, lo, e, COARSEST_REDUCTION, COARSEST_SWEEPS);
        return;
    }
    for _ in 0..n_sweep {
        sweep(level, t, lo, e);
    }
    // The residual restricted is that of the LCP (0 at cells held by their bound).
    let mut r = vec![0.0; e.len()];
    residual(level, t, lo, e, &mut r);
    let coarse = &h.levels[l + 1];
    let mut tc = vec![0.0; coarse.len()];
    h.restrict(l, &r, &mut tc);
    let loc = coarse_bounds(level, coarse, lo, e);
    let mut d = vec![0.0; coarse.len()]; // p^{l−1} = 0
    vcycle(h, l + 1, &mut d, &tc, &loc, n_sweep);
    h.p[l].mul_add(&d, e);
    for _ in 0..n_sweep {
        sweep(level, t, lo, e);
    }
}

/// One full cycle ([CM11] Alg. 4) on the correction `e` of `p` (`e ≥ −p` on S).
fn full_cycle(h: &Hierarchy, rhs: &[f64], p: &mut [f64], n_sweep: usize) {
    let fine = &h.levels[0];
    let n = p.len();
    // Fine correction problem: A e − (rhs − A p) ≥ 0 ⊥ e ≥ −p on S.
    let mut r = vec![0.0; n];
    residual(fine, rhs, &vec![f64::NEG_INFINITY; n], p, &mut r); // r^L = b − A p
    let lo0: Vec<f64> = (0..n)
        .map(|i| if fine.s[i] { -p[i] } else { f64::NEG_INFINITY })
        .collect();
    // r^l = Restrict(r^{l+1}), of the LCP residual (0 where p is held at 0).
    let mut lower = Vec::new();
    fine.lower_into(&mut lower);
    let mut t: Vec<Vec<f64>> = h.levels.iter().map(|l| vec![0.0; l.len()]).collect();
    residual(fine, rhs, &lower, p, &mut t[0]);
    h.restrict_all(&mut t);
    t[0] = r;
    let mut lo = vec![lo0];
    for l in 1..h.levels.len() {
        let zero = vec![0.0; h.levels[l - 1].len()];
        lo.push(coarse_bounds(
            &h.levels[l - 1],
            &h.levels[l],
            &lo[l - 1],
            &zero,
        ));
    }
    let last = h.levels.len() - 1;
    let mut e = vec![0.0; h.levels[last].len()];
    let coarsest = &h.levels[last];
    solve_coarsest(
        coarsest,
        &t[last],
        &lo[last],
        &mut e,
        COARSEST_REDUCTION,
        COARSEST_SWEEPS,
    );
    for l in (0..last).rev() {
        let mut finer = vec![0.0; h.levels[l].len()];
        h.p[l].mul(&e, &mut finer); // p^l = Prolong(p^{l−1})
        vcycle(h, l, &mut finer, &t[l], &lo[l], n_sweep);
        e = finer;
    }
    p.iter_mut().zip(&e).for_each(|(x, d)| *x += d); // p^L = p^tmp + p^L
}

impl PressureSolver for FmgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let config = self.config;
        let (sys, h) = self.cache.get(problem);
        let fine = &h.levels[0];
        let (mut rhs, mut lo, mut x0) = (Vec::new(), Vec::new(), Vec::new());
        sys.rhs_into(problem, &mut rhs);
        fine.lower_into(&mut lo);
        let bound = config
            .tolerance
            .bound(rhs.iter().fold(0.0, |m, v| m.max(v.abs())));
        sys.gather_into(problem.pressure, &mut x0);
        let mut x = x0.clone();
        let initial = residual_norm(fine, &rhs, &lo, &x);
        let mut res = initial;
        let mut cycles = 0;
        while res > bound && cycles < config.max_iterations && !flip_sdk::cancelled() {
            full_cycle(h, &rhs, &mut x, config.n_sweep.max(1));
            cycles += 1;
            res = residual_norm(fine, &rhs, &lo, &x);
            if !res.is_finite() {
                x.copy_from_slice(&x0); // diverged: hand back the initial guess
                res = initial;
                break;
            }
        }
        sys.remove_mean(&mut x);
        sys.scatter(&x, problem.pressure);
        Ok(stats(cycles, 0, initial, res, bound))
    }
    fn reset(&mut self) {
        *self = Self::new(self.config);
    }
}
