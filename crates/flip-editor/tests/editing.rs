//! Editing rules without a window: saving an unchanged graph rewrites nothing, edited graphs
//! keep whole numbers as integers, and which edits keep the frame cache (those that cannot
//! change the simulation).

use flip_editor::graph::convert::from_doc;
use flip_editor::graph::file_text::text_to_save;
use flip_editor::run::worker::sim_view;
use flip_graph::{EdgeDoc, GraphDoc, NodeDoc, ParamValue};
use flip_host::{default_plugin_dirs, PluginSet};
use std::path::PathBuf;
use std::sync::Arc;

fn graph_file(name: &str) -> (GraphDoc, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../graphs")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    (GraphDoc::from_ron(&text, name).unwrap(), text)
}

#[test]
fn saving_an_unchanged_graph_is_a_no_op_and_edits_keep_integers() {
    let registry =
        flip_nodes::builtin_registry(Arc::new(PluginSet::load_dirs(&default_plugin_dirs())));
    for name in [
        "dam_break_2d.ron",
        "lcp_circle_2d.ron",
        "smoke_plume_2d.ron",
    ] {
        let (doc, text) = graph_file(name);
        let shown = from_doc(&doc, &registry).to_doc();
        let file = (shown.clone(), text.clone());
        assert_eq!(text_to_save(&shown, Some(&file)), text, "{name}");
        // an edit writes the document, whose whole numbers stay integers
        let mut edited = shown.clone();
        edited.description.push_str(" (edited)");
        let saved = text_to_save(&edited, Some(&file));
        assert_ne!(saved, text);
        assert_eq!(GraphDoc::from_ron(&saved, name).unwrap(), edited);
    }
    let (doc, _) = graph_file("lcp_circle_2d.ron");
    assert!(doc.to_ron().contains("\"sweeps\": 2,"));
}

#[test]
fn only_edits_that_change_the_run_drop_the_cache() {
    let (doc, _) = graph_file("dam_break_2d.ron");
    let view = sim_view(&doc);
    // moving nodes, or adding, editing and deleting a node without wires: same run
    let mut moved = doc.clone();
    moved.layout.positions.clear();
    let mut scratch = doc.clone();
    scratch.nodes.push(NodeDoc {
        id: "scratch".into(),
        kind: "gravity".into(),
        params: [(
            "gravity".to_string(),
            ParamValue::Vector(vec![0.0, 1.0, 0.0]),
        )]
        .into(),
        bypass: false,
        group: None,
    });
    assert_eq!(sim_view(&moved), view);
    assert_eq!(sim_view(&scratch), view);
    assert!(
        sim_view(&scratch).node("scratch").is_none(),
        "unwired: left out of the run"
    );
    // wiring it in, or editing a wired node: a new run
    let mut wired = scratch.clone();
    wired
        .edges
        .push(EdgeDoc::new("p2g.velocity", "scratch.velocity"));
    assert_ne!(sim_view(&wired), view);
    let mut edited = doc.clone();
    let g = edited.node_mut("gravity").unwrap();
    g.params
        .insert("gravity".into(), ParamValue::Vector(vec![0.0, -1.0, 0.0]));
    assert_ne!(sim_view(&edited), view);
}
