//! The graph as a file: the built-in scene, a new graph, the open file's path and unsaved
//! state (the text Save writes is [`crate::graph::file_text`]'s).

use flip_graph::step::{STEP_INPUT, STEP_OUTPUT};
use flip_graph::{GraphDoc, NodeDoc, FORMAT_VERSION};
use std::path::PathBuf;

/// The scene opened when no graph is given.
pub const DEFAULT_SCENE: &str = include_str!("../../../../graphs/dam_break_2d.ron");

/// The file the document came from and what is unsaved.
#[derive(Debug, Default)]
pub struct OpenFile {
    /// The open file (`None`: untitled).
    pub path: Option<PathBuf>,
    /// Changes not saved yet.
    pub dirty: bool,
    /// The document as opened or last saved: undoing back to it leaves nothing unsaved.
    pub clean: Option<GraphDoc>,
    /// The file as read or last saved, and its text (see
    /// [`crate::graph::file_text::text_to_save`]).
    pub text: Option<(GraphDoc, String)>,
}

/// An action that would discard the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Start an empty graph.
    New,
    /// Open a file (asks which).
    Open,
    /// Open this file (a recent one).
    OpenPath(PathBuf),
    /// Close the window.
    Quit,
}

/// A new graph: the step-state pair and the settings of the built-in scene.
pub fn empty_graph() -> GraphDoc {
    let base = GraphDoc::from_ron(DEFAULT_SCENE, "built-in").expect("built-in parses");
    let node = |id: &str, kind: &str| NodeDoc::new(id, kind);
    let mut layout = flip_graph::doc::Layout::default();
    layout.positions.insert("step_in".into(), (40.0, 40.0));
    layout.positions.insert("step_out".into(), (700.0, 40.0));
    GraphDoc {
        format_version: FORMAT_VERSION,
        description: "New graph".into(),
        settings: base.settings,
        nodes: vec![node("step_in", STEP_INPUT), node("step_out", STEP_OUTPUT)],
        edges: vec![],
        groups: vec![],
        variants: vec![],
        layout,
    }
}
