//! Penalty method for the LCP (Lai et al. Alg. 2, after Forsyth & Vetzal 2002 and d'Halluin,
//! Forsyth & Labahn 2004): solve `(A + ρ Π(p^k)) p^{k+1} = rhs` (eq. 4.5) where `Π` marks the
//! cells of S with `p < 0` (eq. 4.4), until the LCP residual meets the tolerance. `ρ =
//! penalty_factor / tolerance` (Lai: 10³/10⁻⁶ = 10⁹). The outer loop is sequential; inner
//! solves and residuals are parallel.

use super::check::lcp_residual;
use super::inner::{has_lcp_rows, linear_copy, setup, solve_linear, StepMemory};
use super::span::Span;
use super::stats;
use super::PolicyConfig;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats, StateReader, StateWriter};

/// Parameters of [`PenaltyMethod`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PenaltyConfig {
    /// The outer loop and its inner linear solves, as for policy iteration (the linear
    /// solver is the one of eq. 4.5; `max_outer_iterations` counts penalty updates).
    pub outer: PolicyConfig,
    /// `ρ = penalty_factor / bound` with `bound` the outer residual bound (Lai: 10³).
    pub penalty_factor: f64,
}

impl Default for PenaltyConfig {
    fn default() -> Self {
        Self {
            outer: PolicyConfig::default(),
            penalty_factor: 1e3,
        }
    }
}

/// The penalty method (`pe-pcg`, `pe-mg`). Iterations are counted as for policy iteration;
/// the penalised set of the last solve is the initial set of the next.
pub struct PenaltyMethod {
    /// Parameters.
    pub config: PenaltyConfig,
    memory: StepMemory,
}

impl PenaltyMethod {
    /// A solver with `config`.
    pub fn new(config: PenaltyConfig) -> Self {
        Self {
            config,
            memory: StepMemory::default(),
        }
    }
}

impl PressureSolver for PenaltyMethod {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let c = self.config;
        let whole = Span::Whole(problem.cell_count());
        let (bound, mut inner) = setup(&c.outer, problem, &whole)?;
        if !has_lcp_rows(problem) {
            return solve_linear(inner.as_mut(), problem, bound, &whole);
        }
        let rho = (c.penalty_factor / bound) as f32;
        if !rho.is_finite() {
            return Err(SolveError::BadValue(format!(
                "penalty ρ = {} / {bound} overflows",
                c.penalty_factor
            )));
        }
        let dims = problem.dims;
        let s_cells: Vec<usize> = (0..problem.cell_count())
            .filter(|&c| problem.is_fluid(c) && problem.complementarity[c] != 0)
            .collect();
        let mut x = problem.pressure.to_vec();
        let initial = lcp_residual(problem, &x);
        let mut res = initial;
        // Initial penalty set: the previous step's (Lai §4.2), else eq. 4.4 on the initial guess.
        let mut penalised: Vec<bool> = s_cells
            .iter()
            .map(|&cell| self.memory.get(dims, cell).unwrap_or(x[cell] < 0.0))
            .collect();
        let base = linear_copy(problem);
        let (mut iterations, mut outer) = (0usize, 0usize);
        while res > bound && outer < c.outer.max_outer_iterations && !flip_sdk::cancelled() {
            // Line 3: solve (A + ρ Π(p^k)) p^{k+1} = rhs (eq. 4.5).
            let mut sys = base.clone();
            sys.pressure.copy_from_slice(&x);
            for (&cell, &pen) in s_cells.iter().zip(&penalised) {
                if pen {
                    sys.diag[cell] += rho;
                }
            }
            let st = inner.solve(&mut sys.view())?;
            iterations += st.iterations as usize;
            outer += 1;
            x.copy_from_slice(&sys.pressure);
            res = lcp_residual(problem, &x);
            if res <= bound || !res.is_finite() {
                break;
            }
            let next: Vec<bool> = s_cells.iter().map(|&cell| x[cell] < 0.0).collect(); // eq. 4.4
            if next == penalised && st.converged != 0 {
                break; // the penalised solution itself misses the tolerance (ρ too small)
            }
            penalised = next;
        }
        let mut flags = vec![None; problem.cell_count()];
        for &cell in &s_cells {
            flags[cell] = Some(x[cell] < 0.0); // Π(p) of the result, for the next step
        }
        self.memory.set(dims, flags);
        problem.pressure.copy_from_slice(&x);
        Ok(stats(iterations, outer, initial, res, bound))
    }

    fn reset(&mut self) {
        self.memory = StepMemory::default();
    }

    fn save_state(&self, out: &mut StateWriter) {
        self.memory.save(out);
    }

    fn load_state(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        self.memory = StepMemory::load(state)?;
        Ok(())
    }
}
