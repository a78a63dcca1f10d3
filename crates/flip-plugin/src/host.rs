//! Host side: finds, loads and checks plugin libraries, and wraps their instances safely.
//!
//! This is the only module of the host that contains `unsafe`: everything it hands out is safe
//! to use. Libraries are never unloaded while anything created from them is alive
//! (`Arc<Library>` is held by every plugin and instance).

mod discovery;
mod instance;
mod loaded;

pub use discovery::{default_plugin_dirs, is_plugin_file, PluginSet, PLUGIN_DIR_ENV};
pub use instance::SolverInstance;
pub use loaded::{AlgorithmInfo, LoadedPlugin, ParamInfo};

use std::path::PathBuf;

/// Why a library was refused or a plugin call failed.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    /// The file could not be opened as a shared library.
    #[error("cannot open plugin {}: {source}", .path.display())]
    Open {
        /// The library.
        path: PathBuf,
        /// Loader error.
        #[source]
        source: libloading::Error,
    },
    /// The library is not a flipgraph plugin.
    #[error("{} is not a flipgraph plugin: it does not export `flipgraph_plugin_entry`", .path.display())]
    MissingEntry {
        /// The library.
        path: PathBuf,
    },
    /// The plugin was built for another ABI.
    #[error("{}: plugin built for ABI version {found}, this flipgraph expects {expected}; rebuild the plugin", .path.display())]
    AbiMismatch {
        /// The library.
        path: PathBuf,
        /// ABI version in the plugin.
        found: u32,
        /// ABI version of the host.
        expected: u32,
    },
    /// The plugin's table is malformed (wrong size, wrong API, bad strings).
    #[error("{}: malformed plugin table: {reason}", .path.display())]
    Malformed {
        /// The library.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Two plugins claim the same id.
    #[error("plugin id `{id}` is provided by both {} and {}", .first.display(), .second.display())]
    DuplicateId {
        /// The id.
        id: String,
        /// First library.
        first: PathBuf,
        /// Second library.
        second: PathBuf,
    },
    /// No plugin provides an algorithm of this name.
    #[error("no loaded plugin provides solver `{0}`")]
    UnknownAlgorithm(String),
    /// A plugin call returned an error status.
    #[error("plugin `{plugin}` algorithm `{algorithm}`: {message} (status {status})")]
    Call {
        /// Plugin id.
        plugin: String,
        /// Algorithm name.
        algorithm: String,
        /// Status code.
        status: i32,
        /// Message the plugin wrote.
        message: String,
    },
}
