//! The step-state pair. `step_output`'s inputs at the end of a step come out of `step_input`'s
//! same-named outputs at the start of the next one; at step 0 `step_input` yields empty
//! particles and nothing else. Liquids carry particles; Eulerian smoke carries the velocity,
//! density and temperature grids; tall-cell water carries its `tall_liquid`. The runner moves the values itself; the nodes' `eval` is
//! empty.

use crate::node::WindowRefusal;
use crate::node::{EvalCtx, Node, NodeError, NodeIo};
use crate::registry::NodeKind;
use crate::spec::{NodeRole, NodeSpec, PortSpec};
use crate::value::DataKind;

/// Kind id of the node that yields the previous step's state.
pub const STEP_INPUT: &str = "step_input";
/// Kind id of the node that collects the state for the next step.
pub const STEP_OUTPUT: &str = "step_output";

/// The state slots carried between steps: (name, kind, required at `step_output`).
pub const STATE_SLOTS: [(&str, DataKind, bool); 5] = [
    ("particles", DataKind::Particles, false),
    ("velocity", DataKind::Velocity, false),
    ("density", DataKind::Scalar, false),
    ("temperature", DataKind::Scalar, false),
    ("tall_liquid", DataKind::TallLiquid, false),
];

struct Passive;

impl Node for Passive {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, _: &EvalCtx, _: &mut NodeIo) -> Result<(), NodeError> {
        Ok(())
    }
}

pub(crate) fn kinds() -> Vec<NodeKind> {
    let port = |(name, kind, required): (&str, DataKind, bool)| {
        let help = format!("{name} carried between time steps");
        if required {
            PortSpec::new(name, kind, &help)
        } else {
            PortSpec::optional(name, kind, &help)
        }
    };
    let input = NodeSpec::new(
        STEP_INPUT,
        "Step Input",
        "Step",
        "State from the end of the previous time step (empty at the first step).",
        vec![],
        STATE_SLOTS.into_iter().map(port).collect(),
        vec![],
    )
    .with_role(NodeRole::StepInput);
    let output = NodeSpec::new(
        STEP_OUTPUT,
        "Step Output",
        "Step",
        "State handed to the next time step.",
        STATE_SLOTS.into_iter().map(port).collect(),
        vec![],
        vec![],
    )
    .with_role(NodeRole::StepOutput);
    vec![
        NodeKind::new(input, Box::new(|_| Ok(Box::new(Passive)))),
        NodeKind::new(output, Box::new(|_| Ok(Box::new(Passive)))),
    ]
}
