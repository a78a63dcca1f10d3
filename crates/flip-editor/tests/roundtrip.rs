//! `GraphDoc` → editor state → `GraphDoc` is the identity for every example graph, and the
//! editor's own edits keep the document valid. No display needed.

use flip_editor::graph::convert::{from_doc, port_input};
use flip_editor::graph::edit::reaches;
use flip_editor::run::probes::probe_list;
use flip_editor::run::worker::without_exports;
use flip_graph::{
    EdgeDoc, GraphDoc, NodeDoc, NodeKind, NodeRegistry, NodeSpec, ParamSpec, ParamValue, PortSpec,
};
use flip_host::{default_plugin_dirs, PluginSet};
use flip_nodes::kinds::PARTICLES;
use std::path::PathBuf;
use std::sync::Arc;

fn graphs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../graphs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("graphs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 4,
        "expected the example graphs in {}",
        dir.display()
    );
    files
}

fn registries() -> Vec<(&'static str, NodeRegistry)> {
    let none = Arc::new(PluginSet::default());
    let found = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    vec![
        ("no plugins", flip_nodes::builtin_registry(none)),
        ("default plugins", flip_nodes::builtin_registry(found)),
    ]
}

#[test]
fn every_example_graph_round_trips() {
    for (what, registry) in registries() {
        for path in graphs() {
            let doc = GraphDoc::load(&path).expect("example graphs load");
            let back = from_doc(&doc, &registry).to_doc();
            assert_eq!(back, doc, "{} ({what})", path.display());
            // And through RON text, as Save writes it.
            let text = back.to_ron();
            let reread = GraphDoc::from_ron(&text, "saved").expect("saved text parses");
            assert_eq!(reread, doc, "{} via RON ({what})", path.display());
        }
    }
}

#[test]
fn unknown_kinds_params_and_edges_survive() {
    let registry = flip_nodes::builtin_registry(Arc::new(PluginSet::default()));
    let mut doc = GraphDoc::load(&graphs()[0]).unwrap();
    let mut params = flip_graph::ParamMap::new();
    params.insert("strength".into(), ParamValue::Number(2.5));
    doc.nodes.push(NodeDoc {
        id: "mystery".into(),
        kind: "plugin:org.example.vortex".into(),
        params,
        bypass: false,
        group: None,
    });
    let first = doc.nodes[1].id.clone();
    doc.edges
        .push(EdgeDoc::new(format!("{first}.solids"), "mystery.solids"));
    doc.edges
        .push(EdgeDoc::new("mystery.out", format!("{first}.nonexistent")));
    doc.nodes[2]
        .params
        .insert("not_a_param".into(), ParamValue::Bool(true));
    doc.layout.positions.insert("mystery".into(), (5.0, 6.0));
    let ed = from_doc(&doc, &registry);
    assert_eq!(
        ed.dangling.len(),
        1,
        "the edge to a missing port is kept aside"
    );
    assert_eq!(ed.to_doc(), doc);
}

#[test]
fn nodes_without_positions_get_placed() {
    let registry = flip_nodes::builtin_registry(Arc::new(PluginSet::default()));
    let mut doc = GraphDoc::load(&graphs()[0]).unwrap();
    doc.layout.positions.clear();
    let mut back = from_doc(&doc, &registry).to_doc();
    assert_eq!(back.layout.positions.len(), doc.nodes.len());
    let mut pos: Vec<_> = back.layout.positions.values().collect();
    pos.sort_by(|a, b| a.partial_cmp(b).unwrap());
    pos.dedup();
    assert_eq!(pos.len(), doc.nodes.len(), "no two nodes on one spot");
    back.layout = Default::default();
    assert_eq!(back, doc);
}

/// A registry with one node whose parameters depend on its `mode`, like the pressure node.
fn dynamic_registry() -> NodeRegistry {
    let spec = NodeSpec {
        kind: "solve".into(),
        label: "Solve".into(),
        category: "Solve".into(),
        help: String::new(),
        inputs: vec![PortSpec::new("particles", PARTICLES, "in")],
        outputs: vec![PortSpec::new("particles", PARTICLES, "out")],
        params: vec![ParamSpec::choice("mode", "Mode", "", &["a", "b"], "a")],
        ..Default::default()
    };
    let kind = NodeKind::new(spec, Box::new(|_| Err("not runnable".into()))).with_dynamic_params(
        Box::new(|v| {
            let mode = v.get("mode").and_then(ParamValue::as_str).unwrap_or("a");
            let mut p = vec![ParamSpec::float(
                "tolerance",
                "Tolerance",
                "",
                1e-6,
                0.0,
                1.0,
            )];
            if mode == "b" {
                p.push(ParamSpec::int("levels", "Levels", "", 4, 1, 16));
            } else {
                p.push(ParamSpec::bool("precondition", "Precondition", "", true));
            }
            Ok(p)
        }),
    );
    let mut r = NodeRegistry::with_state(flip_nodes::kinds::state_slots());
    r.register(kind).unwrap();
    r
}

fn dynamic_doc() -> GraphDoc {
    let mut doc = GraphDoc::load(&graphs()[0]).unwrap();
    doc.nodes.clear();
    doc.edges.clear();
    doc.layout.positions.clear();
    for id in ["a", "b", "c"] {
        let mut params = flip_graph::ParamMap::new();
        params.insert("tolerance".into(), ParamValue::Number(1e-3));
        doc.nodes.push(NodeDoc {
            id: id.into(),
            kind: "solve".into(),
            params,
            bypass: false,
            group: None,
        });
        doc.layout.positions.insert(id.into(), (0.0, 0.0));
    }
    doc.edges.push(EdgeDoc::new("a.particles", "b.particles"));
    doc.edges.push(EdgeDoc::new("b.particles", "c.particles"));
    doc
}

#[test]
fn changing_the_mode_rebuilds_only_that_nodes_parameters() {
    let registry = dynamic_registry();
    let doc = dynamic_doc();
    let mut ed = from_doc(&doc, &registry);
    let b = ed.find("b").unwrap();
    let mode = ed.state.graph[b].get_input("mode").unwrap();
    ed.state.graph[mode].value = flip_editor::types::ValueType::Param(ParamValue::Text("b".into()));
    ed.state.graph[b].user_data.explicit.insert("mode".into());
    assert!(ed.sync_params(b, &registry));
    assert!(
        !ed.sync_params(b, &registry),
        "a second sync changes nothing"
    );
    let after = ed.to_doc();
    let node_b = after.node("b").unwrap();
    assert_eq!(
        node_b.params.get("tolerance"),
        Some(&ParamValue::Number(1e-3))
    );
    assert_eq!(
        node_b.params.get("mode"),
        Some(&ParamValue::Text("b".into()))
    );
    let names: Vec<&str> = ed.state.graph[b]
        .inputs
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["particles", "mode", "tolerance", "levels"]);
    assert_eq!(after.edges, doc.edges, "connections are kept");
    assert_eq!(after.node("a"), doc.node("a"), "other nodes are untouched");
    assert_eq!(after.node("c"), doc.node("c"));
}

#[test]
fn cycles_are_detected_and_duplicates_get_fresh_ids() {
    let registry = dynamic_registry();
    let mut ed = from_doc(&dynamic_doc(), &registry);
    let (a, c) = (ed.find("a").unwrap(), ed.find("c").unwrap());
    assert!(reaches(&ed.state.graph, a, c));
    assert!(!reaches(&ed.state.graph, c, a));
    // c → a would close a → b → c → a.
    let out = ed.state.graph[c].get_output("particles").unwrap();
    let input = port_input(&ed.state, a, "particles").unwrap();
    ed.state.graph.add_connection(out, input, 0);
    assert!(reaches(&ed.state.graph, a, c) && reaches(&ed.state.graph, c, a));
    ed.state.graph.remove_connection(input, out);

    let copy = ed.duplicate(a);
    assert_eq!(ed.state.graph[copy].user_data.doc_id, "a_2");
    let doc = ed.to_doc();
    assert_eq!(doc.nodes.last().unwrap().id, "a_2");
    assert_eq!(doc.nodes.last().unwrap().params, doc.nodes[0].params);
    ed.delete(copy);
    assert_eq!(ed.to_doc(), dynamic_doc());
}

#[test]
fn positions_do_not_depend_on_zoom() {
    let registry = dynamic_registry();
    let mut doc = dynamic_doc();
    doc.layout.positions.insert("b".into(), (300.0, 120.0));
    let mut ed = from_doc(&doc, &registry);
    let st = &mut ed.state;
    st.pan_zoom.clip_rect =
        egui::Rect::from_min_size(egui::pos2(0.0, 30.0), egui::vec2(800.0, 600.0));
    st.pan_zoom.pan = egui::vec2(-40.0, 25.0);
    // What the library does on a zoom by 0.5 (update_node_positions_after_zoom).
    let (z0, dz) = (st.pan_zoom.zoom, 0.5);
    let half = st.pan_zoom.clip_rect.size() / 2.0;
    for (_, p) in st.node_positions.iter_mut() {
        *p = ((p.to_vec2() - half + st.pan_zoom.pan) * dz + half - st.pan_zoom.pan).to_pos2();
    }
    st.pan_zoom.zoom = z0 * dz;
    ed.track_zoom(z0);
    assert_eq!(ed.to_doc().layout, doc.layout);
}

#[test]
fn editor_runs_leave_exports_out_and_probe_overlays() {
    let doc = GraphDoc::load(
        &graphs()
            .into_iter()
            .find(|p| p.ends_with("dam_break_2d.ron"))
            .unwrap(),
    )
    .unwrap();
    let registry = flip_nodes::builtin_registry(Arc::new(PluginSet::default()));
    let d = without_exports(&doc, &registry);
    assert!(d.nodes.iter().all(|n| n.kind != "export"));
    assert!(d.edges.iter().all(|e| e.to.node != "export"));
    let probes = probe_list(&doc, &registry);
    let ports: Vec<&str> = probes.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(
        ports,
        ["level_set", "cells", "solids", "pressure", "velocity"]
    );
    // with rigid bodies the 2D view draws the solids that hold them
    let boxes = (graphs().into_iter())
        .find(|p| p.ends_with("floating_boxes_2d.ron"))
        .unwrap();
    let probes = probe_list(&GraphDoc::load(&boxes).unwrap(), &registry);
    let solids = ("bodies".to_string(), "solids".to_string());
    assert!(probes.contains(&solids), "{probes:?}");
}

#[test]
fn tidy_puts_sources_first_and_nothing_overlaps() {
    use flip_editor::graph::layout::{DEFAULT_SIZE, DEFAULT_VIEW};
    let registry = flip_nodes::builtin_registry(Arc::new(PluginSet::default()));
    let path = graphs()
        .into_iter()
        .find(|p| p.ends_with("drop_3d.ron"))
        .unwrap();
    let mut ed = from_doc(&GraphDoc::load(&path).unwrap(), &registry);
    let depth = ed.depths();
    assert_eq!(depth[&ed.find("step_in").unwrap()], 0);
    assert!(depth[&ed.find("step_out").unwrap()] > depth[&ed.find("pressure").unwrap()]);
    ed.tidy(&Default::default(), DEFAULT_VIEW);
    let doc = ed.to_doc();
    // read in columns (left to right, each top to bottom), depths never decrease
    let mut placed: Vec<((f32, f32), usize)> = doc
        .layout
        .positions
        .iter()
        .map(|(id, &p)| (p, depth[&ed.find(id).unwrap()]))
        .collect();
    placed.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)));
    assert!(placed.windows(2).all(|w| w[0].1 <= w[1].1), "{placed:?}");
    // more than one column, fewer columns than depths: the flow wraps
    let xs: std::collections::BTreeSet<i64> = placed.iter().map(|p| p.0 .0 as i64).collect();
    let depths = depth.values().max().unwrap() + 1;
    assert!(
        xs.len() > 1 && xs.len() < depths,
        "{} columns, {depths} depths",
        xs.len()
    );
    let rects: Vec<egui::Rect> = doc
        .layout
        .positions
        .values()
        .map(|&(x, y)| egui::Rect::from_min_size(egui::pos2(x, y), DEFAULT_SIZE))
        .collect();
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            assert!(!a.intersects(*b), "{a:?} overlaps {b:?}");
        }
    }
    assert_eq!(
        doc.nodes,
        GraphDoc::load(&path).unwrap().nodes,
        "only positions move"
    );
}
