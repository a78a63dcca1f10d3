//! The step-state pair. `step_output`'s inputs at the end of a step come out of `step_input`'s
//! same-named outputs at the start of the next one; at step 0 `step_input` yields each slot's
//! start value. The slots are declared by the node crates with their data kinds
//! ([`crate::NodeRegistry::with_state`]). The runner moves the values itself; the nodes'
//! `eval` is empty.

use crate::kind::DataKind;
use crate::node::WindowRefusal;
use crate::node::{EvalCtx, Node, NodeError, NodeIo};
use crate::registry::NodeKind;
use crate::spec::{NodeSpec, PortSpec};
use crate::value::Value;

/// Kind id of the node that yields the previous step's state.
pub const STEP_INPUT: &str = "step_input";
/// Kind id of the node that collects the state for the next step.
pub const STEP_OUTPUT: &str = "step_output";

/// A value carried between steps: a port of both `step_input` and `step_output`.
#[derive(Clone, Copy, Debug)]
pub struct StateSlot {
    /// Port name.
    pub name: &'static str,
    /// Data kind.
    pub kind: DataKind,
    /// What `step_input` yields at step 0 (`None`: nothing).
    pub start: Option<fn() -> Value>,
}

struct Passive;

impl Node for Passive {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, _: &EvalCtx, _: &mut NodeIo) -> Result<(), NodeError> {
        Ok(())
    }
}

/// The step pair for these slots.
pub(crate) fn kinds(slots: &[StateSlot]) -> Vec<NodeKind> {
    let port = |slot: &StateSlot| {
        let help = format!("{} carried between time steps", slot.name);
        PortSpec::optional(slot.name, slot.kind, &help)
    };
    let input = NodeSpec::new(
        STEP_INPUT,
        "Step Input",
        "Step",
        "State from the end of the previous time step (empty at the first step).",
        vec![],
        slots.iter().map(port).collect(),
        vec![],
    );
    let output = NodeSpec::new(
        STEP_OUTPUT,
        "Step Output",
        "Step",
        "State handed to the next time step.",
        slots.iter().map(port).collect(),
        vec![],
        vec![],
    );
    vec![
        NodeKind::new(input, Box::new(|_| Ok(Box::new(Passive)))),
        NodeKind::new(output, Box::new(|_| Ok(Box::new(Passive)))),
    ]
}
