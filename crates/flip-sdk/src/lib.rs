//! Safe plugin-author SDK: implement [`SolverPlugin`], call [`crate::export_plugin!`], write no
//! `unsafe`.
//!
//! ```text
//! struct MyPlugin;
//! impl flip_sdk::SolverPlugin for MyPlugin {
//!     const ALGORITHMS: &'static [Algorithm] = &[/* … */];
//!     fn create(algorithm: &Algorithm, params: &Params) -> Result<Box<dyn PressureSolver>, SolveError> { … }
//! }
//! flip_sdk::export_plugin!(MyPlugin, "jacobi", "Jacobi iteration");
//! ```
//!
//! Long loops poll [`cancelled`] (the host's cancel flag, installed by the SDK for the duration
//! of each call) and stop early; the SDK then reports `STATUS_CANCELLED` to the host.

/// The storage of a problem's arrays (heap, or memory a host lends).
mod array;
/// Checks of a returned pressure: the residual the host recomputes.
pub mod check;
/// The coupled (rigid-body) problem kind.
pub mod coupled;
/// The general sparse (CSR) problem kind.
mod csr;
/// The distributed-memory suite (MPI ranks) as safe calls.
mod distributed;
/// Binary dumps of pressure problems, for replaying real systems in solver development.
mod dump;
/// Shims behind the exported C functions (used by the macro only).
#[doc(hidden)]
pub mod ffi;
/// Node plugins: node kinds, typed views of the host's buffers, `export_node_plugin!`.
pub mod node;
/// Owned problems.
mod owned;
/// Parameter schemas and resolved values.
mod params;
/// The safe problem view.
mod problem;
/// Connected regions of a matrix's unknowns and the pure-Neumann (singular) ones.
pub mod regions;
/// Host services (cancel flag, logging, progress) as safe calls.
pub mod services;
/// The envelope of saved solver state.
mod state;
/// Face fractions and the ghost-fluid coefficients: the stencil rule shared by host and solvers.
pub mod stencil;
/// The tall-cell problem kind.
mod tallcell;
/// The viscosity problem kind.
pub mod viscosity;

pub use array::Array;
pub use coupled::{BodyTerms, CoupledError, CoupledProblem, OwnedBodyTerms};
pub use csr::{merge_row, CsrError, CsrProblem, OwnedCsr};
pub use distributed::{distributed, Distributed, HaloValue};
pub use dump::{DumpError, DumpedProblem, DUMP_MAGIC};
/// The `#[repr(C)]` contract the SDK implements (so a plugin depends on this crate alone).
pub use flip_abi as abi;
pub use flip_abi::SolveStats;
pub use owned::OwnedProblem;
pub use params::{Algorithm, ParamKind, ParamSchema, Params};
pub use problem::{Problem, ProblemError};
pub use services::{cancelled, services, LogLevel, Services};
pub use state::{StateReader, StateWriter};
pub use tallcell::{OwnedTallGeometry, TallCellError, TallCellProblem, TallGeometry};
pub use viscosity::{OwnedViscosityGrid, ViscosityError, ViscosityGrid, ViscosityProblem};

/// Why a solve or an instance creation failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The algorithm cannot handle this kind of problem.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A parameter or problem field is invalid.
    #[error("bad value: {0}")]
    BadValue(String),
    /// The host asked the solve to stop ([`cancelled`]).
    #[error("cancelled: {0}")]
    Cancelled(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// One solver instance, created per pressure-solve node. It may keep state between solves
/// (a multigrid hierarchy, the previous policy of a policy iteration); then it overrides
/// [`PressureSolver::reset`] and, for bit-identical resumed runs, the state methods.
pub trait PressureSolver: Send {
    /// Solves a structured problem in place (`problem.pressure` holds the initial guess).
    ///
    /// # Errors
    /// Non-convergence is *not* an error: return stats with `converged = 0`.
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError>;

    /// Called on the host's thread just before [`PressureSolver::solve`] of the same structured
    /// problem moves onto the plugin's thread pool (not for distributed solves): the place to
    /// wait for work another instance of this process does for it. Waiting inside the pool can
    /// stall that work, since a worker waiting in a parallel loop may pick up the waiting
    /// solve. The default does nothing.
    fn prepare(&mut self, problem: &Problem<'_>) {
        let _ = problem;
    }

    /// Solves a general sparse problem in place. Only called for algorithms whose capabilities
    /// include `CAP_CSR`.
    ///
    /// # Errors
    /// By default [`SolveError::Unsupported`].
    fn solve_csr(&mut self, problem: &mut CsrProblem<'_>) -> Result<SolveStats, SolveError> {
        let _ = problem;
        Err(SolveError::Unsupported(
            "this algorithm takes structured problems only".into(),
        ))
    }

    /// Solves a tall-cell problem in place. Only called for algorithms whose capabilities
    /// include `CAP_TALLCELL`.
    ///
    /// # Errors
    /// By default [`SolveError::Unsupported`].
    fn solve_tallcell(
        &mut self,
        problem: &mut TallCellProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        let _ = problem;
        Err(SolveError::Unsupported(
            "this algorithm takes no tall-cell problems".into(),
        ))
    }

    /// Solves a viscosity problem in place (`problem.velocity()` holds the initial guess).
    /// Only called for algorithms whose capabilities include `CAP_VISCOSITY`.
    ///
    /// # Errors
    /// By default [`SolveError::Unsupported`].
    fn solve_viscosity(
        &mut self,
        problem: &mut ViscosityProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        let _ = problem;
        Err(SolveError::Unsupported(
            "this algorithm takes no viscosity problems".into(),
        ))
    }

    /// Solves a coupled (rigid-body) problem in place (`problem.grid.pressure` holds the
    /// initial guess). Only called for algorithms whose capabilities include `CAP_COUPLED`.
    ///
    /// # Errors
    /// By default [`SolveError::Unsupported`].
    fn solve_coupled(
        &mut self,
        problem: &mut CoupledProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        let _ = problem;
        Err(SolveError::Unsupported(
            "this algorithm takes no coupled (rigid-body) problems".into(),
        ))
    }

    /// Forgets everything learned from earlier solves, so the next solve equals a fresh
    /// instance's bit for bit. The default does nothing: right for solvers that keep nothing
    /// that changes results.
    fn reset(&mut self) {}

    /// The state a resumed run needs to continue bit for bit (opaque to the host). The default
    /// is empty: nothing learned changes results. A solver that overrides it declares
    /// [`abi::CAP_SAVES_STATE`] in its [`Algorithm::capabilities`] (so the host reports it as
    /// saving state); saving a non-empty state without that bit is an error.
    fn save_state(&self, out: &mut StateWriter) {
        let _ = out;
    }

    /// Replaces everything learned by a state from [`PressureSolver::save_state`] of the same
    /// algorithm. The default accepts only the empty state, and resets.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] for a state this solver cannot read.
    fn load_state(&mut self, state: &mut StateReader<'_>) -> Result<(), SolveError> {
        if !state.is_empty() {
            return Err(SolveError::BadValue(format!(
                "this solver keeps no state, got {} bytes",
                state.remaining()
            )));
        }
        self.reset();
        Ok(())
    }
}

/// A plugin: its algorithms and a factory for instances.
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
/// `export_plugin!(Type, "id", "Human name");` in the root of a `cdylib` crate. The table
/// offers every entry, state included (an algorithm without [`abi::CAP_SAVES_STATE`] saves an
/// empty state, and the host reports it as keeping none).
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty, $id:literal, $name:literal) => {
        static FLIPGRAPH_DESCRIPTIONS: ::std::sync::OnceLock<$crate::ffi::CDescriptions> =
            ::std::sync::OnceLock::new();

        unsafe extern "C" fn flipgraph_describe(
            index: u32,
            out: *mut $crate::abi::AlgorithmDesc,
        ) -> i32 {
            // SAFETY: called by the host under the ABI's contract.
            unsafe { $crate::ffi::describe::<$plugin>(&FLIPGRAPH_DESCRIPTIONS, index, out) }
        }
        unsafe extern "C" fn flipgraph_create(
            index: u32,
            params: *const $crate::abi::ParamValue,
            count: u32,
            services: *const $crate::abi::HostServices,
            instance: *mut *mut ::std::ffi::c_void,
            error: *mut $crate::abi::ErrorBuf,
        ) -> i32 {
            // SAFETY: called by the host under the ABI's contract.
            unsafe {
                $crate::ffi::create::<$plugin>(index, params, count, services, instance, error)
            }
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
            algorithm_count: <$plugin as $crate::SolverPlugin>::ALGORITHMS.len() as u32,
            describe: Some(flipgraph_describe),
            create: Some(flipgraph_create),
            solve: Some($crate::ffi::solve),
            destroy: Some($crate::ffi::SOLVER.destroy),
            reset: Some($crate::ffi::SOLVER.reset),
            state_size: Some($crate::ffi::SOLVER.state_size),
            save_state: Some($crate::ffi::SOLVER.save_state),
            load_state: Some($crate::ffi::SOLVER.load_state),
        };

        /// The flipgraph plugin entry point.
        #[no_mangle]
        pub extern "C" fn flipgraph_plugin_entry() -> *const $crate::abi::PluginTable {
            &FLIPGRAPH_TABLE
        }
    };
}
