//! The problem kinds a solve can be handed.

use std::ffi::c_void;

/// Kind tag of a [`PressureProblem`] (the structured 5/7-point stencil).
pub const PROBLEM_STRUCTURED: u32 = 1;
/// Kind tag of a [`CsrProblem`] (a general sparse matrix in compressed rows).
pub const PROBLEM_CSR: u32 = 2;
/// Kind tag of a [`TallCellProblem`] (a CSR problem with its tall-cell geometry). Kinds are
/// appended: an algorithm sees a kind only when its capabilities list it, so older plugins
/// never receive this one.
pub const PROBLEM_TALLCELL: u32 = 3;

/// Cell kinds as stored in [`PressureProblem::cell_kind`].
pub const CELL_FLUID: u8 = 0;
/// Air: pressure is 0 (Dirichlet).
pub const CELL_AIR: u8 = 1;
/// Solid: no unknown; faces to it are Neumann.
pub const CELL_SOLID: u8 = 2;

/// The pressure problem on a structured grid ([`PROBLEM_STRUCTURED`]).
///
/// Every array is non-null with one entry per cell, `ni·nj·nk`, x fastest: cell `(i, j, k)` is
/// index `i + ni·(j + nj·k)`. Unknowns are the [`CELL_FLUID`] cells; on [`CELL_AIR`] and
/// [`CELL_SOLID`] cells `diag`, `rhs` and the couplings are 0 and `pressure` must be left 0.
/// The matrix `A` is symmetric positive (semi-)definite
/// with a 7-point (3D) or 5-point (2D) stencil: `diag[c]` is `A[c][c]`, and `off_x[c]` is
/// `A[c][c+x̂]` (the coupling to the +x neighbour, ≤ 0, zero unless both cells are fluid);
/// likewise `off_y`, `off_z`. The host scales the system so that `A` has O(1) entries
/// (`diag` ≈ number of open faces) and `rhs[c] = -Σ face fluxes` (velocity units). The
/// host turns `p` back into physical pressure and applies the gradient.
///
/// Linear problems ask for `A p = rhs` on fluid cells. Where `complementarity[c] != 0` and the
/// call asks for an LCP (`lcp != 0`), the row becomes `0 <= p[c] ⊥ (A p - rhs)[c] >= 0`
/// (Lai et al. eq. 3.7-3.11 with `b = -rhs`).
///
/// A region of fluid with no air cell and no Dirichlet term is pure Neumann (singular): its
/// `rhs` may be incompatible; solvers project it onto the range and return the solution
/// with zero mean over that region.
#[repr(C)]
pub struct PressureProblem {
    /// Cells per axis `[ni, nj, nk]`; `nk == 1` in 2D.
    pub dims: [u32; 3],
    /// 2 or 3.
    pub dimension: u32,
    /// Cell size in metres (for solvers that rediscretise coarse levels).
    pub dx: f64,
    /// Non-zero: solve the LCP on cells flagged in `complementarity`.
    pub lcp: u32,
    /// Index of the time step this solve belongs to (for solvers that keep state).
    pub step: u64,
    /// Cell kinds (`CELL_*`), `ni*nj*nk` entries.
    pub cell_kind: *const u8,
    /// Matrix diagonal, per cell (0 outside fluid).
    pub diag: *const f32,
    /// `A[c][c+x̂]`, per cell.
    pub off_x: *const f32,
    /// `A[c][c+ŷ]`, per cell.
    pub off_y: *const f32,
    /// `A[c][c+ẑ]`, per cell (all zero in 2D).
    pub off_z: *const f32,
    /// Right-hand side, per cell (0 outside fluid).
    pub rhs: *const f64,
    /// Liquid signed distance at cell centres (negative inside), in metres.
    pub liquid_phi: *const f32,
    /// Solid signed distance at cell centres (negative inside a solid), in metres.
    pub solid_phi: *const f32,
    /// Per-cell flag: this fluid cell touches a solid and may separate from it (set S of Lai).
    pub complementarity: *const u8,
    /// Open fraction in `[0, 1]` of the face between cell `c` and `c + x̂` (1 = no solid in the
    /// face, 0 = closed by a solid; Batty, Bertails & Bridson 2007), per cell.
    pub face_open_x: *const f32,
    /// Open fraction of the face between `c` and `c + ŷ`, per cell.
    pub face_open_y: *const f32,
    /// Open fraction of the face between `c` and `c + ẑ`, per cell (all zero in 2D).
    pub face_open_z: *const f32,
    /// In: initial guess (previous step's pressure). Out: the solution. Per cell.
    pub pressure: *mut f64,
}

/// Row flag of [`CsrProblem::row_flags`]: the row is in the complementarity set S (used when
/// `lcp != 0`).
pub const ROW_COMPLEMENTARITY: u8 = 1;
/// Every row flag of this version; the other bits are reserved and must be zero.
pub const ROW_FLAGS_ALL: u8 = ROW_COMPLEMENTARITY;

/// A general sparse problem ([`PROBLEM_CSR`]): `A p = rhs` with `A` in compressed sparse rows,
/// any sparsity pattern (tall-cell grids, unstructured meshes, reordered systems).
///
/// - `row_ptr` has `rows + 1` entries, `row_ptr[0] = 0`, non-decreasing, `row_ptr[rows] = nnz`;
///   `col_idx` and `values` have `nnz` entries; column indices are `< rows` and strictly
///   increasing within a row; every row stores its diagonal.
/// - With `symmetric != 0` the host guarantees `A = Aᵀ` (both triangles are stored) and that
///   `A` is positive definite, or positive semi-definite with zero row sums exactly on
///   pure-Neumann components (connected components with no row whose diagonal exceeds the sum
///   of its off-diagonal magnitudes); there `rhs` may be incompatible and solvers return the
///   projected, zero-mean solution, as for structured problems. Symmetric-only methods (CG,
///   Cholesky) refuse `symmetric == 0` with [`super::STATUS_UNSUPPORTED`].
/// - `row_flags` is null (no flags) or has `rows` entries of `ROW_*` bits. With `lcp != 0`
///   the rows flagged [`ROW_COMPLEMENTARITY`] read `0 <= p ⊥ (A p - rhs) >= 0`.
#[repr(C)]
pub struct CsrProblem {
    /// Number of rows (= unknowns).
    pub rows: u32,
    /// Non-zero: `A` is symmetric (see above).
    pub symmetric: u32,
    /// Non-zero: solve the LCP on rows flagged [`ROW_COMPLEMENTARITY`].
    pub lcp: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Index of the time step this solve belongs to.
    pub step: u64,
    /// Number of stored entries.
    pub nnz: u64,
    /// Row starts, `rows + 1` entries.
    pub row_ptr: *const u64,
    /// Column of each entry.
    pub col_idx: *const u32,
    /// Value of each entry.
    pub values: *const f64,
    /// Right-hand side, `rows` entries.
    pub rhs: *const f64,
    /// Null or `rows` entries of `ROW_*` bits.
    pub row_flags: *const u8,
    /// In: initial guess. Out: the solution. `rows` entries.
    pub pressure: *mut f64,
}

/// A pressure problem on a restricted tall-cell grid ([`PROBLEM_TALLCELL`], Chentanez & Müller
/// 2011): the assembled system in `csr` (any CSR solver can take it alone) plus the geometry a
/// geometric multigrid coarsens.
///
/// Columns stand on a height map, index `i + nx·k` (`nz = 1` in 2D). Each holds `regular + 2`
/// samples at cell centres: slot 0 the tall cell's bottom (row `terrain`), slot 1 its top (row
/// `terrain + tall − 1`), slot `s ≥ 2` the regular cell at row `terrain + tall + s − 2`; sample
/// index `column·(regular + 2) + slot`. Inside a tall cell a quantity is the linear mix of its
/// bottom and top. Solids: rows below `terrain` are solid; the face between two columns is open
/// in row `y` by `clamp(y + 1 − top, 0, 1)` with `top` from `face_top_x/z` (the solid fraction
/// of the face's cells), and the domain walls are closed; rows at or above `height` are outside
/// (the lid). `phi` is the liquid level set at every sample (negative inside, metres); row `r`
/// of `csr` is the unknown at sample `row_sample[r]`.
#[repr(C)]
pub struct TallCellProblem {
    /// The assembled system, rows and unknowns as documented on [`CsrProblem`].
    pub csr: CsrProblem,
    /// 2 (columns along x) or 3 (columns on an x-z height map).
    pub dimension: u32,
    /// Columns along x and z (`[nx, 1]` in 2D).
    pub columns: [u32; 2],
    /// Regular cells per column (the paper's `B_y`).
    pub regular: u32,
    /// Domain height in cells (the lid).
    pub height: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Cell size in metres.
    pub dx: f64,
    /// Terrain height per column, whole cells (`H`).
    pub terrain: *const u32,
    /// Tall-cell height per column in cells, at least 2 (`h`).
    pub tall: *const u32,
    /// Solid top of each x face in cells (fractional), `(nx + 1)·nz` entries, face
    /// `f + (nx + 1)·k` between columns `f − 1` and `f`.
    pub face_top_x: *const f32,
    /// Solid top of each z face, `nx·(nz + 1)` entries, face `i + nx·k` between columns
    /// `i + nx·(k − 1)` and `i + nx·k`; null in 2D.
    pub face_top_z: *const f32,
    /// Level set at every sample (metres, negative in the liquid).
    pub phi: *const f32,
    /// Sample of each row, `csr.rows` entries.
    pub row_sample: *const u32,
}

/// Pointer to a problem of any kind, as `solve` receives it.
pub type ProblemPtr = *const c_void;
