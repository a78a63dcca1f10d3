//! Hostile node plugins (`tests/fixtures/hostile-node`): every malformed table is refused at
//! load naming the file and the reason, with untrusted text sanitised; every misbehaving
//! `eval` fails the run naming the plugin, the node and the reason, and the frames written
//! before stay whole; isolated (`isolation = "process"`), an `eval` that aborts, exits or hangs
//! fails the run the same way and the host keeps running.

use flip_graph::{EdgeDoc, GraphDoc, NodeRegistry, ParamValue, Simulation};
use flip_host::{ChildCommand, LoadOptions, PluginSet};
use flipgraph_tests::{fixture_lib, graph, graphs_dir};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A copy of the fixture with its mode marker patched to `mode`, named like a plugin.
fn hostile_node(dir: &Path, mode: &str) -> PathBuf {
    let mut bytes = std::fs::read(fixture_lib("fixture_hostile_node")).expect("fixture built");
    let mut marker = [0u8; 32];
    marker[..9].copy_from_slice(b"FGNODE:ok");
    let at = bytes
        .windows(32)
        .position(|w| w == marker)
        .expect("the mode marker is in the library");
    let text = format!("FGNODE:{mode}");
    let mut patched = [0u8; 32];
    patched[..text.len()].copy_from_slice(text.as_bytes());
    bytes[at..at + 32].copy_from_slice(&patched);
    let path = dir.join(format!(
        "{}flipgraph_hostile_node{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::write(&path, bytes).expect("writable");
    path
}

fn load(dir: &Path) -> PluginSet {
    PluginSet::load(&LoadOptions {
        user_dirs: vec![dir.to_path_buf()],
        builtin_node_kinds: flip_nodes::builtin_kind_names(),
        ..LoadOptions::default()
    })
}

#[test]
fn malformed_node_tables_are_refused_at_load_naming_file_and_reason() {
    let cases = [
        ("null-table", "returned a null table"),
        ("null-eval", "required entry `eval` is null"),
        ("partial-state", "all present or all null"),
        ("zero-kinds", "kind_count 0"),
        ("lying-ports", "ports is null but its count is 3"),
        ("bad-kind", "unknown data kind 42"),
        ("bad-flags", "unknown flag bits 0x80"),
        ("input-from-input", "from-input for outputs"),
        ("particles-fresh", "must start from its input"),
        ("bad-param", "range [3, 1]"),
        ("reserved-param", "reserved"),
        ("non-utf8-name", "not UTF-8"),
        ("escape-name", "is not a name of [a-z0-9_]"),
        ("builtin-name", "`gravity` has the name of a built-in node"),
        ("wrong-api", "expected `flipgraph.node`"),
        ("wrong-version", "plugin built for ABI 7"),
    ];
    for (mode, reason) in cases {
        let dir = tempfile::tempdir().unwrap();
        let file = hostile_node(dir.path(), mode);
        let set = load(dir.path());
        assert!(set.nodes.is_empty(), "{mode}: loaded");
        assert_eq!(set.refused.len(), 1, "{mode}: {:?}", set.refused);
        let text = set.refused[0].to_string();
        assert!(text.contains(reason), "{mode}: {text}");
        assert!(text.contains(&*file.to_string_lossy()), "{mode}: {text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\n'),
            "{mode}: {text:?}"
        );
    }
}

#[test]
fn escapes_in_a_label_are_shown_sanitised() {
    let dir = tempfile::tempdir().unwrap();
    hostile_node(dir.path(), "escape-label");
    let set = load(dir.path());
    assert!(set.refused.is_empty(), "{:?}", set.refused);
    let label = &set.nodes[0].kinds[0].label;
    assert!(
        !label.contains('\u{1b}') && !label.contains('\n'),
        "{label:?}"
    );
    assert!(label.contains("\\e]0;pwned"), "{label}");
}

/// The 2D dam break at 40² with the meddle node on the particles between advection and the
/// next step and export, misbehaving as `misbehave` after `after` evaluations.
fn meddled_dam_break(misbehave: &str, after: f64) -> GraphDoc {
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [40, 40, 1];
    doc.settings.cell_size = 1.0 / 40.0;
    let text = format!(
        "(id: \"meddle\", kind: \"hostile_node/meddle\", params: {{ \"misbehave\": \"{misbehave}\", \"after\": {after} }})"
    );
    doc.nodes.push(ron::from_str(&text).expect("a node"));
    for e in &mut doc.edges {
        if e.from == "advect.particles" {
            e.from = "meddle.particles".into();
        }
    }
    doc.edges
        .push(EdgeDoc::new("advect.particles", "meddle.particles"));
    doc
}

/// The registry with the hostile node (mode `ok`), the solvers the dam break needs, and the
/// test's child for isolated nodes.
fn hostile_registry(lib: &Path) -> NodeRegistry {
    hostile_node(lib, "ok");
    let mut set = load(lib);
    for id in ["pcg", "multigrid"] {
        let lib = fixture_lib(&format!("flipgraph_{id}"));
        assert!(set.add_file(&lib).is_none(), "{}", lib.display());
    }
    assert!(set.refused.is_empty(), "{:?}", set.refused);
    set.solver_child = Some(ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    });
    flip_nodes::builtin_registry(Arc::new(set))
}

#[test]
fn misbehaving_evals_fail_the_run_naming_plugin_node_and_reason() {
    let lib = tempfile::tempdir().unwrap();
    let registry = hostile_registry(lib.path());
    let cases = [
        ("nan", "output `particles` velocity[1] = NaN is not finite"),
        ("panic", "the meddle node panics on purpose"),
        ("ids", "changed particle ids"),
        ("fail", "the meddle node fails on purpose"),
        (
            "overrun",
            "output `particles` was written past the end of its view",
        ),
    ];
    for (misbehave, reason) in cases {
        fails_cleanly(
            &registry,
            &meddled_dam_break(misbehave, 40.0),
            misbehave,
            &[reason],
        );
    }
}

/// Isolated, every misbehaviour fails the run naming the plugin, the node and the reason, the
/// crashes, exits and hangs of the child included, while this process (the host) keeps
/// running case after case.
#[test]
fn isolated_evals_that_crash_exit_or_hang_fail_the_run_and_the_host_survives() {
    let lib = tempfile::tempdir().unwrap();
    let registry = hostile_registry(lib.path());
    let isolated = "(isolation = \"process\") failed during eval: the plugin process";
    let cases = [
        ("abort", vec![isolated, "killed by signal 6 (SIGABRT)"]),
        ("exit", vec![isolated, "exited with status 7"]),
        (
            "hang",
            vec![
                "(isolation = \"process\") failed during eval",
                "ignored its time limit of 0.200 s and cancellation",
            ],
        ),
        (
            "overrun",
            vec!["output `particles` was written past the end of its view"],
        ),
        (
            "nan",
            vec!["output `particles` velocity[1] = NaN is not finite"],
        ),
        ("panic", vec!["the meddle node panics on purpose"]),
        ("fail", vec!["the meddle node fails on purpose"]),
        // the ids lie in the child's read-only mapping: the write itself kills it
        ("ids", vec![isolated, "killed by signal"]),
    ];
    for (misbehave, reasons) in cases {
        let mut doc = meddled_dam_break(misbehave, 40.0);
        let meddle = doc.node_mut("meddle").expect("the meddle node");
        meddle
            .params
            .insert("isolation".into(), ParamValue::Text("process".into()));
        meddle
            .params
            .insert("time_limit".into(), ParamValue::Number(0.2));
        fails_cleanly(&registry, &doc, misbehave, &reasons);
    }
}

/// Runs `doc` until it fails, which must be after the first frame with an error naming the
/// meddle node, the plugin and every one of `reasons`; the frames written before are whole.
fn fails_cleanly(registry: &NodeRegistry, doc: &GraphDoc, misbehave: &str, reasons: &[&str]) {
    let out = tempfile::tempdir().unwrap();
    let mut sim = Simulation::new(doc, registry, out.path(), &graphs_dir())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mut frames = 0;
    let error = loop {
        match sim.advance_frame() {
            Ok(_) => frames += 1,
            Err(e) => break e.to_string(),
        }
        assert!(frames < 50, "{misbehave}: never failed");
    };
    assert!(
        frames >= 1,
        "{misbehave}: failed in the first frame: {error}"
    );
    let named = ["meddle", "plugin `hostile_node`", "node `meddle`"];
    for part in named.iter().chain(reasons) {
        assert!(
            error.contains(part),
            "{misbehave}: `{part}` not in: {error}"
        );
    }
    // the frames written before the failure are whole PLY files
    let plys: Vec<PathBuf> = walk(out.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ply"))
        .collect();
    assert!(
        plys.len() >= frames,
        "{misbehave}: {} files for {frames} frames",
        plys.len()
    );
    for p in plys {
        let bytes = std::fs::read(&p).unwrap();
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).into_owned();
        let count: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("element vertex "))
            .and_then(|n| n.trim().parse().ok())
            .expect("a vertex count");
        let header = text.find("end_header\n").expect("a header") + "end_header\n".len();
        assert!(
            count > 0 && (bytes.len() - header).is_multiple_of(count),
            "{} is torn",
            p.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
