//! Cargo features this build may lack, and the refusal of an option that needs one: it says
//! that this build has no such support and the command that builds one (instead of clap's
//! "unexpected argument"). The options stay on the command line, hidden, in builds without
//! their feature.

use crate::exit::{fail, ExitStatus};
use anyhow::Result;

/// A Cargo feature of `flip-cli`.
pub struct Feature {
    /// What it adds, as in "built without MPI support".
    pub what: &'static str,
    /// Whether this build has it.
    pub enabled: bool,
    /// The command that builds a `flipgraph` with it.
    pub build: &'static str,
    /// What else it needs, and where it is documented.
    pub needs: &'static str,
}

/// `run --mpi`, `bench mpi`, `bench step --mpi` (docs/guide/mpi.md).
pub const MPI: Feature = Feature {
    what: "MPI support",
    enabled: cfg!(feature = "mpi"),
    build: "cargo build --release -p flip-cli --features mpi",
    needs: "OpenMPI and libclang; see docs/guide/mpi.md",
};

impl Feature {
    /// Refuses `option` (as typed, e.g. `run --mpi`) unless this build has the feature.
    ///
    /// # Errors
    /// A usage error (exit 2) naming the command that builds a `flipgraph` with it.
    pub fn require(&self, option: &str) -> Result<()> {
        if self.enabled {
            return Ok(());
        }
        Err(fail(
            ExitStatus::Usage,
            format!(
                "`{option}`: this flipgraph was built without {}; build one with `{}` \
                 (needs {}) and run target/release/flipgraph",
                self.what, self.build, self.needs
            ),
        ))
    }
}
