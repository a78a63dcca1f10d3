//! The node graph as edited: the library's editor state and its conversion to and from
//! `GraphDoc`, the canvas, node and parameter widgets, and whole-document edits.

/// Drawing the node canvas: selectable titles, wires under nodes.
pub mod canvas;
/// Copy/paste of node selections as RON text.
pub mod clipboard;
/// `GraphDoc` ⇄ editor state.
pub mod convert;
/// Swapping a node's kind on a graph document.
pub mod doc_edits;
/// The graph as a file: the built-in scene, a new graph, the open file.
pub mod document;
/// Graph edits: duplicate, delete, cycle check, dynamic parameters, fit view.
pub mod edit;
/// What Save writes: the file's own text with the edits patched in.
pub mod file_text;
/// Node groups on the canvas.
pub mod groups;
/// Undo/redo snapshots.
pub mod history;
/// "Tidy" auto-layout.
pub mod layout;
/// Node title, status and buttons.
pub mod node_ui;
/// Parameter widgets.
pub mod params_ui;
/// The graph's settings as widgets.
pub mod settings_ui;
