//! The plugin host: finds, probes, loads and checks plugin libraries, and wraps their instances
//! safely (in process, or isolated in a child process on shared memory).
//!
//! Everything this crate hands out is safe to use. Libraries are never unloaded while anything created from them is alive
//! (`Arc<Library>` is held by every plugin and instance). Every string read from a plugin is
//! sanitised ([`flip_abi::text::sanitize`]) when it is read, so nothing downstream prints raw plugin
//! text; paths in errors are sanitised when displayed.

/// Plugin bundles: one folder holding the library and its resources (OpenFX layout).
pub mod bundle;
mod discovery;
pub mod distributed;
mod elf;
mod in_flight;
mod instance;
pub mod isolation;
mod loaded;
mod mapped;
pub mod node;
pub mod probe;
mod services;
mod validate;

pub use discovery::{
    bundled_plugin_dirs, default_plugin_dirs, is_plugin_file, LoadOptions, PluginSet,
    PLUGIN_DIR_ENV,
};
pub use elf::LibraryFileError;
pub use in_flight::{calls_in_flight, host_exits, overdue_calls, Overdue, PLUGIN_EXIT_CODE};
pub use instance::{ProblemRef, SolveLimits, SolverInstance, HANG_EXIT_CODE};
pub use isolation::{ChildCommand, ChildFailure};
pub use loaded::{AlgorithmInfo, LoadedPlugin, ParamInfo, StateSupport};
pub use node::{LoadedNodePlugin, NodeInstance, NodeKindInfo, PortInfo, PortRef};
pub use services::{CancelToken, LogLine, ServiceEvent, ServiceListener};

use flip_abi::text::path as shown;
use std::path::PathBuf;
use std::time::Duration;

/// Why a library was refused or a plugin call failed.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The file could not be opened as a shared library.
    #[error("cannot open plugin {}: {source}", shown(.path))]
    Open {
        /// The library.
        path: PathBuf,
        /// Loader error.
        #[source]
        source: libloading::Error,
    },
    /// The file is not a regular, complete shared library (checked before it is opened).
    #[error("cannot open plugin {}: {source}", shown(.path))]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// What is wrong (not a regular file, truncated, not ELF...).
        #[source]
        source: LibraryFileError,
    },
    /// Loading and describing the library in a child process failed.
    #[error("{}: refused: loading it in a probe process {reason}", shown(.path))]
    ProbeFailed {
        /// The library.
        path: PathBuf,
        /// Signal, exit status, timeout or the child's error.
        reason: String,
    },
    /// The library is not a flipgraph plugin.
    #[error("{} is not a flipgraph plugin: it does not export `flipgraph_plugin_entry`", shown(.path))]
    MissingEntry {
        /// The library.
        path: PathBuf,
    },
    /// The plugin was built for another ABI.
    #[error("{}: plugin built for ABI {found}; {}", shown(.path), abi_advice(*.found, *.expected))]
    AbiMismatch {
        /// The library.
        path: PathBuf,
        /// ABI version in the plugin.
        found: u32,
        /// ABI version of the host.
        expected: u32,
    },
    /// The plugin's table is malformed (null entries, bad counts, strings or schemas).
    #[error("{}: malformed plugin table: {reason}", shown(.path))]
    Malformed {
        /// The library.
        path: PathBuf,
        /// What is wrong, naming the entry or field.
        reason: String,
    },
    /// A library with the id or file name of a bundled plugin, not allowed to override it.
    #[error("plugin `{id}` in {} shadows the bundled {}; the bundled one is used (pass --allow-plugin-override to use the other)", shown(.other), shown(.bundled))]
    Shadowed {
        /// The id (or file name) both claim.
        id: String,
        /// The bundled library.
        bundled: PathBuf,
        /// The library that was refused.
        other: PathBuf,
    },
    /// Two non-bundled plugins claim the same id.
    #[error("plugin id `{id}` is provided by both {} and {}; the first is used", shown(.first), shown(.second))]
    DuplicateId {
        /// The id.
        id: String,
        /// First library.
        first: PathBuf,
        /// Second library.
        second: PathBuf,
    },
    /// No plugin provides an algorithm of this name.
    #[error("no loaded plugin provides solver `{}`", flip_abi::sanitize(.0))]
    UnknownAlgorithm(String),
    /// The algorithm does not accept this problem kind.
    #[error("plugin `{plugin}` algorithm `{algorithm}` does not accept {kind} problems")]
    UnsupportedKind {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// The kind's name.
        kind: &'static str,
    },
    /// A plugin call returned an error status.
    #[error("plugin `{plugin}` algorithm `{algorithm}`: {message} (status {status})")]
    Call {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// Status code.
        status: i32,
        /// Message the plugin wrote (sanitised).
        message: String,
    },
    /// The solve ran past its time limit (and stopped when asked).
    #[error("plugin `{plugin}` algorithm `{algorithm}` ran past its time limit of {:.3} s and was cancelled", .limit.as_secs_f64())]
    TimeLimit {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// The limit.
        limit: Duration,
    },
    /// The solve was cancelled by the user.
    #[error("plugin `{plugin}` algorithm `{algorithm}`: solve cancelled")]
    Cancelled {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
    },
    /// The child process of an isolated instance crashed, exited, hung or broke the protocol
    /// (it was reaped; the instance refuses further calls).
    #[error("plugin `{plugin}` algorithm `{algorithm}` (isolation = \"process\") failed during {call}: {failure}")]
    Isolated {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// The call that failed (`create`, `solve`, `reset`, ...).
        call: &'static str,
        /// How the child failed.
        failure: ChildFailure,
    },
    /// A node plugin's call returned an error status (a panic is caught in the plugin and
    /// reported here; the instance is not called again).
    #[error("plugin `{plugin}` node `{node}`: {message} (status {status})")]
    NodeCall {
        /// Plugin id.
        plugin: String,
        /// Node kind name.
        node: String,
        /// Status code.
        status: i32,
        /// Message the plugin wrote (sanitised).
        message: String,
    },
    /// The child process of an isolated node instance crashed, exited, hung or broke the
    /// protocol (it was reaped; the instance refuses further calls).
    #[error(
        "plugin `{plugin}` node `{node}` (isolation = \"process\") failed during {call}: {failure}"
    )]
    NodeIsolated {
        /// Plugin id.
        plugin: String,
        /// Node kind name.
        node: String,
        /// The call that failed (`create`, `eval`, `reset`, ...).
        call: &'static str,
        /// How the child failed.
        failure: ChildFailure,
    },
    /// A node plugin's ports did not match its buffers, or an output failed the host's checks
    /// after `eval` (not finite, ids changed, an invalid cell kind).
    #[error("plugin `{plugin}` node `{node}` returned a wrong result: {message}")]
    NodeOutput {
        /// Plugin id.
        plugin: String,
        /// Node kind name.
        node: String,
        /// What is wrong, naming the port.
        message: String,
    },
    /// The returned result contradicts the plugin's own report or is unusable.
    #[error("plugin `{plugin}` algorithm `{algorithm}` returned a wrong result: {message}")]
    WrongResult {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// What is wrong.
        message: String,
    },
}

/// What to do about an ABI mismatch.
fn abi_advice(found: u32, expected: u32) -> String {
    if found < expected {
        format!("rebuild it against flipgraph's ABI {expected}")
    } else {
        format!("this flipgraph supports ABI {expected} only; update flipgraph or use a plugin built for ABI {expected}")
    }
}
