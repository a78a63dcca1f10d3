//! Exit statuses of `flipgraph`, for scripts and render farms (docs/guide/running.md, "Exit codes").

use flip_graph::{ExecPlan, RunError};
use flip_nodes::roles::KindFacts;

/// Why `flipgraph` stopped; the numeric value is the process exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// The graph (or another input file) is invalid.
    GraphInvalid = 1,
    /// The command line is wrong (clap uses 2 for its own errors too).
    Usage = 2,
    /// A solver plugin was refused or failed.
    Plugin = 3,
    /// The simulation blew up (non-finite or absurd state).
    BlewUp = 4,
    /// The run would not fit in this machine's memory or disk.
    Resources = 5,
    /// `compare`: a variant failed (the report is written; it says which and why).
    VariantFailed = 6,
    /// Stopped by SIGINT/SIGTERM after writing a checkpoint.
    Interrupted = 130,
}

/// An error that carries its exit status.
#[derive(Debug)]
pub struct Exit {
    /// The status.
    pub status: ExitStatus,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// An [`anyhow::Error`] ending the process with `status`.
pub fn fail(status: ExitStatus, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        status,
        message: message.into(),
    })
}

/// The exit status for `e`: the first [`Exit`] in its chain, 1 otherwise.
pub fn status_of(e: &anyhow::Error) -> i32 {
    e.chain()
        .find_map(|c| c.downcast_ref::<Exit>())
        .map_or(ExitStatus::GraphInvalid as i32, |x| x.status as i32)
}

/// The status for a failed run of `plan`: blow-ups, nodes whose kind solves with a plugin or
/// that failed with a plugin's error (their failures are the plugin's), anything else is the
/// graph's.
pub fn run_status(e: &RunError, plan: &ExecPlan) -> ExitStatus {
    let solves_with_plugin = |kind: &str| {
        (plan.nodes.iter()).any(|n| n.kind == kind && n.spec.role().solves_with_plugin())
    };
    match e {
        RunError::BlowUp { .. } => ExitStatus::BlewUp,
        RunError::NodeFailed { kind, error, .. }
            if solves_with_plugin(kind) || error.cause::<flip_host::PluginError>().is_some() =>
        {
            ExitStatus::Plugin
        }
        RunError::Cancelled { .. } => ExitStatus::Interrupted,
        RunError::NodeFailed { .. } => ExitStatus::GraphInvalid,
    }
}
