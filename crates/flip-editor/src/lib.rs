//! flipgraph's node editor: wire simulation nodes on an egui_node_graph2 canvas, pick the
//! pressure-solver plugin, play the simulation on a worker thread and watch the particles.
//!
//! The file format stays `flip_graph::GraphDoc`; [`convert`] maps it to the library's editor
//! state and back.
#![forbid(unsafe_code)]

/// The eframe application.
pub mod app;
/// What the particles are coloured by (speed, vorticity, pressure, id).
pub mod attributes;
/// Scripted runs: autoplay, screenshot, quit.
pub mod autorun;
/// Drawing the node canvas: selectable titles, wires under nodes.
pub mod canvas;
/// Copy/paste of node selections as RON text.
pub mod clipboard;
/// Switching modes and the compare mode's top-bar controls.
pub mod compare_app;
/// The compare mode's variant list as edited.
pub mod compare_drafts;
/// The compare mode's state: per-variant frame caches, timeline.
pub mod compare_mode;
/// The compare mode's variant list panel.
pub mod compare_panel;
/// The compare mode's metric curves.
pub mod compare_plots;
/// The compare mode's viewports and layout.
pub mod compare_view;
/// The compare mode's simulation thread.
pub mod compare_worker;
/// Play/Step/Reset, timeline and viewport options (both modes).
pub mod controls;
/// `GraphDoc` ⇄ editor state.
pub mod convert;
/// Swapping a node's kind on a graph document.
pub mod doc_edits;
/// Graph edits: duplicate, delete, cycle check, dynamic parameters, fit view.
pub mod edit;
/// Undo/redo, copy/paste and swap-kind in the app, with their shortcuts.
pub mod editing;
/// Open / Save and the unsaved-changes modal.
pub mod files;
/// What is kept of each simulated frame.
pub mod frames;
/// Node groups on the canvas.
pub mod groups;
/// Tooltips that keep working after a click.
pub mod hints;
/// Undo/redo snapshots.
pub mod history;
/// "Tidy" auto-layout.
pub mod layout;
/// The liquid mesh in the viewport.
pub mod liquid_mesh;
/// Node title, status and buttons.
pub mod node_ui;
/// Colours of the grid overlays.
pub mod overlay_colors;
/// Level-set / cell-kind slices and solids to draw.
pub mod overlays;
/// Top bar, canvas and side panels.
pub mod panels;
/// Parameter widgets.
pub mod params_ui;
/// The in-app Open / Save As dialog.
pub mod path_dialog;
/// Play/Step and the run mode's timeline.
pub mod play;
/// The viewport's particle quads, kept between UI frames.
pub mod points_cache;
/// Simulation threads below the UI's CPU priority.
pub mod priority;
/// The values a run keeps for the overlays (probes).
pub mod probes;
/// Where an edited graph's run starts: frame 0, "simulate from here", live edits.
pub mod resim;
/// A simulation thread behind channels (run and compare modes).
pub mod sim_thread;
/// Saved states after simulated frames.
pub mod snapshots;
/// Imported solids as meshes for the viewport.
pub mod solid_meshes;
/// Stats panel.
pub mod stats;
/// Timeline rules: playback of cached frames, the cache bar.
pub mod timeline;
/// User types and library traits.
pub mod types;
/// The particle viewport.
pub mod viewport;
/// The simulation thread.
pub mod worker;

pub use app::{App, Options};
pub use convert::EditorDoc;
