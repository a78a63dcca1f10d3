//! Preconditioned conjugate gradient (Hestenes & Stiefel 1952; Bridson, *Fluid Simulation for
//! Computer Graphics*, 2nd ed., §5.4) for the pressure system, with five preconditioners:
//!
//! | algorithm    | preconditioner                                   | parallel |
//! |--------------|--------------------------------------------------|----------|
//! | `cg`         | none                                             | yes      |
//! | `jacobi-pcg` | diagonal (Jacobi)                                | yes      |
//! | `ic0-pcg`    | incomplete Cholesky IC(0)                        | **no**   |
//! | `mic0-pcg`   | modified incomplete Cholesky MIC(0), τ, σ        | **no**   |
//! | `rbssor-pcg` | symmetric SOR in red-black order, ω              | yes      |
//!
//! IC(0) and MIC(0) are triangular solves in grid order: every cell depends on its -x, -y, -z
//! neighbours, so their factorisation and application run on one thread (the vector operations
//! around them are still parallel). Red-black SSOR trades some preconditioning strength for
//! sweeps whose half-steps are fully parallel.
//!
//! Every solver is a [`Pcg`] over a [`Preconditioner`] and implements
//! [`flip_sdk::PressureSolver`], so other solvers can use them as inner solvers through
//! `Box<dyn PressureSolver>`. A solver keeps its vectors, the fluid regions and the
//! preconditioner between solves and rebuilds the latter two only when a hash of the matrix
//! (cell kinds, diagonal, couplings) changes.
//!
//! Pure-Neumann regions ([`crate::neumann`]): the right-hand side is projected onto the range,
//! the initial guess and the result are made mean-free there, and CG (on the consistent
//! semi-definite system, with an SPD preconditioner) drives the residual down; the reported
//! residual is that of the projected system.

/// CG on one rank's slab of a distributed problem.
mod distributed;
/// Fused, deterministic vector kernels and the matrix hash.
mod kernels;
/// Incomplete Cholesky IC(0) / modified incomplete Cholesky MIC(0).
mod mic;
/// The conjugate gradient iteration and its solver type.
mod pcg;
/// The preconditioner trait, the identity and Jacobi.
mod precond;
/// Red-black ordered symmetric SOR.
mod ssor;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_timing;
#[cfg(test)]
mod tests_variational;

pub(crate) use kernels::{check_rhs, restrict_to_fluid, stencil_of};
pub use mic::{IncompleteCholesky, Mic0Config};
pub use pcg::Pcg;
pub use precond::{Jacobi, NoPreconditioner, Preconditioner};
pub use ssor::{RedBlackSsor, SsorConfig};

use crate::tolerance::Tolerance;

/// Settings shared by every CG variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PcgConfig {
    /// Converged when `‖b − A p‖∞ ≤ max(abs, rel · ‖b‖∞)` (`b`: projected right-hand side).
    pub tolerance: Tolerance,
    /// Iteration budget; running out is reported as `converged = 0`, not as an error.
    pub max_iterations: u32,
}

impl Default for PcgConfig {
    fn default() -> Self {
        Self {
            tolerance: Tolerance {
                rel: 1e-6,
                abs: 1e-9,
            },
            max_iterations: 2000,
        }
    }
}

/// Unpreconditioned conjugate gradient (`cg`).
pub type CgSolver = Pcg<NoPreconditioner>;
/// Jacobi-preconditioned CG (`jacobi-pcg`).
pub type JacobiPcgSolver = Pcg<Jacobi>;
/// IC(0)- or MIC(0)-preconditioned CG (`ic0-pcg`, `mic0-pcg`); see [`Pcg::ic0`], [`Pcg::mic0`].
pub type IcPcgSolver = Pcg<IncompleteCholesky>;
/// Red-black SSOR-preconditioned CG (`rbssor-pcg`).
pub type RbSsorPcgSolver = Pcg<RedBlackSsor>;

impl Pcg<NoPreconditioner> {
    /// Plain CG.
    pub fn cg(config: PcgConfig) -> Self {
        Self::new(config, NoPreconditioner)
    }
}

impl Pcg<Jacobi> {
    /// CG with the Jacobi (diagonal) preconditioner.
    pub fn jacobi(config: PcgConfig) -> Self {
        Self::new(config, Jacobi::default())
    }
}

impl Pcg<IncompleteCholesky> {
    /// CG with the unmodified incomplete Cholesky factor IC(0).
    pub fn ic0(config: PcgConfig) -> Self {
        Self::new(config, IncompleteCholesky::ic0())
    }
    /// CG with Bridson's modified incomplete Cholesky factor MIC(0).
    pub fn mic0(config: PcgConfig, mic: Mic0Config) -> Self {
        Self::new(config, IncompleteCholesky::mic0(mic))
    }
}

impl Pcg<RedBlackSsor> {
    /// CG with the red-black symmetric SOR preconditioner.
    pub fn rbssor(config: PcgConfig, ssor: SsorConfig) -> Self {
        Self::new(config, RedBlackSsor::new(ssor))
    }
}
