//! Solvers of the general sparse problem kind (`flip_sdk::CsrProblem`): conjugate
//! gradient with Jacobi or IC(0) preconditioning (symmetric matrices only: CG needs `A = Aᵀ`
//! positive (semi-)definite), and a sparse direct solve (faer: Cholesky for symmetric matrices,
//! LU with partial pivoting otherwise). Pure-Neumann components are handled as for structured
//! problems: the right-hand side is projected and the solution returned with zero mean.
//!
//! [`WithCsr`] joins a structured solver and a CSR solver into one instance, so an algorithm
//! can accept both kinds.

/// Aggregation AMG, the preconditioner of [`CsrPreconditioner::Amg`].
mod amg;
/// Jacobi-preconditioned BiCGSTAB on CSR matrices (unsymmetric too).
mod bicgstab;
/// CG with Jacobi or IC(0) on CSR matrices.
mod cg;
/// faer sparse Cholesky / LU on CSR matrices.
mod direct;
#[cfg(test)]
mod tests;

pub use bicgstab::CsrBicgstab;
pub use cg::{CsrPcg, CsrPreconditioner};
pub use direct::CsrDirect;

use flip_sdk::{
    CsrProblem, PressureSolver, Problem, SolveError, SolveStats, StateReader, StateWriter,
};
use rayon::prelude::*;

/// A structured solver `S` and a CSR solver `C` as one instance: structured problems go to
/// `S`, sparse ones to `C`; reset reaches both; the state is `S`'s (the CSR solvers keep none).
pub struct WithCsr<S, C> {
    /// The structured solver.
    pub structured: S,
    /// The CSR solver.
    pub csr: C,
}

impl<S: PressureSolver, C: PressureSolver> PressureSolver for WithCsr<S, C> {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        self.structured.solve(problem)
    }
    fn solve_csr(&mut self, problem: &mut CsrProblem<'_>) -> Result<SolveStats, SolveError> {
        self.csr.solve_csr(problem)
    }
    fn solve_viscosity(
        &mut self,
        problem: &mut flip_sdk::ViscosityProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        self.csr.solve_viscosity(problem)
    }
    fn solve_coupled(
        &mut self,
        problem: &mut flip_sdk::CoupledProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        self.structured.solve_coupled(problem)
    }
    fn reset(&mut self) {
        self.structured.reset();
        self.csr.reset();
    }
    fn save_state(&self, out: &mut StateWriter) {
        self.structured.save_state(out);
    }
    fn load_state(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        self.csr.reset();
        self.structured.load_state(state)
    }
}

/// Refuses LCP rows: these solvers solve linear systems.
fn linear_only(p: &CsrProblem<'_>, what: &str) -> Result<(), SolveError> {
    if (0..p.rows()).any(|r| p.is_complementarity(r)) {
        return Err(SolveError::Unsupported(format!(
            "{what} solves linear systems only"
        )));
    }
    Ok(())
}

/// Rows per parallel task of the CSR kernels (fixed, so block sums do not depend on the
/// thread count).
const BLOCK: usize = 4096;

/// `r = b − A x`; returns `‖r‖∞`. Rows in parallel.
fn residual(p: &CsrProblem<'_>, b: &[f64], x: &[f64], r: &mut [f64]) -> f64 {
    r.par_chunks_mut(BLOCK)
        .enumerate()
        .map(|(block, rs)| {
            let mut max = 0.0f64;
            for (k, ri) in rs.iter_mut().enumerate() {
                let i = block * BLOCK + k;
                *ri = b[i] - p.row(i).map(|(c, v)| v * x[c]).sum::<f64>();
                max = crate::stencil::max_nan(max, ri.abs());
            }
            max
        })
        .reduce(|| 0.0, crate::stencil::max_nan)
}

/// `y = A x`, rows in parallel.
fn multiply(p: &CsrProblem<'_>, x: &[f64], y: &mut [f64]) {
    y.par_chunks_mut(BLOCK).enumerate().for_each(|(block, ys)| {
        for (k, yi) in ys.iter_mut().enumerate() {
            *yi = p.row(block * BLOCK + k).map(|(c, v)| v * x[c]).sum();
        }
    });
}
