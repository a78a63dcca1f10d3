//! A simulation running in one rank's window of a decomposed run: the particle exchange
//! before each substep and the global reductions (time step, blow-up, particle count).

use super::Simulation;
use crate::error::RunError;
use crate::node::WindowRefusal;
use crate::value::Value;
use crate::window::{exchange_particles, owned_count, refresh_state, ExchangeCounts, Window};
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

    /// Before a substep: moves particles between windows and refreshes ghost copies, and
    /// refreshes the ghost layers of the grid fields carried from the last substep.
    pub(super) fn exchange(&mut self) -> Option<ExchangeCounts> {
        let w = self.window.clone()?;
        refresh_state(&w, &mut self.state);
        let slot = self.state.iter_mut().flatten().find_map(|v| match v {
            Value::Particles(p) => Some(p),
            _ => None,
        })?;
        Some(exchange_particles(&w, Arc::make_mut(slot)))
    }

    /// The largest of `v` over all ranks (itself outside a decomposed run).
    pub(super) fn global_max(&self, v: f32) -> f32 {
        let Some(w) = &self.window else { return v };
        let mut x = [f64::from(v)];
        w.comm().max(&mut x);
        x[0] as f32
    }

    /// Makes a state check collective: every rank fails when one does; the count becomes the
    /// owned particles of all ranks and the speed the largest.
    pub(super) fn agree(
        &self,
        substep: u32,
        checked: Result<(usize, f32), RunError>,
    ) -> Result<(usize, f32), RunError> {
        let Some(w) = &self.window else {
            return checked;
        };
        let owned = self.particles().map_or(0, |p| owned_count(&p));
        let (failed, speed) = match &checked {
            Ok((_, s)) => (0.0, f64::from(*s)),
            Err(_) => (1.0, 0.0),
        };
        let mut worst = [failed, speed];
        w.comm().max(&mut worst);
        let mut count = [owned as f64];
        w.comm().sum(&mut count);
        checked?;
        if worst[0] > 0.0 {
            return Err(RunError::BlowUp {
                frame: self.frame,
                substep,
                message: "another rank's state is not finite or too fast (its error says which)"
                    .into(),
            });
        }
        Ok((count[0] as usize, worst[1] as f32))
    }
}
