//! Projected Gauss-Seidel [CPS92] on the fine grid: `p_i ← max(0, GS update)` on S, plain
//! Gauss-Seidel elsewhere (red-black ordering, each colour in parallel).

use super::cache::Cached;
use super::smooth::{residual_norm, sweep};
use super::system::Level;
use super::{stats, DEFAULT_TOLERANCE};
use crate::tolerance::Tolerance;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Parameters of [`PgsSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PgsConfig {
    /// Stopping rule on the LCP residual.
    pub tolerance: Tolerance,
    /// Most sweeps.
    pub max_iterations: usize,
}

impl Default for PgsConfig {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: 10_000,
        }
    }
}

/// Projected Gauss-Seidel; `iterations` counts sweeps. Keeps the fine system between solves
/// while the matrix is unchanged.
pub struct PgsSolver {
    /// Parameters.
    pub config: PgsConfig,
    cache: Cached<Level>,
    /// Right-hand side, bounds and iterate, kept between solves.
    rhs: Vec<f64>,
    lo: Vec<f64>,
    x: Vec<f64>,
}

impl PgsSolver {
    /// A solver with `config`.
    pub fn new(config: PgsConfig) -> Self {
        Self {
            config,
            cache: Cached::default(),
            rhs: Vec::new(),
            lo: Vec::new(),
            x: Vec::new(),
        }
    }
}

impl PressureSolver for PgsSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let config = self.config;
        let (sys, level) = self.cache.get(problem);
        let (rhs, lo, x) = (&mut self.rhs, &mut self.lo, &mut self.x);
        sys.rhs_into(problem, rhs);
        level.lower_into(lo);
        let bound = config
            .tolerance
            .bound(rhs.iter().fold(0.0, |m, v| m.max(v.abs())));
        sys.gather_into(problem.pressure, x);
        let initial = residual_norm(level, rhs, lo, x);
        let mut res = initial;
        let mut it = 0;
        while res > bound && it < config.max_iterations && !flip_sdk::cancelled() {
            sweep(level, rhs, lo, x);
            it += 1;
            res = residual_norm(level, rhs, lo, x);
        }
        sys.remove_mean(x);
        sys.scatter(x, problem.pressure);
        Ok(stats(it, 0, initial, res, bound))
    }
    fn reset(&mut self) {
        *self = Self::new(self.config);
    }
}
