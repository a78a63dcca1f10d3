//! The coupled problem kind: the structured pressure problem plus the rigid bodies' low-rank
//! terms (Batty, Bertails & Bridson 2007, §4).

use super::PressureProblem;

/// Kind tag of a [`CoupledProblem`]. Appended after [`super::PROBLEM_VISCOSITY`]: an algorithm
/// receives it only when its capabilities list [`super::CAP_COUPLED`].
pub const PROBLEM_COUPLED: u32 = 5;

/// The pressure problem with rigid bodies coupled into it ([`PROBLEM_COUPLED`]; Batty,
/// Bertails & Bridson 2007, §4): solve
///
/// `(A + J C Jᵀ) p = rhs`
///
/// on the fluid cells of `grid`, where `A` and `rhs` are exactly those of the structured
/// problem `grid` (read its documentation: cell kinds, stencil, signs, pressure in/out) and
/// the bodies add one symmetric positive semi-definite low-rank term each.
///
/// # The bodies' terms
/// - Each of the `body_count` bodies has `dofs` degrees of freedom: 3 in 2D (`vx, vy, ωz`),
///   6 in 3D (`vx, vy, vz, ωx, ωy, ωz`); `dofs` is 3 when `grid.dimension` is 2, else 6.
/// - `J` has `body_count · dofs` sparse columns; column `q = body · dofs + d` is the flux out
///   of each fluid cell per unit of the body's velocity in degree of freedom `d` (in the
///   scaled units of `rhs`). Its entries are `column_cells[e]` (a cell index into the grid,
///   `i + ni·(j + nj·k)`, always a [`super::CELL_FLUID`] cell, strictly increasing within a
///   column) and `column_values[e]` (finite) for `e` in `column_start[q] .. column_start[q+1]`
///   (`column_start` has `body_count · dofs + 1` entries, starts at 0, never decreases, and
///   its last entry is the entry count). A column may be empty (a body out of the liquid).
/// - `weight` holds each body's `dofs × dofs` block of `C`, row-major, one block after the
///   other (`body_count · dofs²` entries): `C_b = ρ dxᵈ M_b⁻¹` with `M_b` the body's mass
///   matrix (mass on the velocities, world-axes inertia tensor on the spin), so each block is
///   symmetric positive definite and blocks of different bodies do not couple. Apply the term
///   as `out += J (C (Jᵀ x))`, one block per body.
/// - The coupled operator is symmetric positive definite wherever `A` is, and positive
///   semi-definite like `A` on pure-Neumann regions of `grid`, which solvers treat as for the
///   structured kind (project the right-hand side, return zero mean over the region).
/// - After the solve the host moves each body by `C Jᵀ p`; solvers return only `p`.
/// - `grid.lcp` is 0: the coupled kind is linear.
///
/// # Solving it
/// A preconditioned CG applies `A + J C Jᵀ` in the outer iteration and may precondition with
/// any preconditioner of `A` alone (the bodies' term is low rank). A direct solver may use the
/// Woodbury identity over its factorisation of `A`:
/// `p = x − Y S⁻¹ Jᵀ x` with `x = A⁻¹ rhs`, `Y = A⁻¹ J`, `S = C⁻¹ + Jᵀ Y`.
#[repr(C)]
pub struct CoupledProblem {
    /// The structured problem (`A`, `rhs`, the pressure in and out).
    pub grid: PressureProblem,
    /// Number of bodies (0 is allowed: the structured problem alone).
    pub body_count: u32,
    /// Degrees of freedom per body: 3 in 2D, 6 in 3D.
    pub dofs: u32,
    /// Start of each column's entries, `body_count · dofs + 1` entries.
    pub column_start: *const u64,
    /// Cell of each entry (`column_start[body_count · dofs]` entries).
    pub column_cells: *const u32,
    /// Value of each entry (as many).
    pub column_values: *const f64,
    /// Each body's `dofs × dofs` block of `C`, row-major, `body_count · dofs²` entries.
    pub weight: *const f64,
}
