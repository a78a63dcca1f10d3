//! The stop flag of a run: front ends set it (SIGINT, the editor's Reset); the runner checks it
//! between substeps and long node work (pressure solves, through the plugin cancel service)
//! polls it.

use super::Simulation;
use crate::error::RunError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

impl Simulation {
    /// The stop flag of this run: set it (from any thread) to end the current substep early
    /// with [`RunError::Cancelled`]; running pressure solves see it through the plugin cancel
    /// service. Clear it before running again.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Uses `flag` as this run's stop flag (a front end that keeps one flag across runs).
    pub fn set_cancel_flag(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = flag;
    }

    /// A node failure caused by a stop request reads as the stop.
    pub(super) fn cancelled_or(&self, e: RunError) -> RunError {
        if self.cancel.load(Ordering::Relaxed) {
            RunError::Cancelled { frame: self.frame }
        } else {
            e
        }
    }
}
