//! A simulation running in one rank's window of a decomposed run: the exchange between
//! windows before each substep and the global reductions (time step, blow-up, element count).

use super::Simulation;
use crate::error::RunError;
use crate::node::WindowRefusal;
use crate::window::{ExchangeCounts, Window};
use flip_comm::CommExt;
use std::sync::Arc;

/// A node that cannot run in a window.
#[derive(Debug, thiserror::Error)]
#[error("node `{node}` ({kind}) {reason}")]
pub struct NotDecomposable {
    /// Node id.
    pub node: String,
    /// Kind id.
    pub kind: String,
    /// Why.
    pub reason: WindowRefusal,
}

impl Simulation {
    /// How far (cells) wrong values at a window's faces travel through this graph's nodes
    /// (the largest [`crate::Node::window_reach`]).
    ///
    /// # Errors
    /// Every node that cannot run in a window.
    pub fn window_reach(&self) -> Result<usize, Vec<NotDecomposable>> {
        let mut refused = Vec::new();
        let mut reach = 0;
        for (node, p) in self.nodes.iter().zip(&self.plan.nodes) {
            match node.window_reach() {
                Ok(r) => reach = reach.max(r),
                Err(reason) => refused.push(NotDecomposable {
                    node: p.id.clone(),
                    kind: p.kind.clone(),
                    reason,
                }),
            }
        }
        if refused.is_empty() {
            Ok(reach)
        } else {
            Err(refused)
        }
    }

    /// Runs from now on in `window` (call before the first step; every rank calls it).
    ///
    /// # Errors
    /// Nodes that cannot run in a window.
    pub fn set_window(&mut self, window: Window) -> Result<(), Vec<NotDecomposable>> {
        self.window_reach()?;
        self.window = Some(Arc::new(window));
        Ok(())
    }

    /// The window of a decomposed run.
    pub fn window(&self) -> Option<&Arc<Window>> {
        self.window.as_ref()
    }

    /// Before a substep: refreshes the ghost layers of the values carried from the last
    /// substep, then moves what left a window to its new owner, each by its data kind.
    pub(super) fn exchange(&mut self) -> Option<ExchangeCounts> {
        let w = self.window.clone()?;
        for v in self.state.iter_mut().flatten() {
            v.kind().ops().refresh_ghosts(v, &w);
        }
        let mut moved = None;
        for v in self.state.iter_mut().flatten() {
            moved = v.kind().ops().migrate(v, &w).or(moved);
        }
        moved
    }

    /// The largest of `v` over all ranks (itself outside a decomposed run).
    pub(super) fn global_max(&self, v: f32) -> f32 {
        let Some(w) = &self.window else { return v };
        let mut x = [f64::from(v)];
        w.comm().max(&mut x);
        x[0] as f32
    }

    /// Makes a state check collective: every rank fails when one does; the count becomes the
    /// sum over the ranks (each counts its owned part) and the speed the largest.
    pub(super) fn agree(
        &self,
        substep: u32,
        checked: Result<(usize, f32), RunError>,
    ) -> Result<(usize, f32), RunError> {
        let Some(w) = &self.window else {
            return checked;
        };
        let (failed, owned, speed) = match &checked {
            Ok((n, s)) => (0.0, *n, f64::from(*s)),
            Err(_) => (1.0, 0, 0.0),
        };
        let mut worst = [failed, speed];
        w.comm().max(&mut worst);
        let count: u64 = w.comm().all_gather_one(owned as u64).iter().sum();
        checked?;
        if worst[0] > 0.0 {
            return Err(RunError::BlowUp {
                frame: self.frame,
                substep,
                message: "another rank's state is not finite or too fast (its error says which)"
                    .into(),
            });
        }
        Ok((count as usize, worst[1] as f32))
    }
}
