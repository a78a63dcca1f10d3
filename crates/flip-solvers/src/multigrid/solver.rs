//! Multigrid as a stand-alone iterative solver (Karlsson Alg. 8).

use super::cycle::{full_cycle, vcycle};
use super::hierarchy::Hierarchy;
use super::outer;
use super::{Cycle, MultigridConfig};
use crate::stencil::norm_inf;
use flip_plugin::sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Iterates multigrid cycles until the tolerance: each round runs `n_full_cycle` full cycles
/// (with [`Cycle::Full`]) then `n_vcycle` V-cycles (Karlsson Alg. 8), rounds repeat until
/// `‖b - A p‖∞ ≤ max(abs, rel ‖b‖∞)` or `max_iterations` cycles. Every cycle solves the
/// correction equation of the current f64 residual in f32 and adds its result, so accuracy is
/// not limited by f32. `iterations` counts cycles.
pub struct MultigridSolver {
    config: MultigridConfig,
    hierarchy: Hierarchy,
    b: Vec<f64>,
}

impl MultigridSolver {
    /// A solver with `config`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when [`MultigridConfig::validate`] refuses the configuration.
    pub fn new(config: MultigridConfig) -> Result<Self, SolveError> {
        config.validate().map_err(SolveError::BadValue)?;
        Ok(Self {
            hierarchy: Hierarchy::new(&config),
            config,
            b: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MultigridConfig {
        &self.config
    }

    /// How many times the hierarchy was built (it is rebuilt only when the matrix changes).
    pub fn rebuilds(&self) -> usize {
        self.hierarchy.rebuilds
    }

    /// Number of grid levels of the current hierarchy (0 before the first solve).
    pub fn levels(&self) -> usize {
        self.hierarchy.depth()
    }

    /// Cycle kinds of one round of Alg. 8.
    fn round(&self) -> Vec<Cycle> {
        let c = &self.config;
        let full = if c.cycle == Cycle::Full {
            c.n_full_cycle
        } else {
            0
        };
        let mut r = vec![Cycle::Full; full];
        r.resize(full + c.n_vcycle, Cycle::V);
        r
    }
}

impl PressureSolver for MultigridSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        outer::check(problem)?;
        let h = &mut self.hierarchy;
        h.update(problem);
        outer::projected_rhs(problem, &h.regions, &mut self.b);
        outer::clean_guess(problem);
        let a = outer::stencil(problem);
        let bound = self.config.tolerance.bound(norm_inf(&self.b));
        let round = self.round();
        let n_sweep = self.config.n_sweep;
        let h = &mut self.hierarchy;
        let mut res = outer::residual_to_level(&a, &self.b, problem.pressure, &mut h.levels[0]);
        let initial = res;
        let mut iterations = 0;
        while res > bound && res.is_finite() && iterations < self.config.max_iterations {
            match round[iterations % round.len()] {
                Cycle::Full => full_cycle(h, n_sweep),
                Cycle::V => vcycle(h, 0, n_sweep, true, false),
            }
            outer::add_correction(&h.levels[0], problem.pressure);
            iterations += 1;
            res = outer::residual_to_level(&a, &self.b, problem.pressure, &mut h.levels[0]);
        }
        if h.regions.any_singular() {
            h.regions.remove_mean(problem.pressure);
            res = outer::residual_to_level(&a, &self.b, problem.pressure, &mut h.levels[0]);
        }
        Ok(SolveStats {
            iterations: iterations as u32,
            outer_iterations: 0,
            residual: res,
            initial_residual: initial,
            converged: u32::from(res <= bound),
        })
    }
}
