//! The `flipgraph` binary as a user runs it: exit codes, one-line reasons, compare reports.

mod common;
use common::{deps_dir, flipgraph, root, text};

use std::path::Path;
use std::process::{Command, Output};

const SMALL: [&str; 6] = [
    "--set",
    "settings.grid=32",
    "--set",
    "export.png=false",
    "--set",
    "export.ply=false",
];

#[test]
fn run_writes_frames_and_prints_a_summary() {
    let out = tempfile::tempdir().unwrap();
    let o = flipgraph(&[
        "run",
        "graphs/dam_break_2d.ron",
        "--frames",
        "2",
        "--quiet",
        "--out",
        out.path().to_str().unwrap(),
        "--set",
        "settings.grid=32",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("pressure solves:") && t.contains("ms/substep"),
        "{t}"
    );
    assert!(
        out.path().join("frames/frame_0002.ply").exists()
            && out.path().join("frames/frame_0002.png").exists()
    );
}

#[test]
fn bad_input_exits_non_zero_with_a_reason() {
    let o = flipgraph(&["validate", "graphs/no_such.ron"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("error: graphs/no_such.ron: cannot read"),
        "{}",
        text(&o)
    );
    let o = flipgraph(&[
        "run",
        "graphs/dam_break_2d.ron",
        "--set",
        "g2p.flip_ratio=2",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("node `g2p`, `flip_ratio`: 2 is outside [0, 1]"),
        "{}",
        text(&o)
    );
    let o = flipgraph(&["run", "graphs/dam_break_2d.ron", "--set", "nosuchnode.x=1"]);
    assert!(text(&o).contains("no node `nosuchnode`"), "{}", text(&o));
}

fn compare(variants: &[&str], dir: &Path, frames: &str) -> Output {
    let mut args = vec![
        "compare",
        "graphs/dam_break_2d.ron",
        "--frames",
        frames,
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(&SMALL);
    for v in variants {
        args.extend_from_slice(&["--variant", v]);
    }
    flipgraph(&args)
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn a_variant_compared_with_itself_shows_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    let o = compare(
        &[
            "a:pressure.solver=pcg/mic0-pcg",
            "b:pressure.solver=pcg/mic0-pcg",
        ],
        dir.path(),
        "4",
    );
    assert!(o.status.success(), "{}", text(&o));
    let s = summary(dir.path());
    for f in s[1]["frames"].as_array().unwrap() {
        assert_eq!(f["rms_vs_baseline"].as_f64().unwrap(), 0.0);
    }
    for file in [
        "metrics.csv",
        "plot_rms_vs_baseline.png",
        "plot_max_divergence.png",
        "preview_0004.png",
    ] {
        assert!(dir.path().join(file).exists(), "{file} missing");
    }
}

/// Two pressure solvers compared on the shipped graph with rigid bodies (floating boxes, 24³):
/// both take the coupled problem kind, and their runs agree.
#[test]
fn two_solvers_compare_on_a_graph_with_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let o = flipgraph(&[
        "compare",
        "graphs/floating_boxes_3d.ron",
        "--frames",
        "2",
        "--out",
        dir.path().to_str().unwrap(),
        "--set",
        "settings.grid=24",
        "--set",
        "settings.cell_size=0.041666666666666664",
        "--set",
        "export.png=false",
        "--set",
        "export.ply=false",
        "--variant",
        "mgpcg:pressure.solver=multigrid/mgpcg",
        "--variant",
        "mic0:pressure.solver=pcg/mic0-pcg",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let s = summary(dir.path());
    for v in 0..2 {
        assert!(s[v]["failure"].is_null(), "{}", s[v]["failure"]);
        assert_eq!(s[v]["frames"].as_array().unwrap().len(), 2);
    }
    let rms = s[1]["frames"][1]["rms_vs_baseline"].as_f64().unwrap();
    assert!(rms < 1e-5, "the solvers disagree by {rms} m");
}

#[test]
fn a_tighter_tolerance_gives_a_smaller_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let o = compare(
        &[
            "loose:pressure.rel_tolerance=1e-2",
            "tight:pressure.rel_tolerance=1e-8",
        ],
        dir.path(),
        "3",
    );
    assert!(o.status.success(), "{}", text(&o));
    let s = summary(dir.path());
    let worst = |v: usize| {
        s[v]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["max_divergence"].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    assert!(
        worst(1) < 0.1 * worst(0),
        "tight {} vs loose {}",
        worst(1),
        worst(0)
    );
    assert!(s[0]["frames"][2]["rms_vs_baseline"].as_f64().unwrap() == 0.0);
    assert!(s[1]["frames"][2]["rms_vs_baseline"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_failing_variant_is_reported_and_the_others_finish() {
    let dir = tempfile::tempdir().unwrap();
    let faulty = deps_dir().join(format!(
        "{}fixture_faulty{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let extra = faulty.parent().unwrap().to_str().unwrap().to_string();
    // The faulty fixture is not named flipgraph_*, so copy it under a plugin name.
    let plugdir = tempfile::tempdir().unwrap();
    std::fs::copy(
        &faulty,
        plugdir.path().join(format!(
            "{}flipgraph_faulty{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        )),
    )
    .unwrap();
    let mut args = vec![
        "--plugin-dir",
        plugdir.path().to_str().unwrap(),
        "compare",
        "graphs/dam_break_2d.ron",
        "--frames",
        "3",
        "--out",
        dir.path().to_str().unwrap(),
        "--variant",
        "good:pressure.solver=pcg/mic0-pcg",
        "--variant",
        "bad:pressure.solver=faulty/nan,pressure.fail_after=2",
    ];
    args.extend_from_slice(&SMALL);
    let o = Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .current_dir(root())
        .args(["--plugin-dir", &extra])
        .args(&args)
        .output()
        .unwrap();
    // The other variant finishes and the report is written, but a script must see the failure.
    assert_eq!(o.status.code(), Some(6), "{}", text(&o));
    assert!(
        text(&o).contains("1 of 2 variants failed") && text(&o).contains("variant `bad` failed"),
        "{}",
        text(&o)
    );
    let s = summary(dir.path());
    assert_eq!(s[0]["frames"].as_array().unwrap().len(), 3);
    assert!(s[0]["failure"].is_null());
    let failure = s[1]["failure"].as_str().unwrap();
    assert!(
        failure.contains("pressure") && failure.contains("non-finite"),
        "{failure}"
    );
    assert!(
        text(&o).contains("bad") && text(&o).contains("non-finite"),
        "{}",
        text(&o)
    );
}

/// A scratch node nobody wired is left out of the run, and both `validate` and `run` say so.
#[test]
fn an_unwired_scratch_node_is_named_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let ron = std::fs::read_to_string(root().join("graphs/dam_break_2d.ron")).unwrap();
    let step_in = r#"(id: "step_in", kind: "step_input"),"#;
    assert!(
        ron.contains(step_in),
        "the shipped dam break has its step input"
    );
    let scratch = format!(r#"{step_in} (id: "scratch", kind: "gravity"),"#);
    let graph = dir.path().join("scratch.ron");
    std::fs::write(&graph, ron.replacen(step_in, &scratch, 1)).unwrap();
    let graph = graph.to_str().unwrap();
    let o = flipgraph(&["validate", graph]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("left out of the run (no wires): scratch"));
    let out = dir.path().join("out");
    let o = flipgraph(&[
        "run",
        graph,
        "--frames",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("note: left out of the run (no wires): scratch"),
        "{stderr}"
    );
}
