//! flipgraph's built-in nodes. Each node is a thin wrapper: it reads its parameters, takes its
//! inputs, calls a `flip_core` kernel and publishes its outputs (one node per file in
//! [`nodes`]). The pressure-solve node delegates the linear algebra to a plugin loaded from a
//! [`flip_host::PluginSet`].
#![forbid(unsafe_code)]

/// Variants of a graph advanced in lockstep, with per-frame metrics.
pub mod compare;
/// Particles in a decomposed run: ownership, the exchange between windows, the gather.
pub mod decomposed;
/// The data kinds and what the runner needs from each.
pub mod kinds;
/// The liquid cache: lossless per-frame files of what whitewater reads, for re-bakes.
pub mod liquid_cache;
/// The node implementations.
pub mod nodes;
/// Reading typed parameters from a validated [`flip_graph::ParamMap`].
pub mod params;
/// The registry of built-in kinds.
pub mod registry;
/// What each kind does in a step and the memory it keeps.
pub mod roles;
/// The statistics each node family reports.
pub mod stats;

pub use registry::{builtin_kind_names, builtin_registry, BuiltinNodes};
