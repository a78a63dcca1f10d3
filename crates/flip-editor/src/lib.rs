//! flipgraph's node editor: wire simulation nodes on an egui_node_graph2 canvas, pick the
//! pressure-solver plugin, play the simulation on a worker thread and watch the particles.
//!
//! The file format stays `flip_graph::GraphDoc`; [`graph::convert`] maps it to the library's
//! editor state and back.
#![forbid(unsafe_code)]

/// The eframe application: the document, the two modes and the window's chrome.
pub mod app;
/// The compare mode: variants of the graph run side by side.
pub mod compare;
/// What is kept of each simulated frame.
pub mod frames;
/// The node graph: editor state, canvas, node and parameter widgets, document edits.
pub mod graph;
/// Tooltips that keep working after a click.
pub mod hints;
/// The run mode: the simulation thread, its frame cache and playback.
pub mod run;
/// User types and library traits.
pub mod types;
/// The particle viewport.
pub mod viewport;

pub use app::{App, Options};
pub use graph::convert::EditorDoc;
