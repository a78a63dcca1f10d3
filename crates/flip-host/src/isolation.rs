//! The out-of-process mode of solvers and nodes: a plugin instance lives in a child process,
//! the problem's arrays (`shm`) or the node's ports (`ports`) go through shared memory and a
//! typed control channel (`wire`) carries create/solve/eval/reset/save_state/load_state and
//! the replies. A crash, exit or hang of the
//! plugin ends the child, not the host: the call fails with a [`ChildFailure`].
//!
//! The child is a program of the host's choosing ([`ChildCommand`]): `flipgraph` re-executes
//! itself with the hidden subcommand `__solver-child`, the editor with `--solver-child`, and
//! the end-to-end tests start a small binary; all call [`child_main`]. The same executable as
//! the host means the same ABI, SDK and checks on both sides, and no extra file to install.

mod child;
mod memory;
mod parent;
mod ports;
mod segment;
pub(crate) mod shm;
mod views;
pub(crate) mod wire;

pub use child::child_main;
pub(crate) use parent::ChildSolver;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// How to start an isolated solver's child: `program args…`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildCommand {
    /// The program (usually the running executable).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

impl ChildCommand {
    /// The running executable with `args`.
    ///
    /// # Errors
    /// When the executable's path is unknown.
    pub fn current_exe(args: &[&str]) -> std::io::Result<Self> {
        Ok(Self {
            program: std::env::current_exe()?,
            args: args.iter().map(OsString::from).collect(),
        })
    }
}

/// How an isolated solver's child failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ChildFailure {
    /// The child could not be started.
    #[error("could not start the plugin process {}: {reason}", flip_abi::text::path(.program))]
    Start {
        /// The program.
        program: PathBuf,
        /// The system's reason.
        reason: String,
    },
    /// The child was killed by a signal.
    #[error("the plugin process was killed by signal {signal}{}", super::probe::signal_name(*.signal))]
    Signal {
        /// The signal number.
        signal: i32,
    },
    /// The child exited.
    #[error("the plugin process exited with status {code}")]
    Exit {
        /// Its exit status.
        code: i32,
    },
    /// The solve ignored its time limit and the cancel flag; the child was killed.
    #[error("the call ignored its time limit of {:.3} s and cancellation; the plugin process was killed after {:.3} s", .limit.as_secs_f64(), .waited.as_secs_f64())]
    Hung {
        /// The node's time limit.
        limit: Duration,
        /// How long the host waited.
        waited: Duration,
    },
    /// A call that has no time limit did not answer in time; the child was killed.
    #[error("the plugin process did not answer within {:.1} s and was killed", .waited.as_secs_f64())]
    Unresponsive {
        /// How long the host waited.
        waited: Duration,
    },
    /// A cancelled solve did not stop; the child was killed.
    #[error("the call ignored cancellation; the plugin process was killed")]
    CancelIgnored,
    /// The child broke the protocol (a garbled or impossible reply, a failed mapping).
    #[error("the plugin process broke the protocol: {0}")]
    Protocol(String),
}

impl ChildFailure {
    /// Whether the solver itself misbehaved (crash, exit, hang), as opposed to the host's
    /// environment (the child could not be started).
    pub fn is_solver_fault(&self) -> bool {
        !matches!(self, Self::Start { .. })
    }
}
