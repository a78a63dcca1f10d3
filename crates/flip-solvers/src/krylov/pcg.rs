//! The preconditioned conjugate gradient iteration (Bridson 2nd ed. Fig. 5.5; Saad Alg. 9.1).

use super::kernels::{
    apply_dot, block_len, check_rhs, matrix_hash, restrict_to_fluid, stencil_of, update, xpby,
    zero_off_fluid,
};
use super::precond::Preconditioner;
use super::PcgConfig;
use crate::stencil::{dot, norm_inf, Stencil};
use flip_sdk::regions::Regions;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};
use rayon::prelude::*;

/// Conjugate gradient preconditioned by `P`. Keeps its vectors, the fluid regions and the
/// preconditioner between solves; the latter two are rebuilt only when the matrix changes.
pub struct Pcg<P> {
    pub(super) config: PcgConfig,
    pub(super) precond: P,
    /// Hash of the matrix the regions and the preconditioner were built for.
    pub(super) matrix_hash: Option<u64>,
    pub(super) regions: Regions,
    /// Projected right-hand side.
    pub(super) b: Vec<f64>,
    /// Residual, preconditioned residual, search direction, `A p`.
    pub(super) r: Vec<f64>,
    pub(super) z: Vec<f64>,
    pub(super) p: Vec<f64>,
    pub(super) q: Vec<f64>,
    partials: Vec<f64>,
    pub(super) hash_partials: Vec<u64>,
}

/// Outcome of the iteration.
struct Outcome {
    iterations: u32,
    residual: f64,
    initial_residual: f64,
}

impl<P: Preconditioner> Pcg<P> {
    /// A solver with `config` and the preconditioner `precond`.
    pub fn new(config: PcgConfig, precond: P) -> Self {
        Self {
            config,
            precond,
            matrix_hash: None,
            regions: Regions::default(),
            b: Vec::new(),
            r: Vec::new(),
            z: Vec::new(),
            p: Vec::new(),
            q: Vec::new(),
            partials: Vec::new(),
            hash_partials: Vec::new(),
        }
    }

    /// The settings in use.
    pub fn config(&self) -> &PcgConfig {
        &self.config
    }

    /// The settings, for changes between solves (e.g. an outer solver tightening the
    /// tolerance of its inner solves).
    pub fn config_mut(&mut self) -> &mut PcgConfig {
        &mut self.config
    }

    /// The preconditioner.
    pub fn preconditioner(&self) -> &P {
        &self.precond
    }

    /// The preconditioner, for changes between solves.
    pub fn preconditioner_mut(&mut self) -> &mut P {
        &mut self.precond
    }

    /// Rebuilds the regions and the preconditioner when `a` is not the matrix they were
    /// built for (only for a new matrix).
    pub(crate) fn prepare_for(&mut self, a: &Stencil<'_>) {
        let hash = matrix_hash(a, &mut self.hash_partials);
        if self.matrix_hash != Some(hash) {
            self.regions.find(&a.couplings());
            self.precond.setup(a);
            self.matrix_hash = Some(hash);
        }
    }

    /// Solves `A x = rhs` on the fluid cells of `a`, `x` holding the initial guess (grid
    /// vectors). On return `x` is 0 off the fluid and mean-free on pure-Neumann regions; the
    /// stats' residuals are those of the projected system.
    pub fn solve_system(&mut self, a: &Stencil<'_>, rhs: &[f64], x: &mut [f64]) -> SolveStats {
        assert_eq!(rhs.len(), a.len(), "rhs must have one entry per cell");
        assert_eq!(x.len(), a.len(), "x must have one entry per cell");
        self.prepare_for(a);
        let n = a.len();
        for v in [
            &mut self.b,
            &mut self.r,
            &mut self.z,
            &mut self.p,
            &mut self.q,
        ] {
            v.resize(n, 0.0);
        }
        // Project the right-hand side onto the range; make the initial guess admissible.
        restrict_to_fluid(a, rhs, &mut self.b);
        self.regions.remove_mean(&mut self.b);
        if x.par_iter().any(|v| !v.is_finite()) {
            // A non-finite initial guess (a diverged previous step) is replaced by 0.
            x.par_iter_mut().for_each(|v| *v = 0.0);
        }
        zero_off_fluid(a, x);
        self.regions.remove_mean(x);
        let bound = self.config.tolerance.bound(norm_inf(&self.b));
        let out = self.iterate(a, x, bound);
        SolveStats {
            iterations: out.iterations,
            outer_iterations: 0,
            residual: out.residual,
            initial_residual: out.initial_residual,
            converged: u32::from(out.residual <= bound),
        }
    }

    /// CG iterations until the true residual meets `bound` or the budget is spent. Restarts
    /// from the recomputed residual when the recursive one has drifted below the bound.
    fn iterate(&mut self, a: &Stencil<'_>, x: &mut [f64], bound: f64) -> Outcome {
        let max = self.config.max_iterations;
        let bs = block_len(a);
        let initial_residual = a.residual(&self.b, x, &mut self.r);
        let (mut residual, mut iterations) = (initial_residual, 0u32);
        while residual > bound && iterations < max {
            // (Re)start: z = M⁻¹ r, p = z, ρ = rᵀ z.
            self.precond.apply(a, &self.r, &mut self.z);
            let mut rho = dot(&self.r, &self.z, bs);
            self.p.copy_from_slice(&self.z);
            let mut breakdown = false;
            while iterations < max {
                if flip_sdk::cancelled() {
                    breakdown = true; // stop: the host asked (the SDK reports the cancel)
                    break;
                }
                // q = A p, α = ρ / pᵀ q.
                let pq = apply_dot(a, &self.p, &mut self.q, &mut self.partials);
                if !(pq > 0.0 && rho.is_finite()) {
                    breakdown = true;
                    break;
                }
                let alpha = rho / pq;
                // x += α p, r −= α q.
                let r_max = update(alpha, &self.p, &self.q, x, &mut self.r);
                iterations += 1;
                if r_max <= bound {
                    break;
                }
                // z = M⁻¹ r, β = ρ_new / ρ, p = z + β p.
                self.precond.apply(a, &self.r, &mut self.z);
                let rho_new = dot(&self.r, &self.z, bs);
                xpby(&self.z, rho_new / rho, &mut self.p);
                rho = rho_new;
            }
            // True residual of the mean-free iterate.
            self.regions.remove_mean(x);
            residual = a.residual(&self.b, x, &mut self.r);
            if breakdown {
                break;
            }
        }
        Outcome {
            iterations,
            residual,
            initial_residual,
        }
    }
}

impl<P: Preconditioner> PressureSolver for Pcg<P> {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        if problem.lcp {
            return Err(SolveError::Unsupported(
                "conjugate gradient solves linear systems only".into(),
            ));
        }
        problem
            .validate()
            .map_err(|e| SolveError::BadValue(e.to_string()))?;
        let a = stencil_of(problem);
        check_rhs(&a, problem.rhs)?;
        if let Some(d) = flip_sdk::distributed() {
            return self.solve_slab(&d, &a, problem.rhs, problem.pressure);
        }
        Ok(self.solve_system(&a, problem.rhs, problem.pressure))
    }

    fn solve_coupled(
        &mut self,
        problem: &mut flip_sdk::CoupledProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        if flip_sdk::distributed().is_some() {
            return Err(SolveError::Unsupported(
                "coupled (rigid-body) problems are not solved distributed".into(),
            ));
        }
        Ok(self.solve_coupled_system(problem))
    }

    fn reset(&mut self) {
        self.matrix_hash = None; // regions and preconditioner are rebuilt on the next solve
    }
}
