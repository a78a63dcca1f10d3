//! The versioned C ABI between the flipgraph host and a pressure-solver plugin (version 2).
//!
//! This crate is the whole contract, read like a C header set (cf. OpenFX's `ofxCore.h`): every
//! `#[repr(C)]` type, every function-pointer type with its **pre-conditions** (what the caller
//! guarantees: pointer validity, lengths, threads, lifetimes) and **post-conditions** (what the
//! callee guarantees on return), every constant. It has no dependencies. Plugin authors use it
//! through the safe wrappers of `flip-sdk`; the host's side is `flip-host`.
//!
//! # Loading
//! A plugin is a `cdylib` exporting one symbol, [`ENTRY_SYMBOL`], of type [`EntryFn`], in a
//! file named `{DLL_PREFIX}flipgraph_<id>{DLL_SUFFIX}` (`libflipgraph_pcg.so`: the library of a
//! Cargo package `flipgraph-<id>`); the host skips other names, with a warning in the user's
//! folders. The entry returns a pointer to a static [`PluginTable`] whose first field is a
//! [`PluginHeader`].
//!
//! # Versioning (checked first)
//! - The host reads `header.abi_version` and `header.table_size` before it touches anything
//!   else and refuses the library on a mismatch. The header's layout is the same in every
//!   version, so a plugin built for ABI 1 is refused with a "rebuild against ABI 2" message.
//! - Bump [`ABI_VERSION`] on *any* layout change of a type in this crate (a field added,
//!   removed, reordered or retyped). Tables are append-only within a version only where a
//!   `size` field says which entries are present ([`HostServices`], [`DistributedSuite`]).
//! - Bits and tags are append-only: a new `CAP_*` bit, `PROBLEM_*` kind or `ROW_*` flag keeps
//!   its number forever, every unused bit is reserved and must be zero (the host refuses others,
//!   [`CAP_ALL`], [`ROW_FLAGS_ALL`]), and the host never hands an algorithm a problem kind it
//!   does not list, so older plugins keep working.
//! - Fields named `reserved` are zero and may gain a meaning in a later version.
//!
//! # Reserved parameter names
//! [`RESERVED_PARAM_NAMES`] is the one list of parameter names that belong to the solving node
//! (which solver, boundary and geometry options, warm start, time limit, problem dumps,
//! isolation, fallback). No algorithm may declare one; the host refuses a library that does.
//!
//! # Conventions shared by every call
//! - Strings are NUL-terminated UTF-8 owned by the side that created them. Strings in the table
//!   and in descriptions are `'static` in the plugin and at most [`MAX_TEXT_LEN`] bytes (help
//!   texts [`MAX_HELP_LEN`]). Ids (plugin, algorithm) match `[a-z0-9_-]{1,32}`
//!   ([`crate::text::is_valid_id`]); parameter names match `[a-z0-9_]{1,32}`.
//! - Grid arrays are dense, x fastest: `index = i + ni * (j + nj * k)`; 2D problems have `nk = 1`.
//! - Status codes: [`STATUS_OK`] and friends. A failing call writes a message into the
//!   [`ErrorBuf`] it was given. Panics never cross the boundary (the SDK catches them and returns
//!   [`STATUS_PANIC`]).
//! - Views handed to a call (problems, host services, parameter lists) are valid only during that
//!   call; a plugin must not keep them.
//! - Every function pointer is nullable (`Option<fn>`). Required entries: `describe`, `create`,
//!   `solve`, `destroy`, `reset`. Optional: `state_size`, `save_state`, `load_state` (all three or
//!   none). The host refuses a table that breaks this at load, naming the file and the entry.
//!
//! # Thread safety (what the host relies on)
//! - The entry symbol, `describe` and `create` may be called from any thread, also concurrently
//!   (the host loads plugins on one thread but creates instances from the simulation's worker
//!   threads, one per pressure node).
//! - One instance is used by one thread at a time: the host never calls `solve`, `reset`,
//!   `save_state`, `load_state` or `destroy` on the same instance concurrently, but successive
//!   calls may come from different threads (instances must be `Send`). Different instances may
//!   be used concurrently (two pressure nodes on the same dependency level).
//! - A plugin keeps no global mutable state without its own locking. The SDK's descriptions are
//!   built once behind a `OnceLock`; everything else lives in the instance.
//! - Host-service callbacks ([`HostServices`]) may be called from the thread the host called into
//!   and from threads the plugin spawned for that call, until the call returns.
//!
//! # Problem kinds
//! `solve` takes a kind tag and a pointer: [`PROBLEM_STRUCTURED`] ([`PressureProblem`], the
//! 5/7-point stencil on a grid), [`PROBLEM_CSR`] ([`CsrProblem`], a general sparse matrix) or
//! [`PROBLEM_TALLCELL`] ([`TallCellProblem`], a CSR problem with its tall-cell geometry) or
//! [`PROBLEM_VISCOSITY`] ([`ViscosityProblem`], the implicit viscosity system on the face
//! velocities with its grid) or [`PROBLEM_COUPLED`] ([`CoupledProblem`], the structured problem
//! plus the rigid bodies' low-rank terms). An algorithm lists the kinds it accepts in its
//! capability bits ([`CAP_STRUCTURED`], [`CAP_CSR`], [`CAP_TALLCELL`], [`CAP_VISCOSITY`],
//! [`CAP_COUPLED`]); the host never hands
//! it another kind. Each problem type
//! documents its layout: index order, which cells or rows are unknowns, the signs of the
//! matrix entries and of the right-hand side, and the array lengths.
//!
//! # Call sequence of an instance
//! `create` → (`solve` | `reset` | `state_size` → `save_state` | `load_state`)* → `destroy`.
//! `reset` and `load_state` may come at any point between solves (a rerun from frame 0, a
//! resumed run). After [`STATUS_PANIC`] from any call the host calls nothing on the instance
//! again, not even `destroy` (its memory may be leaked).
//!
//! # Node plugins
//! A library may also (or only) export graph node kinds through the node suite, [`node`]: its
//! own entry symbol ([`node::NODE_ENTRY_SYMBOL`]) and version ([`node::NODE_ABI_VERSION`]), so
//! the solver table above is unchanged and solver plugins load as before.
#![allow(non_camel_case_types)]

mod coupled;
mod distributed;
/// The node suite: graph node kinds from a plugin library (its own entry and version).
pub mod node;
mod problem;
mod services;
/// Text rules: the id alphabet, and sanitising untrusted text for display.
pub mod text;
mod viscosity;

pub use coupled::*;
pub use distributed::*;
pub use problem::*;
pub use services::*;
pub use viscosity::*;

pub use text::sanitize;

use std::ffi::{c_char, c_void};

/// Version of this ABI. The host refuses plugins built for another version.
pub const ABI_VERSION: u32 = 2;
/// The API a plugin table implements (cf. OpenFX `pluginApi`).
pub const PRESSURE_SOLVER_API: &[u8] = b"flipgraph.pressure_solver\0";
/// Name of the one exported entry symbol.
pub const ENTRY_SYMBOL: &[u8] = b"flipgraph_plugin_entry\0";

/// Most algorithms one plugin may offer.
pub const MAX_ALGORITHMS: u32 = 256;
/// Most parameters one algorithm may have.
pub const MAX_PARAMS: u32 = 64;
/// Most choices one choice parameter may have.
pub const MAX_CHOICES: u32 = 64;
/// Longest id, name, label, version or choice label, in bytes.
pub const MAX_TEXT_LEN: usize = 256;
/// Longest help text, in bytes.
pub const MAX_HELP_LEN: usize = 4096;
/// Longest id (plugin, algorithm, parameter), in bytes.
pub const MAX_ID_LEN: usize = 32;

/// Success.
pub const STATUS_OK: i32 = 0;
/// The call failed; the error buffer says why.
pub const STATUS_FAILED: i32 = 1;
/// The plugin panicked; the instance must not be used again.
pub const STATUS_PANIC: i32 = 2;
/// The solve stopped early because [`HostServices::cancelled`] said so; `pressure` holds an
/// unfinished iterate that the host discards.
pub const STATUS_CANCELLED: i32 = 3;
/// The algorithm cannot handle this problem (e.g. an LCP handed to a linear-only solver, or a
/// problem kind it does not accept).
pub const STATUS_UNSUPPORTED: i32 = 5;
/// A parameter value, problem field or saved state is invalid.
pub const STATUS_BAD_VALUE: i32 = 11;

/// Signature of [`ENTRY_SYMBOL`].
///
/// Pre: called once per load, on the host's loading thread (or in a probe child process),
/// before anything else of the library.
/// Post: returns a non-null pointer to a [`PluginTable`] that stays valid and unchanged while
/// the library is loaded; no other side effects (no threads started, no files written).
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// First field of every plugin table, in every ABI version. Never reorder or remove fields.
#[repr(C)]
pub struct PluginHeader {
    /// [`ABI_VERSION`] the plugin was built against. Checked first.
    pub abi_version: u32,
    /// `size_of::<PluginTable>()` in the plugin, for a second layout check.
    pub table_size: u32,
    /// API implemented: [`PRESSURE_SOLVER_API`].
    pub api: *const c_char,
    /// Stable plugin id, `[a-z0-9_-]{1,32}`: `"pcg"`, `"multigrid"`.
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

/// Parameter names that belong to the solving node itself (which solver, its boundary and
/// geometry options, warm starts, limits, problem dumps, isolation, fallback): no algorithm may
/// declare them, and the host refuses a library that does.
pub const RESERVED_PARAM_NAMES: &[&str] = &[
    "solver",
    "boundary",
    "geometry",
    "warm_start",
    "time_limit",
    "dump_problems",
    "isolation",
    "fallback_solver",
];

/// Schema of one algorithm parameter (cf. OpenFX `kOfxParamProp*`).
///
/// Validated at load: `min <= max`, `default` finite and in `[min, max]`, integral bounds and
/// default for int/bool/choice, `min = 0` and `max = choice_count - 1` for choices, a name that
/// is not one of [`RESERVED_PARAM_NAMES`].
#[repr(C)]
pub struct ParamDesc {
    /// Identifier used in graphs, `[a-z0-9_]{1,32}`.
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
    /// Number of entries in `choices` (at most [`MAX_CHOICES`]).
    pub choice_count: u32,
}

/// Capability bit: solves the linear system `A p = rhs`.
pub const CAP_LINEAR: u32 = 1;
/// Capability bit: solves the LCP `0 <= p ⊥ A p - rhs >= 0` on flagged cells.
pub const CAP_LCP: u32 = 2;
/// Capability bit: accepts [`PROBLEM_STRUCTURED`] problems.
pub const CAP_STRUCTURED: u32 = 4;
/// Capability bit: accepts [`PROBLEM_CSR`] problems.
pub const CAP_CSR: u32 = 8;
/// Capability bit: accepts [`PROBLEM_TALLCELL`] problems (appended in ABI 2: bits and kinds
/// are only ever appended, and a host never hands an algorithm a kind it does not list).
pub const CAP_TALLCELL: u32 = 16;
/// Capability bit: accepts [`PROBLEM_VISCOSITY`] problems (appended like [`CAP_TALLCELL`];
/// the next free bit after [`CAP_SAVES_STATE`]).
pub const CAP_VISCOSITY: u32 = 128;
/// Capability bit: accepts [`PROBLEM_COUPLED`] problems (appended like [`CAP_VISCOSITY`]; the
/// next free bit).
pub const CAP_COUPLED: u32 = 256;
/// Every problem-kind capability bit.
pub const CAP_KINDS: u32 = CAP_STRUCTURED | CAP_CSR | CAP_TALLCELL | CAP_VISCOSITY | CAP_COUPLED;
/// Capability bit: solves structured problems on one rank's slab through the
/// [`SUITE_DISTRIBUTED`] suite (see [`DistributedSuite`]); requires [`CAP_STRUCTURED`]. The host
/// refuses an algorithm without it in a distributed run (appended in ABI 2, like
/// [`CAP_TALLCELL`]).
pub const CAP_DISTRIBUTED: u32 = 32;
/// Capability bit: instances keep learned state that changes later results (a policy, a
/// penalty set) and save it through `save_state`, so a resumed run continues bit for bit.
/// Requires the state entries of [`PluginTable`]. An algorithm without it keeps nothing that
/// `reset` would not rebuild identically; the host reports it as keeping no state (appended in
/// ABI 2, like [`CAP_TALLCELL`]).
pub const CAP_SAVES_STATE: u32 = 64;
/// Every capability bit of this version; the others are reserved and must be zero.
pub const CAP_ALL: u32 = CAP_LINEAR | CAP_LCP | CAP_KINDS | CAP_DISTRIBUTED | CAP_SAVES_STATE;

/// Description of one algorithm a plugin offers.
#[repr(C)]
pub struct AlgorithmDesc {
    /// Identifier `[a-z0-9_-]{1,32}`, as in the Lai et al. tables: `"mic0-pcg"`, `"fas-mg"`.
    pub name: *const c_char,
    /// Label for the editor.
    pub label: *const c_char,
    /// One-paragraph help text, citing the method.
    pub help: *const c_char,
    /// `CAP_*` bits: at least one of linear/LCP and at least one problem kind.
    pub capabilities: u32,
    /// Parameter schemas (null only when `param_count` is 0).
    pub params: *const ParamDesc,
    /// Number of parameters (at most [`MAX_PARAMS`]).
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

/// What a solve reports. Non-convergence is not an error: `converged = 0` with [`STATUS_OK`].
///
/// The host checks the claim: it recomputes the residual of the returned pressure (projected on
/// pure-Neumann regions, the LCP residual for LCPs) and refuses a result whose true residual
/// exceeds the reported one beyond rounding, or that is not finite.
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

/// `describe`: fills `out` with algorithm `index`'s description.
///
/// Pre: `index < algorithm_count`; `out` is valid for one write of an [`AlgorithmDesc`] and
/// zeroed by the host. Any thread, possibly concurrently.
/// Post: on [`STATUS_OK`], `*out` is filled: its strings and arrays stay valid and unchanged
/// while the library is loaded, and it satisfies the limits of [`AlgorithmDesc`] and
/// [`ParamDesc`] (the host refuses the library otherwise, and a description whose name is still
/// null). Returns [`STATUS_OK`], or [`STATUS_BAD_VALUE`] for an index out of range.
pub type DescribeFn = unsafe extern "C" fn(index: u32, out: *mut AlgorithmDesc) -> i32;

/// `create`: a solver instance for algorithm `index` with resolved parameters.
///
/// Pre: `index < algorithm_count`; `params` points to `param_count` values (null when 0) whose
/// names are NUL-terminated and valid during the call; missing parameters mean their defaults.
/// The values come from the user's graph: the plugin checks names and ranges itself (the SDK
/// does).
/// `services` is valid during the call (may be used for logging); `instance` and `error` are
/// valid for writes. Any thread, possibly concurrently.
/// Post: on [`STATUS_OK`], `*instance` is a non-null handle for the instance calls, owned by
/// the host until it passes it to `destroy`; the plugin keeps no pointer into `params` or
/// `services`. Otherwise `*instance` is untouched and `error` holds the reason (a name not in
/// the schema is [`STATUS_BAD_VALUE`]).
/// Returns [`STATUS_OK`], [`STATUS_BAD_VALUE`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
pub type CreateFn = unsafe extern "C" fn(
    index: u32,
    params: *const ParamValue,
    param_count: u32,
    services: *const HostServices,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
) -> i32;

/// `solve`: solves `problem` (of kind `kind`, a `PROBLEM_*` tag) in place, filling `stats`.
///
/// Pre: `instance` came from `create`, was not destroyed and is not in use on another thread;
/// `kind` is one the algorithm's capabilities list and `problem` points to that kind's struct;
/// every array of the problem is non-null (except those documented as nullable), has the
/// length its kind documents and satisfies its layout rules; input arrays are read-only and
/// only `pressure` is written. `problem`, its arrays and `services` are valid during the call
/// only; `stats` and `error` are valid for writes.
/// Post: on [`STATUS_OK`], `pressure` holds the solution (finite, zero-mean on pure-Neumann
/// regions) and `stats` reports it truthfully: the host recomputes the residual and refuses a
/// result that claims more than it achieved. Non-convergence is [`STATUS_OK`] with
/// `converged = 0`. On [`STATUS_CANCELLED`] (returned after `services.cancelled` said so,
/// polled about once per iteration) `pressure` holds an unfinished iterate the host discards.
/// The plugin keeps no pointer into the problem or `services`. The instance may keep learned
/// state for the next call (hierarchies, policies).
/// Returns [`STATUS_OK`], [`STATUS_CANCELLED`], [`STATUS_UNSUPPORTED`], [`STATUS_BAD_VALUE`],
/// [`STATUS_FAILED`] or [`STATUS_PANIC`].
pub type SolveFn = unsafe extern "C" fn(
    instance: *mut c_void,
    kind: u32,
    problem: *const c_void,
    services: *const HostServices,
    stats: *mut SolveStats,
    error: *mut ErrorBuf,
) -> i32;

/// `destroy`: destroys an instance.
///
/// Pre: `instance` came from `create`, was not destroyed and is not in use; the host calls
/// nothing on it afterwards.
/// Post: every resource of the instance (memory, threads) is released. Cannot fail.
pub type DestroyFn = unsafe extern "C" fn(instance: *mut c_void);

/// `reset`: forgets everything learned from earlier solves (warm policies, hierarchies,
/// factorisations).
///
/// Pre: as for `solve` (a live instance, one thread at a time); `error` is valid for writes.
/// Post: on [`STATUS_OK`], the next solve equals that of a freshly created instance with the
/// same parameters, bit for bit (a stateless plugin just returns [`STATUS_OK`]).
/// Returns [`STATUS_OK`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
pub type ResetFn = unsafe extern "C" fn(instance: *mut c_void, error: *mut ErrorBuf) -> i32;

/// `state_size` (optional): bytes `save_state` needs now.
///
/// Pre: as for `reset`; `size` is valid for one write. Called right before `save_state`.
/// Post: on [`STATUS_OK`], `*size` is the length the following `save_state` writes (at most
/// 4 GiB; the host refuses more).
pub type StateSizeFn =
    unsafe extern "C" fn(instance: *mut c_void, size: *mut u64, error: *mut ErrorBuf) -> i32;

/// `save_state` (optional): writes the opaque state (what a resumed run needs to continue bit
/// for bit).
///
/// Pre: as for `reset`; `data` is valid for writes of `capacity` bytes (the size the
/// preceding `state_size` reported), `written` for one write.
/// Post: on [`STATUS_OK`], `data[..*written]` holds the state, `*written <= capacity`, and the
/// instance is unchanged. [`STATUS_BAD_VALUE`] when `capacity` is too small. The bytes are
/// opaque to the host, which stores them in checkpoints and hands them back to `load_state` of
/// the same plugin and algorithm, possibly in another process.
pub type SaveStateFn = unsafe extern "C" fn(
    instance: *mut c_void,
    data: *mut u8,
    capacity: u64,
    written: *mut u64,
    error: *mut ErrorBuf,
) -> i32;

/// `load_state` (optional): replaces everything learned by a state saved by the same plugin
/// and algorithm.
///
/// Pre: as for `reset`; `data` is readable for `len` bytes during the call (may be null when
/// `len` is 0).
/// Post: on [`STATUS_OK`], the following solves equal those of the instance that saved the
/// state, bit for bit. [`STATUS_BAD_VALUE`] for a state it does not recognise.
pub type LoadStateFn = unsafe extern "C" fn(
    instance: *mut c_void,
    data: *const u8,
    len: u64,
    error: *mut ErrorBuf,
) -> i32;

/// The function table a plugin exports. Reached only through [`ENTRY_SYMBOL`].
#[repr(C)]
pub struct PluginTable {
    /// Identity and version; checked before anything else.
    pub header: PluginHeader,
    /// Number of algorithms (at most [`MAX_ALGORITHMS`]); valid indices are
    /// `0..algorithm_count`.
    pub algorithm_count: u32,
    /// Required.
    pub describe: Option<DescribeFn>,
    /// Required.
    pub create: Option<CreateFn>,
    /// Required.
    pub solve: Option<SolveFn>,
    /// Required.
    pub destroy: Option<DestroyFn>,
    /// Required (a stateless plugin returns [`STATUS_OK`]).
    pub reset: Option<ResetFn>,
    /// Optional, with `save_state` and `load_state`: all three or none. Without them a resumed
    /// run re-creates the instance (the host says so).
    pub state_size: Option<StateSizeFn>,
    /// Optional (see `state_size`).
    pub save_state: Option<SaveStateFn>,
    /// Optional (see `state_size`).
    pub load_state: Option<LoadStateFn>,
}

// SAFETY: the table holds only function pointers and pointers to 'static NUL-terminated strings
// that are never written, so sharing it between threads is sound.
unsafe impl Sync for PluginTable {}
// SAFETY: as above, for descriptions built into statics.
unsafe impl Sync for ParamDesc {}
// SAFETY: as above.
unsafe impl Sync for AlgorithmDesc {}
