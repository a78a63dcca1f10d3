//! Pressure-solver numerics shared by flipgraph's solver plugins.
//!
//! The plugins in `plugins/` are thin `cdylib` wrappers around these modules; the numerics live
//! here so that solvers can reuse each other (the LCP methods use the linear ones as inner
//! solvers) and be unit-tested without loading a library.
#![forbid(unsafe_code)]

/// Reference problems: free-surface box, dam break, bubbles, closed box, puddles, LCP container.
pub mod fixtures;
/// Variational reference problems: circle/sphere container, slanted wall, thin plate.
pub mod fixtures_variational;
/// An owned problem (for tests, benchmarks and inner solves) with a borrowed SDK view.
pub mod owned;
/// Matrix-free stencil operators and parallel, deterministic reductions.
pub mod stencil;
/// Distributed solves on thread ranks (unit tests).
#[cfg(test)]
mod thread_ranks;

pub use owned::OwnedProblem;
pub use stencil::Stencil;
/// Solvers of the coupled (rigid-body) kind: CG on `A + J C Jᵀ`, Woodbury over a direct solve.
pub mod coupled;
/// Sparse direct (Cholesky) reference solve through faer.
pub mod direct;
/// The one multigrid hierarchy: level, smoother, transfer and coarse-solve traits, cycles.
mod hierarchy;
/// Conjugate gradient with Jacobi, IC(0), MIC(0) and red-black SSOR preconditioners.
pub mod krylov;
/// LCP solvers for separating walls (Lai et al.): PGS, policy iteration, penalty, FAS-MG, FMG.
pub mod lcp;
/// Geometric multigrid (Karlsson §5.3-5.5, Chentanez & Müller), full cycle, MGPCG.
pub mod multigrid;
/// Solvers of the general sparse (CSR) problem kind: CG (Jacobi, IC(0)) and faer Cholesky/LU.
pub mod sparse;
/// Chentanez & Müller's tall-cell multigrid.
pub mod tallcell;
/// Tolerance rule shared by every solver.
pub mod tolerance;
