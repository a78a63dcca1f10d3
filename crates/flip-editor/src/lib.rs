//! flipgraph's node editor: wire simulation nodes on an egui_node_graph2 canvas, pick the
//! pressure-solver plugin, play the simulation on a worker thread and watch the particles.
//!
//! The file format stays `flip_graph::GraphDoc`; [`convert`] maps it to the library's editor
//! state and back.
#![forbid(unsafe_code)]

/// The eframe application.
pub mod app;
/// Scripted runs: autoplay, screenshot, quit.
pub mod autorun;
/// `GraphDoc` ⇄ editor state.
pub mod convert;
/// Graph edits: duplicate, delete, cycle check, dynamic parameters, fit view.
pub mod edit;
/// Open / Save and the unsaved-changes modal.
pub mod files;
/// What is kept of each simulated frame.
pub mod frames;
/// "Tidy" auto-layout.
pub mod layout;
/// Node title, status and buttons.
pub mod node_ui;
/// Top bar, canvas and side panels.
pub mod panels;
/// Parameter widgets.
pub mod params_ui;
/// The in-app Open / Save As dialog.
pub mod path_dialog;
/// Stats panel.
pub mod stats;
/// User types and library traits.
pub mod types;
/// The particle viewport.
pub mod viewport;
/// The simulation thread.
pub mod worker;

pub use app::{App, Options};
pub use convert::EditorDoc;
