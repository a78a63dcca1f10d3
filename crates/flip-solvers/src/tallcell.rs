//! Chentanez & Müller 2011's multigrid for the restricted tall-cell grid: a hierarchy of
//! tall-cell grids down-sampled from the problem's geometry (H, h, solid fractions, φ with
//! air bubbles kept on the finest levels), the point-wise Laplacian with ghost fluid and solid
//! fractions re-discretised on every coarse level, bi-/trilinear transfers read through the
//! paper's rule, red-black Gauss-Seidel, V-cycles and full cycles on the crate's one multigrid hierarchy
//! (`crate::hierarchy`), with the tall-cell level as its level type.

/// Down-sampling a level.
mod coarsen;
/// One level's grid and the paper's rule.
pub mod grid;
/// The levels and the coarsest LU.
mod hierarchy;
/// The point-wise Laplacian of a level.
pub mod operator;
/// Red-black Gauss-Seidel.
mod smoother;
/// The solver.
mod solver;
#[cfg(test)]
mod tests;
/// Prolongation and restriction.
mod transfer;

pub use solver::{TallCycle, TallMgConfig, TallMultigrid};
