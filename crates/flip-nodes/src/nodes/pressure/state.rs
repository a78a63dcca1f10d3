//! The plugin part of a solve node's checkpoint: the solver's learned state (ABI 2
//! `save_state`), or the reason there is none.

use crate::nodes::common::failed;
use flip_graph::NodeError;
use flip_host::SolverInstance;

/// The solver's saved bytes, and why they are missing when the plugin has no state support.
pub(crate) fn save_solver(
    solver: &mut SolverInstance,
) -> Result<(Option<Vec<u8>>, Option<String>), NodeError> {
    let saved = solver
        .save_state()
        .map_err(|e| failed(format!("saving the solver's state failed: {e}")))?;
    let missing = saved.is_none().then(|| {
        format!(
            "{} cannot save its state: a resumed run re-creates it",
            solver.qualified_name()
        )
    });
    Ok((saved, missing))
}

/// Gives the solver back its saved bytes (nothing to do when there were none: the node was
/// just created, so the solver starts fresh).
pub(crate) fn load_solver(
    solver: &mut SolverInstance,
    saved: Option<&[u8]>,
) -> Result<(), NodeError> {
    match saved {
        Some(bytes) => solver
            .load_state(bytes)
            .map_err(|e| failed(format!("restoring the solver's state failed: {e}"))),
        None => Ok(()),
    }
}
