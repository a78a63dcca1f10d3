//! LCP pressure solvers for separating solid walls, after Lai, Chen, Gu, Batty & Wan, "Fast and
//! Scalable Solvers for the Fluid Pressure Equations with Separating Solid Boundary Conditions"
//! (Eurographics 2020).
//!
//! The problem (eq. 3.7-3.11, with Lai's `b = −rhs`): on fluid cells in S (`complementarity`),
//! `0 ≤ p ⊥ (A p − rhs) ≥ 0`; on the other fluid cells `A p = rhs`. Without `lcp` (or with S
//! empty) every solver here solves the linear system, so the LCP reduces to the linear solve.
//!
//! | algorithm | type |
//! |---|---|
//! | `pgs` | [`PgsSolver`]: projected Gauss-Seidel |
//! | `pi-pcg`, `pi-mg` | [`PolicyIteration`] (Alg. 1) with IC(0)/MIC(0)-PCG or linear multigrid |
//! | `pe-pcg`, `pe-mg` | [`PenaltyMethod`] (Alg. 2) with the same inner solvers |
//! | `fas-mg` | [`FasMgSolver`]: FAS V-cycles with PGS smoothing (Alg. 3, §4.3) |
//! | `fmg` | [`FmgSolver`]: Chentanez & Müller's projected full multigrid baseline |
//!
//! Every solver reports [`SolveStats`](flip_sdk::SolveStats) with `residual` the
//! max-norm of the LCP residual ([`lcp_residual`]) and converges when it is at most
//! `max(abs, rel · ‖rhs‖∞)` ([`Tolerance`](crate::tolerance::Tolerance); Lai et al. use an
//! absolute 10⁻⁶).

/// What solvers keep between solves.
mod cache;
/// Residual and complementarity checks.
mod check;
/// Coarse levels and their matrices.
mod coarse;
/// Sparse rows and multicolouring.
mod csr;
/// Fixed-width rows (interpolations).
mod ell;
/// Open face fractions on every level.
mod faces;
/// FAS multigrid (Alg. 3).
mod fas;
/// The finest level of a problem.
mod fine;
/// Chentanez & Müller full multigrid baseline.
mod fmg;
/// Galerkin products.
mod galerkin;
/// The finest level in grid layout.
mod grid;
/// Smoothing on the grid layout.
mod gridsmooth;
/// Inner linear solvers of policy iteration and the penalty method.
mod inner;
/// One level of a hierarchy.
mod level;
/// Level matrices split at the diagonal.
mod matrix;
/// Penalty method (Alg. 2).
mod penalty;
/// Projected Gauss-Seidel.
mod pgs;
/// Policy iteration (Alg. 1).
mod policy;
/// Relaxation and residuals on one level.
mod smooth;
/// The whole grid or one rank's slab (distributed outer loops).
mod span;
/// The fine system of a problem.
mod system;
/// Interpolation and restriction.
mod transfer;
/// The FAS V-cycle.
mod vcycle;

#[cfg(test)]
mod tests;

pub use check::{complementarity, lcp_residual, Complementarity};
pub use fas::{FasConfig, FasMgSolver};
pub use fmg::{FmgConfig, FmgSolver};
pub use inner::InnerSolver;
pub use penalty::{PenaltyConfig, PenaltyMethod};
pub use pgs::{PgsConfig, PgsSolver};
pub use policy::{PolicyConfig, PolicyIteration};
pub use transfer::{Boundary, CoarseMatrix, Interpolation};

use crate::tolerance::Tolerance;
use flip_sdk::SolveStats;

/// Lai et al.'s stopping rule: absolute residual 10⁻⁶, no relative part.
pub const DEFAULT_TOLERANCE: Tolerance = Tolerance {
    rel: 0.0,
    abs: 1e-6,
};

/// Stats of a finished solve.
fn stats(iterations: usize, outer: usize, initial: f64, residual: f64, bound: f64) -> SolveStats {
    SolveStats {
        iterations: iterations.min(u32::MAX as usize) as u32,
        outer_iterations: outer.min(u32::MAX as usize) as u32,
        residual,
        initial_residual: initial,
        converged: u32::from(residual <= bound),
    }
}
