//! FAS multigrid for the LCP (Lai et al. Alg. 3, after Brandt's full approximation scheme):
//! V-cycles with projected Gauss-Seidel smoothing and the three modifications of §4.3
//! (compact barycentric transfers, one-sided interpolation at solids, Galerkin coarse
//! matrices), each switchable to reproduce Table 12.
//!
//! Choices the paper leaves open, and deviations:
//! - S rows are written `min(a_ii p_i, (A p − rhs)_i)` (the same complementarity as eq. 3.9)
//!   so that both branches of the min carry the units of `A p` on every level; with the
//!   unscaled `min(p, ·)` the Galerkin coarse rows (¼ of the fine scale per level in 2D) make
//!   the coarse problems a poor model and the cycles stall.
//! - `S^H` = coarse cells with a child in `S^h`; `b^H = R b^h`; the coarsest level is relaxed
//!   by PGS until its residual drops 10³-fold (at most 400 sweeps).
//! - Near the free boundary (where S switches from `p = 0` to `A p = rhs`) the non-smooth
//!   coarse operator can flip branches from one cycle to the next and plain corrections then
//!   alternate (a 2-cycle in the residual). A safeguard damps the coarse correction when a
//!   cycle fails to halve the residual ([`FasConfig::min_damping`]; 1 turns it off).

use super::coarse::{Hierarchy, MgOptions};
use super::smooth::{operator, residual_norm, residual_scaled, solve_coarsest, sweep};
use super::system::Cached;
use super::transfer::{Boundary, CoarseMatrix, Interpolation};
use super::{stats, DEFAULT_TOLERANCE};
use crate::tolerance::Tolerance;
use flip_plugin::sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// The coarsest level is relaxed until its residual drops by this factor.
pub(crate) const COARSEST_REDUCTION: f64 = 1e-3;
/// … or for at most this many sweeps.
pub(crate) const COARSEST_SWEEPS: usize = 400;

/// Parameters of [`FasMgSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FasConfig {
    /// Stopping rule on the LCP residual.
    pub tolerance: Tolerance,
    /// Most V-cycles.
    pub max_iterations: usize,
    /// PGS sweeps before and after the coarse correction (Lai: 2).
    pub n_sweep: usize,
    /// Interpolation (Lai: barycentric).
    pub interpolation: Interpolation,
    /// Boundary handling (Lai: one-sided).
    pub boundary: Boundary,
    /// Coarse matrices (Lai: Galerkin).
    pub coarse: CoarseMatrix,
    /// Smallest weight of the coarse-grid correction: starting at 1, the weight is multiplied
    /// by 0.8 after every cycle that reduces the residual by less than half, down to this
    /// value. 1 disables the safeguard (Alg. 3 exactly as published).
    pub min_damping: f64,
}

impl Default for FasConfig {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: 100,
            n_sweep: 2,
            interpolation: Interpolation::Barycentric,
            boundary: Boundary::OneSided,
            coarse: CoarseMatrix::Galerkin,
            min_damping: 0.6,
        }
    }
}

/// FAS multigrid; `iterations` counts V-cycles. Keeps its hierarchy while the matrix and S are
/// unchanged.
pub struct FasMgSolver {
    /// Parameters.
    pub config: FasConfig,
    cache: Cached<Hierarchy>,
}

impl FasMgSolver {
    /// A solver with `config`.
    pub fn new(config: FasConfig) -> Self {
        Self {
            config,
            cache: Cached::default(),
        }
    }
}

/// The FAS hierarchy with the restricted right-hand sides and the coarse-correction weight.
struct Cycle<'a> {
    h: &'a Hierarchy,
    /// `g[l]`: `rhs` restricted to level `l` (Lai's `−b^l`).
    g: Vec<Vec<f64>>,
    /// PGS sweeps before and after the coarse correction.
    n_sweep: usize,
    /// Weight of the coarse-grid correction (1 = Alg. 3 as published).
    omega: f64,
}

impl Cycle<'_> {
    /// One FAS V-cycle on level `l` for `N^l(x) = f` (Alg. 3).
    fn vcycle(&self, l: usize, x: &mut [f64], f: &[f64]) {
        let (h, level) = (self.h, &self.h.levels[l]);
        // N^l(x) = f with the S rows `min(a_ii x, A x − g) = f` as a bound-constrained problem:
        // x ≥ f / a_ii ⊥ A x − (g + f) ≥ 0 on S, A x = g + f elsewhere.
        let t: Vec<f64> = self.g[l].iter().zip(f).map(|(g, f)| g + f).collect();
        let lo: Vec<f64> = (0..x.len())
            .map(|i| {
                if level.s[i] {
                    f[i] / level.diag[i]
                } else {
                    f64::NEG_INFINITY
                }
            })
            .collect();
        if l + 1 == h.levels.len() {
            // Line 4: solve on the coarsest level with PGS.
            solve_coarsest(level, &t, &lo, x, COARSEST_REDUCTION, COARSEST_SWEEPS);
            return;
        }
        for _ in 0..self.n_sweep {
            sweep(level, &t, &lo, x); // line 6: pre-smooth
        }
        let mut r = vec![0.0; x.len()];
        residual_scaled(level, &t, &lo, x, &mut r); // line 7: r = f − N(x)
        let coarse = &h.levels[l + 1];
        let mut xc = vec![0.0; coarse.len()];
        h.r[l].mul(x, &mut xc); // line 8: x^H = R x
        let mut fc = vec![0.0; coarse.len()];
        operator(coarse, &self.g[l + 1], &xc, &mut fc); // line 9: f^H = N^H(R x) + R r
        h.r[l].mul_add(&r, &mut fc);
        let xc0 = xc.clone();
        self.vcycle(l + 1, &mut xc, &fc); // line 10
        let omega = self.omega;
        xc.iter_mut()
            .zip(&xc0)
            .for_each(|(a, b)| *a = omega * (*a - b));
        h.p[l].mul_add(&xc, x); // line 11: x += P (x^H − R x)
        for _ in 0..self.n_sweep {
            sweep(level, &t, &lo, x); // line 12: post-smooth
        }
    }
}

/// A cycle reducing the residual by less than this factor counts as stalling.
const STALL: f64 = 0.5;
/// On a stall the coarse-correction weight is multiplied by this (down to `min_damping`).
const DAMP: f64 = 0.8;

impl PressureSolver for FasMgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let config = self.config;
        let opts = MgOptions {
            interpolation: config.interpolation,
            boundary: config.boundary,
            coarse: config.coarse,
        };
        let (sys, h) = self
            .cache
            .get(problem, |level| Hierarchy::build(level, opts));
        let fine = &h.levels[0];
        let mut cycle = Cycle {
            h,
            g: h.restrict_all(sys.rhs(problem)),
            n_sweep: config.n_sweep.max(1),
            omega: 1.0,
        };
        let lo = fine.lower();
        let zero = vec![0.0; fine.len()];
        let g0 = &cycle.g[0];
        let bound = config
            .tolerance
            .bound(g0.iter().fold(0.0, |m, v| m.max(v.abs())));
        let x0 = sys.gather(problem.pressure);
        let mut x = x0.clone();
        let initial = residual_norm(fine, g0, &lo, &x);
        let mut res = initial;
        let mut cycles = 0;
        // Line 14: iterate V-cycle(p, 0) until the residual meets the tolerance.
        while res > bound && cycles < config.max_iterations {
            cycle.vcycle(0, &mut x, &zero);
            cycles += 1;
            let next = residual_norm(fine, &cycle.g[0], &lo, &x);
            if !next.is_finite() {
                x.copy_from_slice(&x0); // diverged (possible for the Table 12 variants)
                res = initial;
                break;
            }
            // Safeguard: the non-smooth coarse operator can flip branches near the free
            // boundary and make plain FAS corrections alternate; damp them when a cycle stalls.
            if next > STALL * res {
                cycle.omega = (cycle.omega * DAMP).max(config.min_damping);
            }
            res = next;
        }
        sys.remove_mean(&mut x);
        sys.scatter(&x, problem.pressure);
        Ok(stats(cycles, 0, initial, res, bound))
    }
}
