//! Multigrid as a stand-alone iterative solver (Karlsson Alg. 8).

use super::outer::{self, Vectors};
use super::projection::remove_mean;
use super::shared::SharedHierarchy;
use super::{Cycle, MultigridConfig};
use crate::hierarchy::cycle::{full_cycle, vcycle};
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Iterates multigrid cycles until the tolerance: each round runs `n_full_cycle` full cycles
/// (with [`Cycle::Full`]) then `n_vcycle` V-cycles (Karlsson Alg. 8), rounds repeat until
/// `‖b - A p‖∞ ≤ max(abs, rel ‖b‖∞)` or `max_iterations` cycles. Every cycle solves the
/// correction equation of the current f64 residual in f32 and adds its result, so accuracy is
/// not limited by f32. `iterations` counts cycles.
pub struct MultigridSolver {
    config: MultigridConfig,
    hierarchy: SharedHierarchy,
    v: Vectors,
}

impl MultigridSolver {
    /// A solver with `config`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when [`MultigridConfig::validate`] refuses the configuration.
    pub fn new(config: MultigridConfig) -> Result<Self, SolveError> {
        config
            .validate()
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        Ok(Self {
            hierarchy: SharedHierarchy::new(&config, false),
            config,
            v: Vectors::default(),
        })
    }

    /// The same solver, solving on another sharing instance's hierarchy of this process when
    /// their matrices agree, and lending its own (see [`super::shared`]).
    pub fn sharing(mut self) -> Self {
        self.hierarchy = SharedHierarchy::new(&self.config, true);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &MultigridConfig {
        &self.config
    }

    /// How many times a hierarchy was built for this solver's matrix (only when it changes; by
    /// this solver or by another it shares with).
    pub fn rebuilds(&self) -> usize {
        self.hierarchy.builds()
    }

    /// Number of grid levels of the current hierarchy (0 before the first solve).
    pub fn levels(&self) -> usize {
        self.hierarchy.depth()
    }
}

/// Cycle kind of cycle number `n` (Alg. 8: `n_full_cycle` full cycles, then `n_vcycle`
/// V-cycles, repeated).
fn cycle_of(c: &MultigridConfig, n: usize) -> Cycle {
    let full = if c.cycle == Cycle::Full {
        c.n_full_cycle
    } else {
        0
    };
    if n % (full + c.n_vcycle) < full {
        Cycle::Full
    } else {
        Cycle::V
    }
}

impl PressureSolver for MultigridSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        outer::check(problem)?;
        let (config, v) = (&self.config, &mut self.v);
        let stats = self.hierarchy.solve_with(problem, |h, problem| {
            v.fit(&h.levels[0], false);
            let bnorm = outer::load_whole(problem, &h.levels[0], &h.build.regions, v);
            let bound = config.tolerance.bound(bnorm);
            let mut res = outer::residual(&mut h.levels[0], v);
            let initial = res;
            let mut iterations = 0;
            while res > bound && res.is_finite() && iterations < config.max_iterations {
                if flip_sdk::cancelled() {
                    break;
                }
                match cycle_of(config, iterations) {
                    Cycle::Full => full_cycle(h),
                    Cycle::V => vcycle(h, 0, true, false, None),
                }
                outer::add_correction(&h.levels[0], v);
                iterations += 1;
                res = outer::residual(&mut h.levels[0], v);
            }
            if h.build.regions.any_singular() {
                remove_mean(&h.build.regions, &h.levels[0], &mut v.p);
                res = outer::residual(&mut h.levels[0], v);
            }
            outer::store(problem, &h.levels[0], v, 0);
            super::stats(iterations, res, initial, bound)
        });
        Ok(stats)
    }

    fn prepare(&mut self, problem: &Problem<'_>) {
        self.hierarchy.prepare(problem);
    }

    fn reset(&mut self) {
        self.hierarchy.reset();
        self.v = Vectors::default();
    }
}
