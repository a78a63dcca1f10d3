//! The node suite (node ABI version 1): graph node kinds from a plugin library.
//!
//! A library exports [`NODE_ENTRY_SYMBOL`] (type [`NodeEntryFn`]) beside, or instead of, the
//! solver entry [`crate::ENTRY_SYMBOL`]; the two tables are versioned separately, so a solver
//! plugin without the node entry loads exactly as before and a node-only library needs no solver
//! table. The node table starts with the same [`PluginHeader`] layout as the solver table, with
//! `abi_version = NODE_ABI_VERSION`, `table_size = size_of::<NodeTable>()` and
//! `api = "flipgraph.node"` ([`NODE_API`]); the host checks these first, as for solvers.
//!
//! # What a node kind declares ([`NodeKindDesc`])
//! A kind name (`[a-z0-9_]{1,32}`, unique in the library; the graph names the kind
//! `<plugin id>/<kind name>`, and a kind name equal to a built-in node's is refused), a label,
//! a palette category, a help text, its ports ([`PortDesc`]: name, direction, one data kind of
//! the fixed, append-only list `DATA_*`, flags) and its parameters (the solver suite's
//! [`ParamDesc`] records, validated by the same rules, with no reserved names).
//!
//! # Data views (no allocation crosses the boundary)
//! `eval` gets one [`PortData`] per declared port, inputs then outputs, in declaration order.
//! Every array is allocated by the host: inputs are read-only views valid during the call;
//! outputs are writable views of buffers the host allocated at their final size (grid sizes
//! from the grid, particle counts from the input the output is [`PORT_FROM_INPUT`]). An output
//! with [`PORT_FROM_INPUT`] starts as the value of the input of the same name and kind (the
//! usual "modify in place" node, with no copy when nothing else reads that value); that input
//! is then passed absent (`present = 0`), so no input view aliases an output: read the output.
//! Without the flag, a grid output starts zeroed. Index order of every
//! grid array is `i + ni·(j + nj·k)`; `nk = 1` in 2D. Velocity components live on faces:
//! `u` has `(ni+1)·nj·nk` entries, `v` `ni·(nj+1)·nk`, `w` `ni·nj·(nk+1)` (in 2D `w` has
//! `ni·nj·2` entries and is ignored).
//!
//! # Checks the host makes after `eval` (post-conditions it does not trust)
//! Every float of every output is finite; particle outputs keep the input's count and ids
//! (`ids` is a read-only view, and the host compares it after the call); cell kinds are one
//! of `CELL_*`; nothing was written past the end of an output array (the host places a guard
//! region of bytes filled with a canary pattern right after each written output array and
//! checks it). A failing check fails the run naming the plugin, the kind and the port.
//!
//! # Isolation
//! With the node's `isolation = "process"` the host runs the library in a child process:
//! `create`, `eval`, `reset` and the state entries are called there, on views of shared memory
//! the host copied the inputs into (read-only mappings for inputs, ids and valid-face masks).
//! The contract is the same; a plugin cannot tell, except that a write to a read-only view
//! kills the child instead of being caught by the checks.
#![allow(non_camel_case_types)]

use crate::{ErrorBuf, HostServices, ParamDesc, ParamValue, PluginHeader};
use std::ffi::{c_char, c_void};

/// Version of the node suite. Independent of [`crate::ABI_VERSION`]: bumped on any layout change
/// of a type in this module.
pub const NODE_ABI_VERSION: u32 = 1;
/// The API the node table implements.
pub const NODE_API: &[u8] = b"flipgraph.node\0";
/// Name of the node suite's entry symbol.
pub const NODE_ENTRY_SYMBOL: &[u8] = b"flipgraph_node_entry\0";

/// Most node kinds one library may offer.
pub const MAX_NODE_KINDS: u32 = 64;
/// Most ports (inputs and outputs together) of one node kind.
pub const MAX_PORTS: u32 = 16;

/// Data kind of a port. Append-only: a number keeps its meaning forever.
pub type DataKindTag = u32;
/// Marker particles: positions, velocities and ids ([`ParticlesView`]).
pub const DATA_PARTICLES: DataKindTag = 0;
/// MAC face velocity with its valid-face masks ([`FaceVelocityView`]).
pub const DATA_FACE_VELOCITY: DataKindTag = 1;
/// A scalar field on cells ([`CellFieldView`]).
pub const DATA_CELL_SCALAR: DataKindTag = 2;
/// The liquid's signed distance on cells, negative inside ([`CellFieldView`]).
pub const DATA_LEVEL_SET: DataKindTag = 3;
/// Cell kinds, one of `CELL_*` per cell ([`CellKindsView`]).
pub const DATA_CELL_KINDS: DataKindTag = 4;
/// Solids as their signed distance at cell centres, negative inside ([`CellFieldView`]). Input
/// only.
pub const DATA_SOLIDS_SDF: DataKindTag = 5;
/// Number of data kinds of this version; tags at or above it are refused.
pub const DATA_KIND_COUNT: u32 = 6;

/// A cell of liquid.
pub const CELL_FLUID: u8 = 0;
/// A cell of air.
pub const CELL_AIR: u8 = 1;
/// A solid cell.
pub const CELL_SOLID: u8 = 2;

/// Port direction: read by the node.
pub const PORT_INPUT: u32 = 0;
/// Port direction: written by the node.
pub const PORT_OUTPUT: u32 = 1;

/// Port flag (inputs): the graph may leave it unconnected; its [`PortData::present`] is 0 then.
pub const PORT_OPTIONAL: u32 = 1;
/// Port flag (outputs): starts as the value of the required input of the same name and kind,
/// which `eval` then sees absent (the output holds it). Required for particle outputs (the
/// host sizes them by that input).
pub const PORT_FROM_INPUT: u32 = 2;
/// Every port flag of this version; the others are reserved and must be zero.
pub const PORT_FLAGS_ALL: u32 = PORT_OPTIONAL | PORT_FROM_INPUT;

/// Description of one port.
#[repr(C)]
pub struct PortDesc {
    /// Name, `[a-z0-9_]{1,32}`, unique among the kind's ports of the same direction.
    pub name: *const c_char,
    /// One-sentence help.
    pub help: *const c_char,
    /// [`PORT_INPUT`] or [`PORT_OUTPUT`].
    pub direction: u32,
    /// One of the `DATA_*` tags.
    pub data_kind: DataKindTag,
    /// `PORT_*` flags.
    pub flags: u32,
}

/// Description of one node kind.
#[repr(C)]
pub struct NodeKindDesc {
    /// Kind name, `[a-z0-9_]{1,32}`; not a built-in node's kind.
    pub name: *const c_char,
    /// Editor label.
    pub label: *const c_char,
    /// Palette category (`"Forces"`).
    pub category: *const c_char,
    /// One-paragraph help text, citing the method.
    pub help: *const c_char,
    /// Ports (null only when `port_count` is 0): at least one output.
    pub ports: *const PortDesc,
    /// Number of ports (at most [`MAX_PORTS`]).
    pub port_count: u32,
    /// Parameter schemas, as for solver algorithms (null only when `param_count` is 0).
    pub params: *const ParamDesc,
    /// Number of parameters (at most [`crate::MAX_PARAMS`]).
    pub param_count: u32,
    /// The largest acceleration the node adds (m/s²), for the time-step bound; 0 when unknown.
    pub acceleration_hint: f64,
}

/// Particles: `count` particles, positions and velocities as `3·count` floats (x, y, z per
/// particle; z = 0 in 2D), ids as `count` integers (null when the particles carry no ids).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ParticlesView {
    /// Number of particles.
    pub count: u64,
    /// Positions in metres (`3·count`); writable in outputs.
    pub position: *mut f32,
    /// Velocities in m/s (`3·count`); writable in outputs.
    pub velocity: *mut f32,
    /// Ids (`count`, or null): read-only even in outputs (the host checks them).
    pub ids: *const u64,
}

/// MAC face velocity on a grid of `dims` cells, and which faces hold valid values (1) (from
/// particles, the projection or extrapolation).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct FaceVelocityView {
    /// Cells per axis (`nk = 1` in 2D).
    pub dims: [u32; 3],
    /// x components on x faces (`(ni+1)·nj·nk`).
    pub u: *mut f32,
    /// y components on y faces (`ni·(nj+1)·nk`).
    pub v: *mut f32,
    /// z components on z faces (`ni·nj·(nk+1)`).
    pub w: *mut f32,
    /// Valid-face masks, same lengths as the components; read-only even in outputs (an output
    /// keeps its input's masks).
    pub valid_u: *const u8,
    /// As `valid_u`, for `v`.
    pub valid_v: *const u8,
    /// As `valid_u`, for `w`.
    pub valid_w: *const u8,
}

/// A scalar per cell (`ni·nj·nk` floats): a scalar field, a level set, a solid's distance.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CellFieldView {
    /// Cells per axis.
    pub dims: [u32; 3],
    /// Values (`ni·nj·nk`); writable in outputs.
    pub data: *mut f32,
}

/// A cell kind per cell (`ni·nj·nk` bytes, each one of `CELL_*`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CellKindsView {
    /// Cells per axis.
    pub dims: [u32; 3],
    /// Kinds (`ni·nj·nk`); writable in outputs.
    pub data: *mut u8,
}

/// The value of one port in an `eval` call. Exactly the member its kind names is meaningful.
#[repr(C)]
#[derive(Clone, Copy)]
pub union PortViewUnion {
    /// [`DATA_PARTICLES`].
    pub particles: ParticlesView,
    /// [`DATA_FACE_VELOCITY`].
    pub velocity: FaceVelocityView,
    /// [`DATA_CELL_SCALAR`], [`DATA_LEVEL_SET`], [`DATA_SOLIDS_SDF`].
    pub field: CellFieldView,
    /// [`DATA_CELL_KINDS`].
    pub cells: CellKindsView,
}

/// One port's data in an `eval` call.
#[repr(C)]
pub struct PortData {
    /// The port's `DATA_*` tag (as declared).
    pub data_kind: DataKindTag,
    /// 1 when the port has a value; 0 for an unconnected optional input and for an input whose
    /// value an output [`PORT_FROM_INPUT`] holds (then `view` is zeroed).
    pub present: u32,
    /// The view of the kind `data_kind` names.
    pub view: PortViewUnion,
}

/// What the host tells a node about the step being evaluated.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeContext {
    /// Cells per axis (`nk = 1` in 2D).
    pub dims: [u32; 3],
    /// 2 or 3.
    pub dimension: u32,
    /// Cell size in metres.
    pub dx: f32,
    /// This substep's time step in seconds.
    pub dt: f32,
    /// Simulation time at the start of the substep, seconds.
    pub time: f64,
    /// Substep counter since the start (seed randomness with it, never with a clock).
    pub step: u64,
    /// Frame being simulated (0-based).
    pub frame: u32,
    /// Reserved, zero.
    pub reserved: u32,
}

/// Signature of [`NODE_ENTRY_SYMBOL`].
///
/// Pre: called once per load on the host's loading thread (or in a probe child), possibly after
/// the solver entry of the same library.
/// Post: returns a non-null pointer to a [`NodeTable`] that stays valid and unchanged while the
/// library is loaded; no other side effects.
pub type NodeEntryFn = unsafe extern "C" fn() -> *const NodeTable;

/// `describe`: fills `out` with node kind `index`'s description.
///
/// Pre: `index < kind_count`; `out` is valid for one write and zeroed by the host. Any thread,
/// possibly concurrently.
/// Post: on [`crate::STATUS_OK`], `*out` is filled; its strings and arrays stay valid and
/// unchanged while the library is loaded and satisfy the limits of [`NodeKindDesc`],
/// [`PortDesc`] and [`ParamDesc`] (the host refuses the library otherwise).
pub type NodeDescribeFn = unsafe extern "C" fn(index: u32, out: *mut NodeKindDesc) -> i32;

/// `create`: an instance of node kind `index` with resolved parameters.
///
/// Pre and post: as the solver suite's [`crate::CreateFn`] (parameters by name, missing ones
/// mean their defaults, unknown names are [`crate::STATUS_BAD_VALUE`]; `*instance` written only
/// on success).
pub type NodeCreateFn = unsafe extern "C" fn(
    index: u32,
    params: *const ParamValue,
    param_count: u32,
    services: *const HostServices,
    instance: *mut *mut c_void,
    error: *mut ErrorBuf,
) -> i32;

/// `eval`: evaluates one substep.
///
/// Pre: `instance` came from `create` of this table, is alive and not in use on another thread;
/// `context` is valid for reads; `ports` points to `port_count` entries, one per declared port,
/// inputs and outputs in declaration order, each of its declared kind; every present view's
/// arrays have the lengths their kind documents for `context.dims` (particles: their `count`);
/// input arrays are read-only, output arrays writable. Everything is valid during the call only.
/// Post: on [`crate::STATUS_OK`], every output holds the node's result: finite, ids and counts
/// untouched, cell kinds valid, and nothing written outside the output arrays' documented
/// lengths (the host checks each, a guard of canary bytes after every output array included,
/// and fails the run otherwise). The plugin keeps
/// no pointer into `ports`, `context` or `services`. On an error status the outputs are
/// discarded and `error` says why.
/// Returns [`crate::STATUS_OK`], [`crate::STATUS_FAILED`], [`crate::STATUS_BAD_VALUE`],
/// [`crate::STATUS_CANCELLED`] or [`crate::STATUS_PANIC`] (never called again afterwards).
pub type NodeEvalFn = unsafe extern "C" fn(
    instance: *mut c_void,
    context: *const NodeContext,
    ports: *const PortData,
    port_count: u32,
    services: *const HostServices,
    error: *mut ErrorBuf,
) -> i32;

/// The node suite's function table. Reached only through [`NODE_ENTRY_SYMBOL`]. Required:
/// `describe`, `create`, `eval`, `destroy`, `reset`; `state_size`, `save_state`, `load_state`
/// are all three or none. `destroy`, `reset` and the state entries have the solver suite's
/// contracts ([`crate::DestroyFn`], [`crate::ResetFn`], [`crate::StateSizeFn`],
/// [`crate::SaveStateFn`], [`crate::LoadStateFn`]) on node instances.
#[repr(C)]
pub struct NodeTable {
    /// Identity and version; `abi_version` is [`NODE_ABI_VERSION`], `api` is [`NODE_API`].
    pub header: PluginHeader,
    /// Number of node kinds (1 to [`MAX_NODE_KINDS`]).
    pub kind_count: u32,
    /// Required.
    pub describe: Option<NodeDescribeFn>,
    /// Required.
    pub create: Option<NodeCreateFn>,
    /// Required.
    pub eval: Option<NodeEvalFn>,
    /// Required.
    pub destroy: Option<crate::DestroyFn>,
    /// Required (a stateless node returns [`crate::STATUS_OK`]).
    pub reset: Option<crate::ResetFn>,
    /// Optional, with `save_state` and `load_state`.
    pub state_size: Option<crate::StateSizeFn>,
    /// Optional (see `state_size`).
    pub save_state: Option<crate::SaveStateFn>,
    /// Optional (see `state_size`).
    pub load_state: Option<crate::LoadStateFn>,
}

// SAFETY: only function pointers and pointers to 'static strings that are never written.
unsafe impl Sync for NodeTable {}
// SAFETY: as above, for descriptions built into statics.
unsafe impl Sync for NodeKindDesc {}
// SAFETY: as above.
unsafe impl Sync for PortDesc {}
