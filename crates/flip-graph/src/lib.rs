//! flipgraph's graph model and scheduler.
//!
//! ```text
//! graphs/*.ron ──load──▶ GraphDoc ──compile(registry)──▶ ExecPlan ──Simulation──▶ steps
//!                          ▲   (validation: kinds, ports,      (nodes instantiated once,
//!    editor ⇄ GraphDoc ────┘    types, params, cycles)          state carried step→step)
//! ```
//!
//! Simulation state crosses time steps only through the `step_input` / `step_output` node pair
//! (like Blender's simulation zones): whatever reaches `step_output` at the end of a step comes
//! out of `step_input` at the start of the next. Every edge cycle is therefore an error.
#![forbid(unsafe_code)]

/// Bypassed nodes: left out of the run, inputs passed on to outputs.
pub mod bypass;
/// Validation and the execution plan.
pub mod compile;
/// The RON document: nodes, edges, settings, editor layout.
pub mod doc;
/// Edge ends: `node.port`, parsed once.
pub mod endpoint;
/// Errors.
pub mod error;
/// Node groups: collapse a selection into one editor node and expand it back.
pub mod groups;
/// Data kinds: port types and what the runner needs from their values.
pub mod kind;
/// Dependency levels and cycle detection (linear time).
mod levels;
/// The node behaviour trait and its evaluation context.
pub mod node;
/// `node.param=value` overrides.
pub mod overrides;
/// The registry of node kinds (single source for CLI, editor palette and validation).
pub mod registry;
/// Running a plan step after step.
pub mod runner;
/// Validation of `settings`, including the work a run would ask for.
pub mod settings_check;
/// Static description of node kinds: ports and parameters.
pub mod spec;
/// Typed statistics that nodes report.
pub mod stats;
/// The step-state node pair.
pub mod step;
/// "Did you mean …": the known names nearest a mistyped one.
pub mod suggest;
/// A toy data kind for the scheduler's own tests.
#[cfg(test)]
mod toy;
/// Nodes with no wire at all: left out of the run.
pub mod unwired;
/// The runtime values that flow along edges, and parameter values.
pub mod value;
/// A rank's window of a decomposed run and the grid-field exchanges between windows.
pub mod window;

pub use compile::{compile, ExecPlan};
pub use doc::{EdgeDoc, GraphDoc, GroupDoc, Layout, NodeDoc, Settings, VariantDoc, FORMAT_VERSION};
pub use endpoint::Endpoint;
pub use error::{GraphError, RunError};
pub use kind::{DataKind, KindDesc, KindError, KindOps, Measure};
pub use node::{EvalCtx, Node, NodeError, NodeEvent, NodeInit, NodeIo, NodeState, WindowRefusal};
pub use overrides::{Override, OverrideTarget};
pub use registry::{NodeKind, NodePack, NodeRegistry};
pub use runner::checkpoint::{
    decode_state, encode_state, Checkpoint, CheckpointError, Snapshot, CHECKPOINT_VERSION,
};
pub use runner::{NodeTiming, RunPaths, Simulation, StepReport};
pub use spec::{
    NodeSpec, ParamKind, ParamSpec, ParamValueError, PortSpec, Precision, SpecTag, SpecTags,
};
pub use stats::NodeStats;
pub use step::StateSlot;
pub use value::{ParamMap, ParamValue, Value};
pub use window::Window;
