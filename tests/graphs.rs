//! Graph files and validation: every example loads, validates and round-trips; every class of
//! bad input is refused with an error naming the file/node/port/field.

use flip_graph::{compile, EdgeDoc, GraphDoc, GraphError, ParamValue, Simulation};
use flipgraph_tests::{graph, graphs_dir, registry};

fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(graphs_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "example graphs missing: {names:?}");
    names
}

#[test]
fn every_example_validates_and_round_trips() {
    let registry = registry();
    for name in examples() {
        let doc = graph(&name);
        if let Err(e) = compile(&doc, &registry) {
            panic!(
                "{name}: {}",
                e.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        let text = doc.to_ron();
        let back = GraphDoc::from_ron(&text, &name).unwrap();
        assert_eq!(doc, back, "{name} does not round-trip");
    }
}

fn errors_of(doc: &GraphDoc) -> Vec<GraphError> {
    compile(doc, &registry()).expect_err("must be refused")
}

fn assert_error(errors: &[GraphError], node: Option<&str>, field: Option<&str>, needle: &str) {
    let hit = errors.iter().any(|e| {
        e.node.as_deref() == node && e.field.as_deref() == field && e.message.contains(needle)
    });
    assert!(
        hit,
        "expected {node:?}/{field:?} containing `{needle}`, got {errors:#?}"
    );
}

#[test]
fn malformed_ron_names_file_and_position() {
    let e =
        GraphDoc::from_ron("(format_version: 1, settings: (grid: (8, 8", "broken.ron").unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("broken.ron: malformed RON at 1:"),
        "{text}"
    );
    let e = GraphDoc::from_ron(
        &graph("dam_break_2d.ron")
            .to_ron()
            .replace("format_version: 1", "format_version: 7"),
        "new.ron",
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("format_version 7 is not supported"),
        "{e}"
    );
    let e = GraphDoc::load(std::path::Path::new("no/such/file.ron")).unwrap_err();
    assert!(
        e.to_string().starts_with("no/such/file.ron: cannot read"),
        "{e}"
    );
}

#[test]
fn unknown_kind_port_param_and_bad_values_are_named() {
    let mut doc = graph("dam_break_2d.ron");
    doc.node_mut("gravity").unwrap().kind = "antigravity".into();
    assert_error(
        &errors_of(&doc),
        Some("gravity"),
        None,
        "unknown node kind `antigravity`",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.edges.push(EdgeDoc::new("p2g.speed", "g2p.velocity"));
    assert_error(
        &errors_of(&doc),
        Some("p2g"),
        Some("speed"),
        "has no output `speed`",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.node_mut("g2p")
        .unwrap()
        .params
        .insert("flip_ratio".into(), ParamValue::Number(1.5));
    doc.node_mut("g2p")
        .unwrap()
        .params
        .insert("flipratio".into(), ParamValue::Number(0.5));
    let errors = errors_of(&doc);
    assert_error(&errors, Some("g2p"), Some("flip_ratio"), "outside [0, 1]");
    assert_error(&errors, Some("g2p"), Some("flipratio"), "unknown parameter");

    let mut doc = graph("dam_break_2d.ron");
    doc.node_mut("pressure")
        .unwrap()
        .params
        .insert("solver".into(), ParamValue::Text("magic/fast".into()));
    assert_error(
        &errors_of(&doc),
        Some("pressure"),
        Some("solver"),
        "is not one of",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.settings.cell_size = -1.0;
    assert_error(
        &errors_of(&doc),
        None,
        Some("settings.cell_size"),
        "positive",
    );
}

#[test]
fn type_mismatch_missing_input_and_double_edges_are_refused() {
    let mut doc = graph("dam_break_2d.ron");
    doc.edges.retain(|e| e.to != "g2p.velocity_old");
    doc.edges
        .push(EdgeDoc::new("marker.cells", "g2p.velocity_old"));
    assert_error(
        &errors_of(&doc),
        Some("g2p"),
        Some("velocity_old"),
        "type mismatch: marker.cells carries cells",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.edges.retain(|e| e.to != "advect.solids");
    assert_error(
        &errors_of(&doc),
        Some("advect"),
        Some("solids"),
        "required input is not connected",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.edges
        .push(EdgeDoc::new("p2g.velocity", "pressure.velocity"));
    assert_error(
        &errors_of(&doc),
        Some("pressure"),
        Some("velocity"),
        "more than one incoming edge",
    );
}

#[test]
fn cycles_must_pass_through_the_step_boundary() {
    let mut doc = graph("dam_break_2d.ron");
    doc.edges.retain(|e| e.to != "p2g.particles");
    doc.edges
        .push(EdgeDoc::new("advect.particles", "p2g.particles"));
    let errors = errors_of(&doc);
    let e = errors
        .iter()
        .find(|e| e.message.contains("cycle"))
        .expect("cycle error");
    for id in ["p2g", "gravity", "extrapolate", "pressure", "g2p", "advect"] {
        assert!(e.message.contains(id), "{e}");
    }
    assert!(
        !e.message.contains("export"),
        "downstream nodes are not part of the cycle: {e}"
    );
    // The same feedback through the step pair is the normal, legal way.
    compile(&graph("dam_break_2d.ron"), &registry()).expect("the example is legal");
}

#[test]
fn step_pair_must_be_complete_and_unique() {
    let mut doc = graph("dam_break_2d.ron");
    doc.nodes.retain(|n| n.kind != "step_output");
    doc.edges.retain(|e| e.to.node != "step_out");
    assert_error(
        &errors_of(&doc),
        Some("step_input"),
        None,
        "exactly one step_input",
    );
}

#[test]
fn duplicate_ids_and_bad_edge_syntax_are_refused() {
    let mut doc = graph("dam_break_2d.ron");
    let copy = doc.node("g2p").unwrap().clone();
    doc.nodes.push(copy);
    doc.edges.push(EdgeDoc::new("p2g", "g2p.velocity"));
    let errors = errors_of(&doc);
    assert_error(&errors, Some("g2p"), None, "duplicate node id");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("written `node.port`")),
        "{errors:#?}"
    );
}

#[test]
fn a_node_that_refuses_its_parameters_is_named() {
    let mut doc = graph("lcp_maze_2d.ron");
    doc.node_mut("pressure")
        .unwrap()
        .params
        .insert("solver".into(), ParamValue::Text("pcg/mic0-pcg".into()));
    doc.node_mut("pressure")
        .unwrap()
        .params
        .insert("boundary".into(), ParamValue::Text("standard".into()));
    doc.node_mut("maze")
        .unwrap()
        .params
        .insert("mask".into(), ParamValue::Text("missing.png".into()));
    let out = tempfile::tempdir().unwrap();
    let errors = Simulation::new(&doc, &registry(), out.path(), &graphs_dir())
        .err()
        .expect("refused");
    assert!(
        errors
            .iter()
            .any(|e| e.node.as_deref() == Some("maze") && e.message.contains("missing.png")),
        "{errors:#?}"
    );
}
