//! Policy iteration for the LCP (Lai et al. Alg. 1, after Forsyth & Labahn 2007).
//!
//! Each outer iteration fixes the control `Λ` (eq. 4.1: `λ_i = 1` where `(A p − rhs)_i ≤ p_i`)
//! and solves the linear system (4.2). Rows with `λ_i = 0` read `p_i = 0`, so (4.2) is the
//! original problem with those cells switched to air (Dirichlet): their couplings are removed
//! and the neighbours' diagonals kept. Any linear solver then applies. The outer loop is
//! inherently sequential; the inner solvers and residuals are parallel. On one rank's slab of
//! a distributed problem (`pi-mg` under `run --mpi`) each rank decides the policy of its owned
//! cells, takes its ghost cells' from the neighbours, and the inner solve is distributed MGPCG;
//! the residual and the count of changed cells are global, so every rank iterates alike.

use super::check::lcp_residual_rows;
use super::inner::{
    has_lcp_rows_in, linear_copy, setup, slack, solve_linear, InnerSolver, StepMemory,
};
use super::span::Span;
use super::{stats, DEFAULT_TOLERANCE};
use crate::owned::OwnedProblem;
use crate::tolerance::Tolerance;
use flip_abi::CELL_AIR;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats, StateReader, StateWriter};

/// Parameters of [`PolicyIteration`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyConfig {
    /// Stopping rule on the LCP residual.
    pub tolerance: Tolerance,
    /// Most inner iterations per linear solve.
    pub max_iterations: usize,
    /// Most outer iterations (policy updates).
    pub max_outer_iterations: usize,
    /// Inner solves stop at this fraction of the outer residual bound.
    pub inner_tolerance: f64,
    /// The linear solver for (4.2).
    pub inner: InnerSolver,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: 10_000,
            max_outer_iterations: 50,
            inner_tolerance: 0.1,
            inner: InnerSolver::Ic0Pcg,
        }
    }
}

/// Policy iteration (`pi-pcg`, `pi-mg`). `iterations` sums the inner iterations over the outer
/// ones, as Lai et al. count them; `outer_iterations` counts linear solves. The policy of the
/// last solve is the initial policy of the next (per cell, while the grid size is unchanged).
pub struct PolicyIteration {
    /// Parameters.
    pub config: PolicyConfig,
    memory: StepMemory,
}

impl PolicyIteration {
    /// A solver with `config`.
    pub fn new(config: PolicyConfig) -> Self {
        Self {
            config,
            memory: StepMemory::default(),
        }
    }
}

/// Turns fluid cell `c` into air (Dirichlet `p = 0`): row (4.2) with `λ_c = 0`.
pub(crate) fn make_dirichlet(p: &mut OwnedProblem, c: usize) {
    let strides = [1, p.dims[0], p.dims[0] * p.dims[1]];
    p.cell_kind[c] = CELL_AIR;
    p.diag[c] = 0.0;
    p.rhs[c] = 0.0;
    p.pressure[c] = 0.0;
    for (a, &s) in strides.iter().enumerate() {
        p.off[a][c] = 0.0;
        if c >= s {
            p.off[a][c - s] = 0.0;
        }
    }
}

/// Eq. 4.1: the control minimising `λ (A p − rhs)_c + (1 − λ) p_c` (ties take the equation).
fn policy(p: &Problem<'_>, x: &[f64], c: usize) -> bool {
    slack(p, x, c) <= x[c]
}

impl PressureSolver for PolicyIteration {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let c = self.config;
        let span = Span::of(problem);
        let (bound, mut inner) = setup(&c, problem, &span)?;
        if !has_lcp_rows_in(problem, &span)? {
            return solve_linear(inner.as_mut(), problem, bound, &span);
        }
        let dims = problem.dims;
        let owned = span.rows();
        // S over every local cell: on a slab the ghost cells' policy comes from the neighbours.
        let s_cells: Vec<usize> = (0..problem.cell_count())
            .filter(|&c| problem.is_fluid(c) && problem.complementarity[c] != 0)
            .collect();
        let mut x = problem.pressure.to_vec();
        span.refresh(&mut x)?;
        let local = lcp_residual_rows(problem, &x, owned.clone());
        let (initial, mut cancelled) = span.max_or_cancelled(local)?;
        let mut res = initial;
        // Initial policy: the previous step's (Lai §4.1), else eq. 4.1 on the initial guess.
        let mut lambda: Vec<bool> = s_cells
            .iter()
            .map(|&cell| {
                owned.contains(&cell)
                    && self
                        .memory
                        .get(dims, cell)
                        .unwrap_or_else(|| policy(problem, &x, cell))
            })
            .collect();
        span.refresh_flags(&s_cells, &mut lambda)?;
        let base = linear_copy(problem);
        let (mut iterations, mut outer) = (0usize, 0usize);
        while res > bound && outer < c.max_outer_iterations && !cancelled {
            // Line 4: solve (4.2) = the problem with the λ = 0 cells as air.
            let mut sys = base.clone();
            sys.pressure.copy_from_slice(&x);
            for (&cell, &l) in s_cells.iter().zip(&lambda) {
                if !l {
                    make_dirichlet(&mut sys, cell);
                }
            }
            let st = inner.solve(&mut sys.view())?;
            iterations += st.iterations as usize;
            outer += 1;
            x.copy_from_slice(&sys.pressure);
            let local = lcp_residual_rows(problem, &x, owned.clone());
            (res, cancelled) = span.max_or_cancelled(local)?;
            if res <= bound || !res.is_finite() {
                break;
            }
            // Line 3: the optimal control for the new iterate (eq. 4.1), on the owned cells.
            let mut changed = 0usize;
            for (&cell, l) in s_cells.iter().zip(lambda.iter_mut()) {
                if owned.contains(&cell) {
                    let next = policy(problem, &x, cell);
                    changed += usize::from(next != *l);
                    *l = next;
                }
            }
            let changed = span.sum(changed as f64)?;
            if changed == 0.0 && st.converged != 0 {
                break; // a fixed point of the policy that the tolerance cannot improve
            }
            span.refresh_flags(&s_cells, &mut lambda)?;
        }
        let mut flags = vec![None; problem.cell_count()];
        for &cell in s_cells.iter().filter(|c| owned.contains(c)) {
            flags[cell] = Some(policy(problem, &x, cell)); // Λ of the result, for the next step
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
