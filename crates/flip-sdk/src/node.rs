//! Node plugins without `unsafe`: describe node kinds ([`NodeKind`], [`Port`]), implement
//! [`NodePlugin`] and [`NodeInstance`], export them with [`crate::export_node_plugin!`].
//!
//! ```text
//! struct Forces;
//! impl flip_sdk::node::NodePlugin for Forces {
//!     const KINDS: &'static [NodeKind] = &[/* … */];
//!     fn create(kind: &NodeKind, params: &Params) -> Result<Box<dyn NodeInstance>, SolveError> { … }
//! }
//! flip_sdk::export_node_plugin!(Forces, "forces", "Force fields");
//! ```
//!
//! `eval` reads its inputs and writes its outputs through [`NodeIo`]'s typed views of the
//! host's buffers ([`FaceVelocityMut`], [`ParticlesMut`], [`CellField`], …): no allocation
//! crosses the boundary. A panic in `eval` is caught and reported to the host, which names the
//! plugin and the node.

/// Shims behind the exported C functions (used by the macro only).
#[doc(hidden)]
pub mod ffi;
mod views;

pub use views::{
    CellField, CellFieldMut, CellKinds, CellKindsMut, Context, FaceVelocity, FaceVelocityMut,
    NodeIo, Particles, ParticlesMut,
};

use crate::{ParamSchema, Params, SolveError, StateReader, StateWriter};
use flip_abi::node as abi;

/// The data kind of a port, mirrored to `abi::node::DATA_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// Marker particles: positions, velocities, ids.
    Particles,
    /// MAC face velocity with valid-face masks.
    FaceVelocity,
    /// A scalar per cell.
    CellScalar,
    /// The liquid's signed distance per cell.
    LevelSet,
    /// Fluid, air or solid per cell.
    CellKinds,
    /// The solids' signed distance per cell (input only).
    SolidsSdf,
}

impl DataKind {
    /// The ABI tag.
    pub const fn tag(self) -> u32 {
        match self {
            Self::Particles => abi::DATA_PARTICLES,
            Self::FaceVelocity => abi::DATA_FACE_VELOCITY,
            Self::CellScalar => abi::DATA_CELL_SCALAR,
            Self::LevelSet => abi::DATA_LEVEL_SET,
            Self::CellKinds => abi::DATA_CELL_KINDS,
            Self::SolidsSdf => abi::DATA_SOLIDS_SDF,
        }
    }
}

/// Whether a port is read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Read by the node.
    Input,
    /// Written by the node.
    Output,
}

/// One port of a node kind.
#[derive(Clone, Copy, Debug)]
pub struct Port {
    /// `[a-z0-9_]{1,32}`, unique per direction.
    pub name: &'static str,
    /// One-sentence help.
    pub help: &'static str,
    /// Input or output.
    pub direction: Direction,
    /// What it carries.
    pub kind: DataKind,
    /// `abi::node::PORT_*` flags.
    pub flags: u32,
}

impl Port {
    /// A required input.
    pub const fn input(name: &'static str, kind: DataKind, help: &'static str) -> Self {
        Self {
            name,
            help,
            direction: Direction::Input,
            kind,
            flags: 0,
        }
    }
    /// An input the graph may leave unconnected.
    pub const fn optional(name: &'static str, kind: DataKind, help: &'static str) -> Self {
        Self {
            flags: abi::PORT_OPTIONAL,
            ..Self::input(name, kind, help)
        }
    }
    /// An output the host zeroes before `eval` (grids only).
    pub const fn output(name: &'static str, kind: DataKind, help: &'static str) -> Self {
        Self {
            name,
            help,
            direction: Direction::Output,
            kind,
            flags: 0,
        }
    }
    /// An output that starts as the value of the input of the same name (modify in place);
    /// that input is then absent in `eval`: read and write the output.
    pub const fn output_from_input(name: &'static str, kind: DataKind, help: &'static str) -> Self {
        Self {
            flags: abi::PORT_FROM_INPUT,
            ..Self::output(name, kind, help)
        }
    }
}

/// One node kind of a plugin.
#[derive(Clone, Copy, Debug)]
pub struct NodeKind {
    /// Kind name, `[a-z0-9_]{1,32}` (graphs say `<plugin id>/<name>`).
    pub name: &'static str,
    /// Editor label.
    pub label: &'static str,
    /// Palette category.
    pub category: &'static str,
    /// Help text citing the method.
    pub help: &'static str,
    /// Ports, inputs and outputs in any order (`eval` sees them in this order).
    pub ports: &'static [Port],
    /// Parameter schemas.
    pub params: &'static [ParamSchema],
    /// Largest acceleration the node adds (m/s²), for the time step; 0 when unknown.
    pub acceleration_hint: f64,
}

/// One node instance: lives for the whole run, may keep state between steps.
pub trait NodeInstance: Send {
    /// Evaluates one substep: reads inputs and writes outputs through `io`.
    ///
    /// # Errors
    /// Why the node cannot evaluate (the run stops naming the plugin and the node).
    fn eval(&mut self, ctx: &Context, io: &mut NodeIo<'_>) -> Result<(), SolveError>;

    /// Forgets everything carried between steps.
    fn reset(&mut self) {}

    /// The state a resumed run needs to continue bit for bit (empty by default).
    fn save_state(&self, out: &mut StateWriter) {
        let _ = out;
    }

    /// Restores what [`NodeInstance::save_state`] wrote. The default accepts only the empty
    /// state, and resets.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for a state it cannot read.
    fn load_state(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        if !state.is_empty() {
            return Err(SolveError::BadValue(format!(
                "this node keeps no state, got {} bytes",
                state.remaining()
            )));
        }
        self.reset();
        Ok(())
    }
}

/// A node plugin: its kinds and a factory for instances.
pub trait NodePlugin {
    /// The kinds offered.
    const KINDS: &'static [NodeKind];
    /// Creates an instance of `kind` with validated, defaulted `params`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for parameter combinations the schema cannot express.
    fn create(kind: &NodeKind, params: &Params) -> Result<Box<dyn NodeInstance>, SolveError>;
}

/// Exports a [`NodePlugin`] as the node suite of a plugin library
/// (`flipgraph_node_entry`). `export_node_plugin!(Type, "id", "Human name");` in the root of a
/// `cdylib` crate; may sit beside [`crate::export_plugin!`] (then use the same id).
#[macro_export]
macro_rules! export_node_plugin {
    ($plugin:ty, $id:literal, $name:literal) => {
        static FLIPGRAPH_NODE_DESCRIPTIONS: ::std::sync::OnceLock<
            $crate::node::ffi::NodeDescriptions,
        > = ::std::sync::OnceLock::new();

        unsafe extern "C" fn flipgraph_node_describe(
            index: u32,
            out: *mut $crate::abi::node::NodeKindDesc,
        ) -> i32 {
            // SAFETY: called by the host under the ABI's contract.
            unsafe {
                $crate::node::ffi::describe::<$plugin>(&FLIPGRAPH_NODE_DESCRIPTIONS, index, out)
            }
        }
        unsafe extern "C" fn flipgraph_node_create(
            index: u32,
            params: *const $crate::abi::ParamValue,
            count: u32,
            services: *const $crate::abi::HostServices,
            instance: *mut *mut ::std::ffi::c_void,
            error: *mut $crate::abi::ErrorBuf,
        ) -> i32 {
            // SAFETY: called by the host under the ABI's contract.
            unsafe {
                $crate::node::ffi::create::<$plugin>(
                    index, params, count, services, instance, error,
                )
            }
        }

        static FLIPGRAPH_NODE_TABLE: $crate::abi::node::NodeTable = $crate::abi::node::NodeTable {
            header: $crate::abi::PluginHeader {
                abi_version: $crate::abi::node::NODE_ABI_VERSION,
                table_size: ::std::mem::size_of::<$crate::abi::node::NodeTable>() as u32,
                api: $crate::abi::node::NODE_API.as_ptr() as *const ::std::ffi::c_char,
                id: concat!($id, "\0").as_ptr() as *const ::std::ffi::c_char,
                name: concat!($name, "\0").as_ptr() as *const ::std::ffi::c_char,
                version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr()
                    as *const ::std::ffi::c_char,
            },
            kind_count: <$plugin as $crate::node::NodePlugin>::KINDS.len() as u32,
            describe: Some(flipgraph_node_describe),
            create: Some(flipgraph_node_create),
            eval: Some($crate::node::ffi::eval),
            destroy: Some($crate::node::ffi::NODE.destroy),
            reset: Some($crate::node::ffi::NODE.reset),
            state_size: Some($crate::node::ffi::NODE.state_size),
            save_state: Some($crate::node::ffi::NODE.save_state),
            load_state: Some($crate::node::ffi::NODE.load_state),
        };

        /// The flipgraph node-suite entry point.
        #[no_mangle]
        pub extern "C" fn flipgraph_node_entry() -> *const $crate::abi::node::NodeTable {
            &FLIPGRAPH_NODE_TABLE
        }
    };
}
