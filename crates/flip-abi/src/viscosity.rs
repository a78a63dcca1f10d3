//! The viscosity problem kind: the implicit variational viscosity solve on the face velocities
//! (Batty & Bridson 2008).

use super::CsrProblem;

/// Kind tag of a [`ViscosityProblem`]. Appended after [`super::PROBLEM_TALLCELL`]: an
/// algorithm receives it only when its capabilities list [`super::CAP_VISCOSITY`].
pub const PROBLEM_VISCOSITY: u32 = 4;

/// Row value of a face that is no unknown in [`ViscosityProblem::face_row`] (a face inside a
/// solid, fixed to the solid's velocity, or a face with no liquid in its control volume).
pub const NO_ROW: u32 = u32::MAX;

/// The implicit viscosity step on a MAC grid ([`PROBLEM_VISCOSITY`]; Batty & Bridson 2008):
/// find the new face velocities `u` minimising
/// `½ Σ_f V_f (u_f − u*_f)² + Δt Σ ν V ‖ε(u)‖²` (ε the discrete strain rate, `V` the liquid
/// fractions of the control volumes), i.e. solve the assembled SPD system `A u = rhs` in `csr`.
///
/// # The system (`csr`)
/// - Rows are the unknown face velocities of all axes; row `r` is face `row_face[r]` of axis
///   `row_axis[r]` (faces of one axis are numbered as a dense grid, below).
/// - `csr.symmetric = 1`: `A = Aᵀ` positive definite (every row has `A_rr ≥ V_f > 0`); the
///   unknown vector is **`csr.pressure`, which holds velocities here** (m/s, in: the velocity
///   before the step, a good initial guess; out: the solution). It keeps the embedded CSR
///   layout so any CSR solver takes the system unchanged.
/// - Units: rows are scaled by `1/ρ`: `A = diag(V_f) + Δt Dᵀ (2 ν V) D` is dimensionless and
///   `rhs = V_f u*` minus the known (solid and dry) faces' couplings, in m/s.
/// - `csr.lcp = 0` and `csr.row_flags` is null.
/// - Positive definite, not diagonally dominant (shear couples the components with both
///   signs): no component is pure Neumann and solvers project nothing. The embedded system is
///   therefore not handed on as a [`super::PROBLEM_CSR`] problem, whose rule would take
///   components without a dominant row for singular ones.
///
/// # The grid (for geometric solvers; `csr` alone defines the problem)
/// - Cells `dims = [ni, nj, nk]` (`nk = 1` in 2D), size `dx` (m); grids are dense, x fastest.
/// - Faces of axis `a` form a grid of `dims + e_a` entries (`(ni+1)·nj·nk` for x):
///   face `(i, j, k)` of axis `a` lies between cells `(i, j, k) − e_a` and `(i, j, k)`.
/// - `face_row[a]` maps each face to its row or [`NO_ROW`]; `face_weight[a]` is the face's
///   liquid volume fraction `V_f` in `[0, 1]`. Null for `a = 2` in 2D.
/// - `cell_weight` (per cell) is the liquid fraction of the cell's control volume, the weight
///   of the diagonal strains `ε_aa`; `viscosity` (per cell) is the kinematic viscosity ν
///   (m²/s) at the cell centre.
/// - `edge_weight[c]` is the liquid fraction of the control volume of the edges along axis
///   `c`, the weight of the shear strain `ε_ab` (`a, b ≠ c`): a grid of `dims + 1 − e_c`
///   entries (edge `(i, j, k)` along z lies at `(i·dx, j·dx, (k + ½)·dx)`). In 2D only
///   `edge_weight[2]` is set (the grid nodes, `(ni+1)·(nj+1)` entries); the others are null.
/// - Solid walls are no-slip and enter the matrix only (a one-sided difference to the wall at
///   the solid's signed distance); the weights above do not describe them.
#[repr(C)]
pub struct ViscosityProblem {
    /// The assembled SPD system (see above).
    pub csr: CsrProblem,
    /// 2 or 3.
    pub dimension: u32,
    /// Cells per axis.
    pub dims: [u32; 3],
    /// Cell size (m).
    pub dx: f64,
    /// Time step (s).
    pub dt: f64,
    /// Axis of each row's face, `csr.rows` entries (0, 1 or 2).
    pub row_axis: *const u8,
    /// Index of each row's face in its axis's face grid, `csr.rows` entries.
    pub row_face: *const u32,
    /// Row of every face, per axis (null for z in 2D).
    pub face_row: [*const u32; 3],
    /// Liquid fraction of every face's control volume, per axis (null for z in 2D).
    pub face_weight: [*const f32; 3],
    /// Liquid fraction of every cell's control volume, `ni·nj·nk` entries.
    pub cell_weight: *const f32,
    /// Kinematic viscosity at every cell centre (m²/s), `ni·nj·nk` entries.
    pub viscosity: *const f32,
    /// Liquid fraction of the edge control volumes, per edge axis (see above).
    pub edge_weight: [*const f32; 3],
}
