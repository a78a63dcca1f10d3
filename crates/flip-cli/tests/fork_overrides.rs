//! A fork with overrides (`run --from OUT --frame N --set …`) equals the run it describes: the
//! original graph simulated to frame N, then the overridden graph continued from that state in
//! memory, the changed node starting fresh. So the checkpoint file, its reading and the CLI's
//! override path change nothing else.

mod common;
use common::{deps_dir, frame_hashes, root};

use flip_graph::overrides::{apply_overrides, parse_overrides};
use flip_graph::{GraphDoc, Simulation};
use flip_host::PluginSet;
use std::process::{Command, Output};
use std::sync::Arc;

fn run_ok(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .current_dir(root())
        .args(["--plugin-dir", deps_dir().to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{text}");
    o
}

/// The small 2D dam break the test runs (graph-file overrides).
const BASE: [&str; 3] = [
    "settings.grid=[32,32,1]",
    "settings.cell_size=0.03125",
    "export.png=false",
];
const CHANGE: &str = "g2p.flip_ratio=0.5";

fn doc(extra: &[&str]) -> GraphDoc {
    let mut doc = GraphDoc::load(&root().join("graphs/dam_break_2d.ron")).unwrap();
    let sets: Vec<&str> = BASE.iter().chain(extra).copied().collect();
    apply_overrides(&mut doc, &parse_overrides(&sets).unwrap()).unwrap();
    doc
}

#[test]
fn a_fork_with_overrides_equals_the_run_continued_in_memory_with_them() {
    let (original, fork, memory) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let path = |d: &tempfile::TempDir| d.path().to_str().unwrap().to_string();
    let mut args = vec!["run", "graphs/dam_break_2d.ron", "--quiet", "--frames", "4"];
    let sets: Vec<String> = BASE
        .iter()
        .flat_map(|s| ["--set", s])
        .map(String::from)
        .collect();
    args.extend(sets.iter().map(String::as_str));
    let out = path(&original);
    args.extend(["--out", &out]);
    run_ok(&args);
    let (fork_out, frames) = (path(&fork), "7");
    run_ok(&[
        "run", "--from", &out, "--frame", "4", "--out", &fork_out, "--set", CHANGE, "--frames",
        frames, "--quiet",
    ]);

    // The same in memory: frames 1-4 of the original, then the changed graph from its state.
    let plugins = Arc::new(PluginSet::load_dirs(&[deps_dir()]));
    let registry = flip_nodes::builtin_registry(plugins);
    let base_dir = root().join("graphs");
    let scratch = tempfile::tempdir().unwrap();
    let mut first = Simulation::new(&doc(&[]), &registry, scratch.path(), &base_dir).unwrap();
    for _ in 0..4 {
        first.advance_frame().unwrap();
    }
    let snap = first.snapshot().unwrap();
    let mut second = Simulation::new(&doc(&[CHANGE]), &registry, memory.path(), &base_dir).unwrap();
    second.fork_from(&snap, &["g2p"]).unwrap();
    for _ in 4..7 {
        second.advance_frame().unwrap();
    }

    let (forked, continued) = (frame_hashes(fork.path()), frame_hashes(memory.path()));
    assert_eq!(
        forked.keys().collect::<Vec<_>>(),
        ["frame_0005.ply", "frame_0006.ply", "frame_0007.ply"]
    );
    assert_eq!(forked, continued);
    // and the change is real: the unchanged original continued differs
    run_ok(&[
        "run",
        "--from",
        &out,
        "--frame",
        "4",
        "--out",
        &path(&scratch),
        "--frames",
        frames,
        "--quiet",
    ]);
    assert_ne!(
        frame_hashes(scratch.path())["frame_0007.ply"],
        forked["frame_0007.ply"]
    );
}
