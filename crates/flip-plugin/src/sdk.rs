//! Safe plugin-author SDK: implement [`SolverPlugin`], call [`crate::export_plugin!`], write no
//! `unsafe`.
//!
//! ```ignore
//! struct MyPlugin;
//! impl flip_plugin::sdk::SolverPlugin for MyPlugin {
//!     const ID: &'static str = "jacobi";
//!     const NAME: &'static str = "Jacobi iteration";
//!     const VERSION: &'static str = env!("CARGO_PKG_VERSION");
//!     const ALGORITHMS: &'static [Algorithm] = &[/* … */];
//!     fn create(algorithm: &Algorithm, params: &Params) -> Result<Box<dyn PressureSolver>, SolveError> { … }
//! }
//! flip_plugin::export_plugin!(MyPlugin, "jacobi", "Jacobi iteration");
//! ```

/// Binary dumps of pressure problems, for replaying real systems in solver development.
mod dump;
/// Shims behind the exported C functions (used by the macro only).
#[doc(hidden)]
pub mod ffi;
/// Owned problems.
mod owned;
/// Parameter schemas and resolved values.
mod params;
/// The safe problem view.
mod problem;
/// Face fractions and the ghost-fluid coefficients: the stencil rule shared by host and solvers.
pub mod stencil;

pub use crate::abi::SolveStats;
pub use dump::DUMP_MAGIC;
pub use owned::OwnedProblem;
pub use params::{Algorithm, ParamKind, ParamSchema, Params};
pub use problem::{Problem, ProblemError};

/// Why a solve or an instance creation failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The algorithm cannot handle this kind of problem.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A parameter or problem field is invalid.
    #[error("bad value: {0}")]
    BadValue(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// One solver instance, created per pressure-solve node. It may keep state between solves
/// (a multigrid hierarchy, the previous policy of a policy iteration).
pub trait PressureSolver: Send {
    /// Solves `problem` in place (`problem.pressure` holds the initial guess on entry).
    ///
    /// # Errors
    /// Non-convergence is *not* an error: return stats with `converged = 0`.
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError>;
}

/// A plugin: its identity, its algorithms and a factory for instances.
pub trait SolverPlugin {
    /// The algorithms offered, with their parameter schemas.
    const ALGORITHMS: &'static [Algorithm];
    /// Creates an instance of `algorithm` with validated, defaulted `params`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for parameter combinations the schema cannot express.
    fn create(
        algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError>;
}

/// Exports a [`SolverPlugin`] as a flipgraph plugin library (the one entry symbol).
///
/// `export_plugin!(Type, "id", "Human name");` in the root of a `cdylib` crate.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty, $id:literal, $name:literal) => {
        static FLIPGRAPH_DESCRIPTIONS: ::std::sync::OnceLock<$crate::sdk::ffi::CDescriptions> =
            ::std::sync::OnceLock::new();

        extern "C" fn flipgraph_describe(index: u32, out: *mut $crate::abi::AlgorithmDesc) -> i32 {
            $crate::sdk::ffi::describe::<$plugin>(&FLIPGRAPH_DESCRIPTIONS, index, out)
        }
        extern "C" fn flipgraph_create(
            index: u32,
            params: *const $crate::abi::ParamValue,
            count: u32,
            instance: *mut *mut ::std::ffi::c_void,
            error: *mut $crate::abi::ErrorBuf,
        ) -> i32 {
            $crate::sdk::ffi::create::<$plugin>(index, params, count, instance, error)
        }
        extern "C" fn flipgraph_solve(
            instance: *mut ::std::ffi::c_void,
            problem: *const $crate::abi::PressureProblem,
            stats: *mut $crate::abi::SolveStats,
            error: *mut $crate::abi::ErrorBuf,
        ) -> i32 {
            $crate::sdk::ffi::solve(instance, problem, stats, error)
        }
        extern "C" fn flipgraph_destroy(instance: *mut ::std::ffi::c_void) {
            $crate::sdk::ffi::destroy(instance)
        }

        static FLIPGRAPH_TABLE: $crate::abi::PluginTable = $crate::abi::PluginTable {
            header: $crate::abi::PluginHeader {
                abi_version: $crate::abi::ABI_VERSION,
                table_size: ::std::mem::size_of::<$crate::abi::PluginTable>() as u32,
                api: $crate::abi::PRESSURE_SOLVER_API.as_ptr() as *const ::std::ffi::c_char,
                id: concat!($id, "\0").as_ptr() as *const ::std::ffi::c_char,
                name: concat!($name, "\0").as_ptr() as *const ::std::ffi::c_char,
                version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr()
                    as *const ::std::ffi::c_char,
            },
            algorithm_count: <$plugin as $crate::sdk::SolverPlugin>::ALGORITHMS.len() as u32,
            describe: flipgraph_describe,
            create: flipgraph_create,
            solve: flipgraph_solve,
            destroy: flipgraph_destroy,
        };

        /// The flipgraph plugin entry point.
        #[no_mangle]
        pub extern "C" fn flipgraph_plugin_entry() -> *const $crate::abi::PluginTable {
            &FLIPGRAPH_TABLE
        }
    };
}
