//! MGPCG (McAdams, Sifakis & Teran 2010): conjugate gradient in f64 preconditioned by one
//! symmetric V-cycle in f32 (zero initial guess, forward red-black pre-smoothing, backward
//! post-smoothing, exact coarsest solve), so the preconditioner is a fixed SPD operator.

use super::cycle::vcycle;
use super::distributed::DistributedMgpcg;
use super::hierarchy::Hierarchy;
use super::outer::{self, Vectors};
use super::MultigridConfig;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// CG preconditioned by a symmetric multigrid V-cycle. `iterations` counts CG iterations.
/// `config.cycle`, `n_vcycle` and `n_full_cycle` are not used (one V-cycle per application).
pub struct MgPcgSolver {
    config: MultigridConfig,
    hierarchy: Hierarchy,
    v: Vectors,
    /// The distributed solver, made on the first solve of a rank's slab.
    distributed: Option<DistributedMgpcg>,
}

impl MgPcgSolver {
    /// A solver with `config`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when [`MultigridConfig::validate`] refuses the configuration.
    pub fn new(config: MultigridConfig) -> Result<Self, SolveError> {
        config
            .validate()
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        Ok(Self {
            hierarchy: Hierarchy::new(&config),
            config,
            v: Vectors::default(),
            distributed: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MultigridConfig {
        &self.config
    }

    /// Number of grid levels of the current hierarchy (0 before the first solve).
    pub fn levels(&self) -> usize {
        self.hierarchy.depth()
    }

    /// How many times the hierarchy was built (it is rebuilt only when the matrix changes).
    pub fn rebuilds(&self) -> usize {
        self.hierarchy.rebuilds
    }

    /// `z = M⁻¹ r` into level 0's `x` (one symmetric V-cycle; level 0's `b` already holds
    /// `r`); returns `r · z`.
    fn precondition(&mut self) -> f64 {
        let h = &mut self.hierarchy;
        vcycle(h, 0, true, true);
        if h.regions.any_singular() {
            let level = &mut h.levels[0];
            let mut x = [
                std::mem::take(&mut level.cs[0].x),
                std::mem::take(&mut level.cs[1].x),
            ];
            h.regions.remove_mean(level, &mut x);
            let [x0, x1] = x;
            level.cs[0].x = x0;
            level.cs[1].x = x1;
        }
        outer::dot_rz(&h.levels[0], &mut self.v)
    }

    /// CG from the current iterate (level 0's `b` holds its true residual, of max-norm
    /// `res`) until the recurrence residual meets `bound` or `budget` runs out; returns the
    /// iterations used. The f32 recurrence residual is replaced by the f64 true residual
    /// whenever it has fallen by [`REPLACE`] since the last replacement (residual replacement,
    /// van der Vorst & Ye 2000), which keeps it accurate to f32 round-off of the current
    /// residual while the search direction carries on.
    fn cg(&mut self, mut res: f64, bound: f64, budget: usize) -> usize {
        let mut reference = res;
        let mut rz = self.precondition();
        let mut dq = outer::direction(&self.hierarchy.levels[0], &mut self.v, 0.0);
        for it in 1..=budget {
            if !(dq > 0.0 && rz.is_finite()) || flip_sdk::cancelled() {
                return it - 1;
            }
            let alpha = rz / dq;
            res = outer::step(&mut self.hierarchy.levels[0], &mut self.v, alpha);
            if res <= bound || it == budget {
                return it;
            }
            if res < REPLACE * reference {
                res = outer::residual(&mut self.hierarchy.levels[0], &mut self.v);
                reference = res;
                if res <= bound {
                    return it;
                }
            }
            let rz_new = self.precondition();
            let beta = rz_new / rz;
            rz = rz_new;
            dq = outer::direction(&self.hierarchy.levels[0], &mut self.v, beta);
        }
        budget
    }
}

/// Factor by which the recurrence residual may fall before it is replaced by the true one.
pub(super) const REPLACE: f64 = 1e-3;

impl PressureSolver for MgPcgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        outer::check(problem)?;
        if let Some(d) = flip_sdk::distributed() {
            let config = &self.config;
            let solver = self
                .distributed
                .get_or_insert_with(|| DistributedMgpcg::new(config));
            return solver.solve(&d, problem);
        }
        let h = &mut self.hierarchy;
        h.update(problem);
        self.v.fit(&h.levels[0], true);
        let bnorm = outer::load_whole(problem, &h.levels[0], &h.regions, &mut self.v);
        let bound = self.config.tolerance.bound(bnorm);
        let mut res = outer::residual(&mut h.levels[0], &mut self.v);
        let initial = res;
        let mut iterations = 0;
        // CG runs on the recurrence residual; restart from the true one if they drifted apart.
        while res > bound && res.is_finite() && iterations < self.config.max_iterations {
            if flip_sdk::cancelled() {
                break;
            }
            let used = self.cg(res, bound, self.config.max_iterations - iterations);
            iterations += used.max(1);
            let h = &mut self.hierarchy;
            if h.regions.any_singular() {
                h.regions.remove_mean(&h.levels[0], &mut self.v.p);
            }
            res = outer::residual(&mut h.levels[0], &mut self.v);
        }
        outer::store(problem, &self.hierarchy.levels[0], &self.v, 0);
        Ok(super::stats(iterations, res, initial, bound))
    }

    fn reset(&mut self) {
        self.hierarchy = Hierarchy::new(&self.config);
        self.v = Vectors::default();
        self.distributed = None;
    }
}
