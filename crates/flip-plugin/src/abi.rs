//! The versioned C ABI between the flipgraph host and a pressure-solver plugin.
//!
//! A plugin is a `cdylib` exporting one symbol, [`ENTRY_SYMBOL`], of type [`EntryFn`]. It returns
//! a pointer to a static [`PluginTable`] whose first field is a [`PluginHeader`]; the host reads
//! `header.abi_version` and `header.header_size` before it touches anything else and refuses the
//! library on a mismatch. Bump [`ABI_VERSION`] on *any* layout change of a type in this file.
//!
//! Conventions shared by every call:
//! - Strings are NUL-terminated UTF-8 owned by the side that created them. Strings in the table
//!   and in descriptions are `'static` in the plugin.
//! - Grid arrays are dense, x fastest: `index = i + ni * (j + nj * k)`; 2D problems have `nk = 1`.
//! - Status codes: [`STATUS_OK`] and friends. A failing call writes a message into the
//!   [`ErrorBuf`] it was given. Panics never cross the boundary (the SDK catches them and returns
//!   [`STATUS_PANIC`]).
//! - Views handed to `solve` are valid only during that call; a plugin must not keep them.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void};

/// Version of this ABI. The host refuses plugins built for another version.
pub const ABI_VERSION: u32 = 2;
/// The API a plugin table implements (cf. OpenFX `pluginApi`).
pub const PRESSURE_SOLVER_API: &[u8] = b"flipgraph.pressure_solver\0";
/// Name of the one exported entry symbol.
pub const ENTRY_SYMBOL: &[u8] = b"flipgraph_plugin_entry\0";

/// Success.
pub const STATUS_OK: i32 = 0;
/// The call failed; the error buffer says why.
pub const STATUS_FAILED: i32 = 1;
/// The plugin panicked; the instance must not be used again.
pub const STATUS_PANIC: i32 = 2;
/// The algorithm cannot handle this problem (e.g. an LCP handed to a linear-only solver).
pub const STATUS_UNSUPPORTED: i32 = 5;
/// A parameter value or problem field is invalid.
pub const STATUS_BAD_VALUE: i32 = 11;

/// Signature of [`ENTRY_SYMBOL`].
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// First field of every plugin table. Never reorder or remove fields.
#[repr(C)]
pub struct PluginHeader {
    /// [`ABI_VERSION`] the plugin was built against. Checked first.
    pub abi_version: u32,
    /// `size_of::<PluginTable>()` in the plugin, for a second layout check.
    pub table_size: u32,
    /// API implemented: [`PRESSURE_SOLVER_API`].
    pub api: *const c_char,
    /// Stable plugin id, lowercase, no spaces: `"pcg"`, `"multigrid"`.
    pub id: *const c_char,
    /// Human-readable name.
    pub name: *const c_char,
    /// Plugin version string (semver).
    pub version: *const c_char,
}

/// Kind of an algorithm parameter.
pub type ParamKind = u32;
/// A real number.
pub const PARAM_FLOAT: ParamKind = 0;
/// An integer (passed as f64 holding an integral value).
pub const PARAM_INT: ParamKind = 1;
/// A boolean (0.0 or 1.0).
pub const PARAM_BOOL: ParamKind = 2;
/// One of `choices` (passed as the f64 index of the choice).
pub const PARAM_CHOICE: ParamKind = 3;

/// Schema of one algorithm parameter (cf. OpenFX `kOfxParamProp*`).
#[repr(C)]
pub struct ParamDesc {
    /// Identifier used in graphs, snake_case.
    pub name: *const c_char,
    /// Label for the editor.
    pub label: *const c_char,
    /// One-sentence help text.
    pub help: *const c_char,
    /// One of the `PARAM_*` kinds.
    pub kind: ParamKind,
    /// Default value.
    pub default: f64,
    /// Smallest allowed value (inclusive).
    pub min: f64,
    /// Largest allowed value (inclusive).
    pub max: f64,
    /// Choice labels for [`PARAM_CHOICE`], else null.
    pub choices: *const *const c_char,
    /// Number of entries in `choices`.
    pub choice_count: u32,
}

/// Capability bit: solves the linear system `A p = rhs`.
pub const CAP_LINEAR: u32 = 1;
/// Capability bit: solves the LCP `0 <= p ⊥ A p - rhs >= 0` on flagged cells.
pub const CAP_LCP: u32 = 2;

/// Description of one algorithm a plugin offers.
#[repr(C)]
pub struct AlgorithmDesc {
    /// Identifier, lowercase with dashes, as in the Lai et al. tables: `"mic0-pcg"`, `"fas-mg"`.
    pub name: *const c_char,
    /// Label for the editor.
    pub label: *const c_char,
    /// One-paragraph help text, citing the method.
    pub help: *const c_char,
    /// `CAP_*` bits.
    pub capabilities: u32,
    /// Parameter schemas.
    pub params: *const ParamDesc,
    /// Number of parameters.
    pub param_count: u32,
}

/// A resolved parameter value handed to `create`.
#[repr(C)]
pub struct ParamValue {
    /// Parameter name (as in its [`ParamDesc`]).
    pub name: *const c_char,
    /// Value, encoded as described for each [`ParamKind`].
    pub value: f64,
}

/// Caller-owned buffer the plugin writes a NUL-terminated error message into.
#[repr(C)]
pub struct ErrorBuf {
    /// Start of the buffer.
    pub data: *mut c_char,
    /// Capacity in bytes, including the NUL.
    pub capacity: usize,
}

/// Cell kinds as stored in [`PressureProblem::cell_kind`].
pub const CELL_FLUID: u8 = 0;
/// Air: pressure is 0 (Dirichlet).
pub const CELL_AIR: u8 = 1;
/// Solid: no unknown; faces to it are Neumann.
pub const CELL_SOLID: u8 = 2;

/// The pressure problem on a structured grid.
///
/// Unknowns are the [`CELL_FLUID`] cells. The matrix `A` is symmetric positive (semi-)definite
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

/// What a solve reports. Non-convergence is not an error: `converged = 0` with [`STATUS_OK`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveStats {
    /// Iterations as the method counts them (CG iterations, V-cycles, PGS sweeps; for
    /// policy iteration / penalty: inner iterations summed over outer iterations, as Lai et al.).
    pub iterations: u32,
    /// Outer iterations (policy / penalty updates); 0 for linear methods.
    pub outer_iterations: u32,
    /// Final residual, max-norm over unknowns (for LCPs, of `min(p, A p - rhs)` on S).
    pub residual: f64,
    /// Residual of the initial guess, same norm.
    pub initial_residual: f64,
    /// 1 when the tolerance was met.
    pub converged: u32,
}

/// The function table a plugin exports. Reached only through [`ENTRY_SYMBOL`].
#[repr(C)]
pub struct PluginTable {
    /// Identity and version; checked before anything else.
    pub header: PluginHeader,
    /// Number of algorithms; valid indices are `0..algorithm_count`.
    pub algorithm_count: u32,
    /// Fills `out` with algorithm `index`'s description (pointers stay valid while loaded).
    ///
    /// Returns [`STATUS_OK`], or [`STATUS_BAD_VALUE`] for an index out of range.
    pub describe: unsafe extern "C" fn(index: u32, out: *mut AlgorithmDesc) -> i32,
    /// Creates a solver instance for algorithm `index` with resolved parameters.
    ///
    /// Pre: `params` points to `param_count` values; names not in the schema are an error.
    /// Post: on [`STATUS_OK`], `*instance` is a non-null handle for `solve`/`destroy`.
    /// Returns [`STATUS_OK`], [`STATUS_BAD_VALUE`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
    pub create: unsafe extern "C" fn(
        index: u32,
        params: *const ParamValue,
        param_count: u32,
        instance: *mut *mut c_void,
        error: *mut ErrorBuf,
    ) -> i32,
    /// Solves `problem` in place (`problem.pressure`), filling `stats`.
    ///
    /// Pre: `instance` came from `create` and was not destroyed; all arrays have
    /// `ni*nj*nk` entries. The instance may keep state between calls (hierarchies, policies).
    /// Returns [`STATUS_OK`] (also when not converged), [`STATUS_UNSUPPORTED`],
    /// [`STATUS_BAD_VALUE`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
    pub solve: unsafe extern "C" fn(
        instance: *mut c_void,
        problem: *const PressureProblem,
        stats: *mut SolveStats,
        error: *mut ErrorBuf,
    ) -> i32,
    /// Destroys an instance. Pre: it is not used afterwards.
    pub destroy: unsafe extern "C" fn(instance: *mut c_void),
}

// SAFETY: the table holds only function pointers and pointers to 'static NUL-terminated strings
// that are never written, so sharing it between threads is sound.
unsafe impl Sync for PluginTable {}
// SAFETY: as above, for descriptions built into statics.
unsafe impl Sync for ParamDesc {}
// SAFETY: as above.
unsafe impl Sync for AlgorithmDesc {}
