//! Geometric multigrid for the pressure Poisson problem on the cell-centred grid.
//!
//! - Smoother: parallel red-black Gauss-Seidel (Karlsson §5.3, eq. 53-54), f32.
//! - Transfers: one-sided barycentric interpolation `P` (Lai et al. §4.3) and its transpose,
//!   scaled, as restriction; coarse sizes `ceil(n/2)`, z never coarsened in 2D.
//! - Coarse operators: [`Coarsening::Galerkin`] (aggregation product `P₀ᵀ A P₀` of the given
//!   matrix, valid for any SPD matrix in the stencil arrays) or [`Coarsening::Rediscretise`]
//!   (unit stencil on open faces); both keep the 5/7-point form and coarsen cell kinds by the
//!   Chentanez & Müller rule that preserves air bubbles.
//! - Cycles: the crate's one hierarchy (`crate::hierarchy`), whose level type this module's
//!   colour-split level is: V-cycle (Karlsson Alg. 9, Chentanez & Müller Alg. 3), full cycle
//!   (Karlsson Alg. 10, Chentanez & Müller Alg. 4), iterated by [`MultigridSolver`] as in
//!   Karlsson Alg. 8; and
//!   [`MgPcgSolver`], CG preconditioned by one symmetric V-cycle (McAdams et al. 2010).
//!
//! Every solver keeps its hierarchy between solves and rebuilds the coarse levels only when the
//! matrix changed; a rebuild reallocates nothing unless the grid size changed, and every step of
//! it runs in parallel (in a simulation the matrix changes every step).
//!
//! Performance (see `level` for the layout): every level stores its vectors and coefficients
//! split by colour, so a half-sweep writes one colour's array and reads the other's, rows run in
//! parallel without `unsafe` and each row is a vectorised loop over the span of its unknowns;
//! the outer iteration works in the same layout. The host's unit stencil (also with penalty
//! terms on the diagonal) is detected and its couplings are not read at all. After the black
//! half-sweep ending the pre-smoothing the black residual vanishes, so only red cells are
//! computed and restricted, and the prolongation fills only the colour that the first
//! post-smoothing half-sweep reads. MGPCG keeps its iterate and direction in f64 but its
//! recurrence residual and `A d` in f32, with residual replacement from the f64 true residual.
//! 128³ dam break, 2 threads: MGPCG 5 iterations, 0.12 s per solve (MIC(0)-PCG: 87, 3.9 s).

/// Dense Cholesky solve on the coarsest level (handles singular Neumann regions).
mod coarse;
/// Construction of coarse levels: Galerkin aggregation and rediscretisation.
mod coarsen;
/// MGPCG on one rank's slab (distributed CG, V-cycle with its finest level divided).
mod distributed;
/// Level 0's face fractions and ghost-fluid weights from the problem.
mod faces;
/// The grid hierarchy, kept between solves.
mod hierarchy;
/// One grid level: natural and colour-split arrays, spans of unknowns, fine kernels.
mod level;
/// MGPCG: conjugate gradient preconditioned by a symmetric V-cycle.
mod mgpcg;
/// Kernels of the outer iteration on the fine problem (residual, projection, CG updates).
mod outer;
/// The range projection on level 0's singular regions.
mod projection;
/// Hierarchies shared by the solver instances of one process when their matrices agree.
mod shared;
/// Coarse cells cut down to slivers by solids, made solid.
mod slivers;
/// Red-black Gauss-Seidel smoothing.
mod smoother;
/// Stand-alone V-cycle / full-cycle iteration.
mod solver;
/// Restriction and prolongation.
mod transfer;

#[cfg(test)]
mod tests;
/// The coupled preconditioner: symmetric and positive with the bodies' correction.
#[cfg(test)]
mod tests_coupled;
/// Profiling tools (ignored tests).
#[cfg(test)]
mod tests_profile;
/// Dumped simulation systems: regression tests and replay tools.
#[cfg(test)]
mod tests_real;
#[cfg(test)]
mod tests_scaling;
/// Hierarchies shared between instances: results, verification, concurrency.
#[cfg(test)]
mod tests_shared;
/// Rows whose kernels skip the couplings: checked against the couplings they use.
#[cfg(test)]
mod tests_uniform;
/// Variational problems: agreement and iteration counts against the voxelized twins.
#[cfg(test)]
mod tests_variational;

pub use mgpcg::MgPcgSolver;
pub use solver::MultigridSolver;

use crate::tolerance::Tolerance;
use flip_sdk::SolveStats;

/// Which cycle the stand-alone solver iterates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cycle {
    /// V-cycles only (Karlsson Alg. 9).
    V,
    /// Full cycles followed by V-cycles (Karlsson Alg. 8 and 10).
    Full,
}

/// How coarse-level matrices are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coarsening {
    /// Algebraic: `A^H = P₀ᵀ A P₀ / 2^{d+1}` with piecewise-constant `P₀` (Lai et al. §4.3 use
    /// `A^H = R A P`); the ½ corrects the known factor-2 stiffness of piecewise-constant
    /// aggregation. Built from the matrix entries, so any SPD matrix in the stencil arrays works
    /// (penalty terms, scaled or fractional coefficients). On the finest `bubble_levels` a block
    /// with an air child becomes air (Chentanez & Müller) and its couplings Dirichlet terms;
    /// every Dirichlet term keeps the distance to the fine Dirichlet point behind it.
    Galerkin,
    /// Geometric: coarse cell kinds by the Chentanez & Müller rule (air if any child is air on
    /// the finest `bubble_levels`, "preserve air bubbles"), faces weighted by their open
    /// fraction, unit Laplacian scaled by `(h/H)²`, faces to air as Dirichlet terms at the
    /// distance of the fine Dirichlet points. Assumes the host's unit-scaled matrix.
    Rediscretise,
}

/// Parameters shared by [`MultigridSolver`] and [`MgPcgSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultigridConfig {
    /// Cycle iterated by [`MultigridSolver`] (ignored by [`MgPcgSolver`]).
    pub cycle: Cycle,
    /// `N_sweep`: red-black Gauss-Seidel sweeps before and after each coarse correction on the
    /// finest level.
    pub n_sweep: usize,
    /// Sweeps before and after each coarse correction on the coarser levels. They cost an
    /// eighth (3D) or a quarter (2D) of a fine sweep per level and pay for themselves: on
    /// dumped simulation systems 4 instead of 2 save about one MGPCG iteration in seven.
    pub n_sweep_coarse: usize,
    /// `N_V-cycle`: V-cycles per round of Karlsson's Alg. 8 (after the full cycles).
    pub n_vcycle: usize,
    /// `N_full-cycle`: full cycles per round of Karlsson's Alg. 8 (only with [`Cycle::Full`]).
    pub n_full_cycle: usize,
    /// Coarse-operator construction.
    pub coarsening: Coarsening,
    /// Coarsen until every axis has at most this many cells (2..=8); solved by Cholesky.
    pub coarsest_size: usize,
    /// Number of finest coarse levels on which any air child makes the coarse cell air
    /// (Chentanez & Müller's "finest C levels", "preserve air bubbles"); deeper levels take the
    /// majority (rediscretisation) or keep every block holding fluid (Galerkin).
    pub bubble_levels: usize,
    /// Stopping rule.
    pub tolerance: Tolerance,
    /// Most cycles (or CG iterations) per solve.
    pub max_iterations: usize,
}

impl Default for MultigridConfig {
    fn default() -> Self {
        Self {
            cycle: Cycle::V,
            n_sweep: 2,
            n_sweep_coarse: 4,
            n_vcycle: 1,
            n_full_cycle: 1,
            coarsening: Coarsening::Galerkin,
            coarsest_size: 4,
            bubble_levels: usize::MAX,
            tolerance: Tolerance {
                rel: 1e-6,
                abs: 1e-9,
            },
            max_iterations: 100,
        }
    }
}

/// A multigrid parameter combination that cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// No smoothing sweeps.
    #[error("n_sweep and n_sweep_coarse must be at least 1")]
    NoSweeps,
    /// No cycles per round.
    #[error("n_vcycle (+ n_full_cycle for the full cycle) must be at least 1")]
    NoCycles,
    /// The coarsest level is too small or too large.
    #[error("coarsest_size must be in 2..=8")]
    CoarsestSize,
    /// Both tolerances zero, or one negative.
    #[error("tolerances must be non-negative and not both zero")]
    Tolerance,
}

impl MultigridConfig {
    /// Checks the parameter combination.
    ///
    /// # Errors
    /// [`ConfigError`] naming the offending parameter.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.n_sweep == 0 || self.n_sweep_coarse == 0 {
            return Err(ConfigError::NoSweeps);
        }
        let per_round = self.n_vcycle
            + if self.cycle == Cycle::Full {
                self.n_full_cycle
            } else {
                0
            };
        if per_round == 0 {
            return Err(ConfigError::NoCycles);
        }
        if !(2..=8).contains(&self.coarsest_size) {
            return Err(ConfigError::CoarsestSize);
        }
        let t = self.tolerance;
        if !(t.rel >= 0.0 && t.abs >= 0.0 && (t.rel > 0.0 || t.abs > 0.0)) {
            return Err(ConfigError::Tolerance);
        }
        Ok(())
    }
}

/// The report of a linear solve of `iterations` whose final max-norm residual `res` (from
/// `initial`) is measured against `bound`.
pub(crate) fn stats(iterations: usize, res: f64, initial: f64, bound: f64) -> SolveStats {
    SolveStats {
        iterations: iterations as u32,
        outer_iterations: 0,
        residual: res,
        initial_residual: initial,
        converged: u32::from(res <= bound),
    }
}
