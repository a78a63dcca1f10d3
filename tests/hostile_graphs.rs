//! Hostile graphs (issue 17): huge cycles, runaway work, nonsense settings, what only node
//! creation finds, export folders escaping the output folder, and escapes in graph text. Each
//! is refused with the file/node/field named, and nothing panics or hangs.

use flip_graph::overrides::apply_override;
use flip_graph::{
    compile, EdgeDoc, GraphDoc, GraphError, NodeDoc, ParamValue, RunPaths, Simulation,
};
use flipgraph_tests::{graph, graphs_dir, registry, set};
use std::path::Path;

fn errors_of(doc: &GraphDoc) -> Vec<GraphError> {
    compile(doc, &registry()).expect_err("must be refused")
}

/// The error naming `node` and `field` (either may be None) whose message contains `needle`.
fn find<'a>(
    errors: &'a [GraphError],
    node: Option<&str>,
    field: Option<&str>,
    needle: &str,
) -> &'a GraphError {
    errors
        .iter()
        .find(|e| {
            e.node.as_deref() == node && e.field.as_deref() == field && e.message.contains(needle)
        })
        .unwrap_or_else(|| panic!("no `{needle}` on {node:?}/{field:?} in {errors:#?}"))
}

/// A node of each kind that writes files, in the shipped graph that has one: (graph, node).
const WRITERS: [(&str, &str); 4] = [
    ("dam_break_2d.ron", "export"),
    ("dam_break_2d.ron", "fields"),
    ("drop_mesh_3d.ron", "surface"),
    ("drop_mesh_3d.ron", "vdb"),
];

fn node(id: &str, kind: &str) -> NodeDoc {
    NodeDoc::new(id, kind)
}

/// Node creation with `allow` for outside output folders, writing under `out`.
fn instantiate(doc: &GraphDoc, out: &Path, allow: bool) -> Result<Simulation, Vec<GraphError>> {
    let paths = RunPaths {
        out_dir: out,
        base_dir: &graphs_dir(),
        allow_outside_out: allow,
    };
    Simulation::with_paths(doc, &registry(), paths)
}

#[test]
fn a_cycle_through_thousands_of_nodes_is_found_at_once() {
    // 5000 gravity nodes in a ring, and a 2000-node tail hanging off it (downstream, not on the
    // cycle). The old level builder and sink peeling were cubic: minutes for this graph.
    let mut doc = graph("dam_break_2d.ron");
    let (ring, tail) = (5000, 2000);
    for i in 0..ring + tail {
        doc.nodes.push(node(&format!("g{i}"), "gravity"));
    }
    for i in 0..ring {
        let next = (i + 1) % ring;
        doc.edges.push(EdgeDoc::new(
            format!("g{i}.velocity"),
            format!("g{next}.velocity"),
        ));
    }
    for i in ring..ring + tail {
        let from = if i == ring { 0 } else { i - 1 };
        doc.edges.push(EdgeDoc::new(
            format!("g{from}.velocity"),
            format!("g{i}.velocity"),
        ));
    }
    let errors = errors_of(&doc);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert!(e.message.contains("cycle through nodes g0, g1"), "{e}");
    assert!(
        e.message.contains("(4988 more)"),
        "the tail is not on the cycle: {e}"
    );
    assert!(e.to_string().len() < 400, "the message is capped: {e}");
}

#[test]
fn a_long_acyclic_chain_gets_one_level_per_node() {
    let mut doc = graph("dam_break_2d.ron");
    let n = 5000;
    for i in 0..n {
        doc.nodes.push(node(&format!("g{i}"), "gravity"));
    }
    doc.edges.push(EdgeDoc::new("p2g.velocity", "g0.velocity"));
    for i in 1..n {
        doc.edges.push(EdgeDoc::new(
            format!("g{}.velocity", i - 1),
            format!("g{i}.velocity"),
        ));
    }
    let plan = compile(&doc, &registry()).expect("valid");
    let base = compile(&graph("dam_break_2d.ron"), &registry()).unwrap();
    assert!(plan.levels.len() > n, "{}", plan.levels.len());
    assert_eq!(
        plan.levels.iter().map(Vec::len).sum::<usize>(),
        base.nodes.len() + n
    );
}

#[test]
fn runaway_work_is_refused_with_the_substep_estimate() {
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.fixed_dt = 1e-9;
    let errors = errors_of(&doc);
    find(
        &errors,
        None,
        Some("settings.fixed_dt"),
        "4.167e7 substeps per frame",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.settings.cfl = 1e-6;
    doc.settings.max_substeps = u32::MAX;
    find(
        &errors_of(&doc),
        None,
        Some("settings.max_substeps"),
        "substeps per frame",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.settings.frames = u32::MAX;
    find(
        &errors_of(&doc),
        None,
        Some("settings.frames"),
        "substeps (at most 1e8 per run)",
    );
}

#[test]
fn a_frame_of_many_tiny_steps_ends_on_the_frame_time() {
    // 1/24 s in steps of 1/(24·1000): summed in f32 the frame time drifts by ~1e-6 s.
    let mut doc = GraphDoc {
        nodes: vec![
            node("step_in", "step_input"),
            node("step_out", "step_output"),
        ],
        edges: vec![],
        ..graph("dam_break_2d.ron")
    };
    doc.settings.fixed_dt = 1.0 / 24_000.0;
    let out = tempfile::tempdir().unwrap();
    let mut sim = instantiate(&doc, out.path(), false).expect("valid");
    let reports = sim.advance_frame().expect("frame");
    assert_eq!(reports.len(), 1000);
    assert!((sim.time() - 1.0 / 24.0).abs() < 1e-9, "{}", sim.time());
}

#[test]
fn nonsense_settings_are_refused() {
    let empty = GraphDoc {
        nodes: vec![],
        edges: vec![],
        ..graph("dam_break_2d.ron")
    };
    find(&errors_of(&empty), None, Some("nodes"), "no nodes");

    let mut doc = graph("dam_break_2d.ron");
    doc.settings.cell_size = 3e38;
    find(
        &errors_of(&doc),
        None,
        Some("settings.cell_size"),
        "outside the supported",
    );

    let mut doc = graph("dam_break_2d.ron");
    doc.settings.frames = 0;
    find(
        &errors_of(&doc),
        None,
        Some("settings.frames"),
        "at least 1",
    );
    for bad in [
        "settings.frames=-3",
        "settings.frames=1e12",
        "settings.frames=2.5",
        "settings.seed=-1",
        "settings.seed=0.5",
        "settings.seed=1e30",
        "settings.grid=64.5",
        "settings.grid=[64, -64, 1]",
        "settings.max_substeps=-1",
    ] {
        let err = bad
            .parse()
            .and_then(|o| apply_override(&mut doc, &o))
            .expect_err(bad)
            .to_string();
        assert!(err.contains("a whole number"), "{bad}: {err}");
    }
}

#[test]
fn an_emitter_outside_the_domain_is_refused_when_nodes_are_created() {
    let mut doc = graph("dam_break_2d.ron");
    set(
        &mut doc,
        "source",
        "center",
        ParamValue::Vector(vec![5.0, 0.3, 0.0]),
    );
    let out = tempfile::tempdir().unwrap();
    let errors = instantiate(&doc, out.path(), false).err().expect("refused");
    find(
        &errors,
        Some("source"),
        Some("center"),
        "entirely outside the domain",
    );
    // Overlapping the domain by a sliver is fine.
    set(
        &mut doc,
        "source",
        "center",
        ParamValue::Vector(vec![1.1, 0.3, 0.0]),
    );
    instantiate(&doc, out.path(), false).expect("partly inside");
}

#[test]
fn export_folders_stay_inside_the_output_folder_unless_allowed() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    // every node that writes files: particles, grid fields (VTK and VDB) and meshes
    for (file, node) in WRITERS {
        for escape in ["../..", "frames/../../x", "/tmp/flipgraph-elsewhere"] {
            let mut doc = graph(file);
            set(&mut doc, node, "folder", ParamValue::Text(escape.into()));
            let errors = instantiate(&doc, &out, false).err().expect(escape);
            find(&errors, Some(node), Some("folder"), "--allow-outside-out");
        }
    }
    let mut doc = graph("dam_break_2d.ron");
    set(
        &mut doc,
        "export",
        "folder",
        ParamValue::Text("../elsewhere".into()),
    );
    instantiate(&doc, &out, true).expect("allowed with the flag");
    assert!(
        !root.path().join("elsewhere").exists(),
        "creation does not write"
    );
}

#[test]
fn an_export_folder_that_is_a_file_is_refused_before_running() {
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("frames"), b"not a folder").unwrap();
    let mut doc = graph("dam_break_2d.ron");
    set(
        &mut doc,
        "export",
        "folder",
        ParamValue::Text("frames/sub".into()),
    );
    let errors = instantiate(&doc, out.path(), false).err().expect("refused");
    find(
        &errors,
        Some("export"),
        Some("folder"),
        "is a file, not a folder",
    );
}

#[test]
fn graph_text_is_printed_without_terminal_escapes() {
    let mut doc = graph("dam_break_2d.ron");
    doc.nodes.push(node("evil\u{1b}[2J\nforged: ok", "gravity"));
    let errors = errors_of(&doc);
    let text: String = errors
        .iter()
        .map(|e| e.clone().in_file("a\u{1b}]0;x.ron").to_string())
        .collect();
    assert!(!text.contains('\u{1b}') && !text.contains('\n'), "{text}");
    assert!(text.contains("evil\\e[2J\\nforged"), "{text}");
}

// Issue 36: numbers that overflow f32, settings named by path, export prefixes, validation
// whose cost the input sets.

/// `[x, 0, 0]`, or `x` for a scalar parameter.
fn huge(kind: &flip_graph::ParamKind, x: f64) -> Option<ParamValue> {
    match kind {
        flip_graph::ParamKind::Float { .. } | flip_graph::ParamKind::Int { .. } => {
            Some(ParamValue::Number(x))
        }
        flip_graph::ParamKind::Vec3 => Some(ParamValue::Vector(vec![x, 0.0, 0.0])),
        _ => None,
    }
}

#[test]
fn numbers_that_overflow_f32_are_refused_naming_the_parameter() {
    // The two: an emitter centre and a gravity of 1e39 (finite as f64, ∞ as f32).
    let mut doc = graph("dam_break_2d.ron");
    set(
        &mut doc,
        "source",
        "center",
        ParamValue::Vector(vec![1e39, 0.3, 0.0]),
    );
    set(
        &mut doc,
        "gravity",
        "gravity",
        ParamValue::Vector(vec![0.0, -1e39, 0.0]),
    );
    let errors = errors_of(&doc);
    find(&errors, Some("source"), Some("center"), "f32");
    find(&errors, Some("gravity"), Some("gravity"), "f32");
    assert!(
        !errors.iter().any(|e| e.field.as_deref() == Some("size")),
        "the centre is wrong, not the size: {errors:#?}"
    );

    // The class: every numeric parameter of every built-in kind, one node each.
    let reg = registry();
    let mut doc = graph("dam_break_2d.ron");
    let mut expected = Vec::new();
    for kind in reg.kinds() {
        for p in &kind.spec.params {
            let Some(v) = huge(&p.kind, 1e39) else {
                continue;
            };
            let id = format!("x{}", expected.len());
            let mut n = node(&id, &kind.spec.kind);
            n.params.insert(p.name.clone(), v);
            doc.nodes.push(n);
            expected.push((id, p.name.clone()));
        }
    }
    assert!(expected.len() > 40, "{}", expected.len());
    let errors = compile(&doc, &reg).expect_err("refused");
    for (id, param) in &expected {
        assert!(
            errors
                .iter()
                .any(|e| e.node.as_deref() == Some(id) && e.field.as_deref() == Some(param)),
            "node {id}: `{param}` = 1e39 is not refused"
        );
    }
}

#[test]
fn settings_errors_name_the_settings_path_and_the_real_bound() {
    let mut doc = graph("dam_break_2d.ron");
    for (bad, field, bound) in [
        (
            "settings.max_substeps=-1",
            "`settings.max_substeps`",
            "from 1",
        ),
        ("settings.frames=2.5", "`settings.frames`", "from 1"),
        ("settings.seed=-1", "`settings.seed`", "from 0"),
        ("settings.fps=fast", "`settings.fps`", "a number"),
        ("settings.grid=[64, -64, 1]", "`settings.grid`", "from 1"),
    ] {
        let err = bad
            .parse()
            .and_then(|o| apply_override(&mut doc, &o))
            .expect_err(bad)
            .to_string();
        assert!(err.contains(field) && err.contains(bound), "{bad}: {err}");
    }
}

#[test]
fn export_prefixes_cannot_leave_the_output_folder() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    for (file, node) in WRITERS {
        for escape in [
            "../escape_prefix",
            "../../x_",
            "/tmp/flipgraph-x_",
            "a\\..\\..\\b",
        ] {
            // a prefix is part of a file name: refused even where folders may leave `--out`
            for allow in [false, true] {
                let mut doc = graph(file);
                set(&mut doc, node, "prefix", ParamValue::Text(escape.into()));
                let errors = instantiate(&doc, &out, allow).err().expect(escape);
                find(&errors, Some(node), Some("prefix"), "file name");
            }
        }
    }
    let mut doc = graph("dam_break_2d.ron");
    set(
        &mut doc,
        "export",
        "prefix",
        ParamValue::Text("..f_".into()),
    );
    instantiate(&doc, &out, false).expect("dots inside a file name are fine");
}

#[test]
fn validation_refuses_an_emitter_outside_the_domain_before_preparing_meshes() {
    // A cell of 1 µm: the domain is 40 µm wide and the imported cup (~0.5 m away) is far
    // outside it. Preparing the cup's distance cache for that resolution took ~21 s of CPU;
    // the emitter's cheap check refuses first (the cache's own bound: flip-core's
    // `the_caches_follow_the_domain_not_the_mesh_in_cells`).
    let mut doc = graph("cup_pour_3d.ron");
    doc.settings.cell_size = 1e-6;
    let out = tempfile::tempdir().unwrap();
    let errors = instantiate(&doc, out.path(), false).err().expect("refused");
    find(
        &errors,
        Some("pool"),
        Some("center"),
        "entirely outside the domain",
    );
}
