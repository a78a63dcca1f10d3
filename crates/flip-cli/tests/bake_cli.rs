//! The run manifest, `verify`, `--progress json`, the exit-status table and `estimate`, each
//! through the real binary.

mod common;
use common::{deps_dir, faulty_plugin_dir, flipgraph, root, text};

use std::path::Path;
use std::process::{Command, Output};

/// A 2D dam break on 32² cells writing PLY frames into `out`, plus `extra` arguments.
fn dam_break(out: &Path, frames: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "graphs/dam_break_2d.ron",
        "--frames",
        frames,
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "settings.grid=[32,32,1]",
        "--set",
        "settings.cell_size=0.03125",
        "--set",
        "export.png=false",
    ];
    args.extend_from_slice(extra);
    flipgraph(&args)
}

fn manifest(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap()
}

#[test]
fn the_manifest_records_the_run_and_verify_finds_flipped_torn_and_missing_frames() {
    let out = tempfile::tempdir().unwrap();
    let o = dam_break(out.path(), "4", &[]);
    assert!(o.status.success(), "{}", text(&o));
    let m = manifest(out.path());
    assert_eq!(m["status"], "done");
    assert_eq!(m["frame_records"].as_array().unwrap().len(), 4);
    assert_eq!(m["graph_sha256"].as_str().unwrap().len(), 64);
    assert!(
        m["graph"].as_str().unwrap().contains("(32, 32, 1)"),
        "resolved graph"
    );
    let pcg = m["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "pcg");
    let pcg = pcg.expect("the pcg plugin is listed");
    assert_eq!(
        (pcg["abi"].as_u64(), pcg["used"].as_bool()),
        (Some(2), Some(true))
    );
    assert_eq!(m["checkpoints"], serde_json::json!([4]));
    let v = flipgraph(&["verify", out.path().to_str().unwrap()]);
    assert!(v.status.success(), "{}", text(&v));

    let frame = |n: u32| out.path().join(format!("frames/frame_{n:04}.ply"));
    let mut bytes = std::fs::read(frame(2)).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(frame(2), &bytes).unwrap();
    let len = std::fs::metadata(frame(3)).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(frame(3))
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    std::fs::remove_file(frame(4)).unwrap();
    let v = flipgraph(&["verify", out.path().to_str().unwrap()]);
    let t = text(&v);
    assert_eq!(v.status.code(), Some(1), "{t}");
    assert!(t.contains("frame 2: frames/frame_0002.ply: changed"), "{t}");
    assert!(t.contains("frame 3: frames/frame_0003.ply: torn"), "{t}");
    assert!(t.contains("frame 4: frames/frame_0004.ply: missing"), "{t}");
    assert!(!t.contains("frame 1:"), "{t}");
}

#[test]
fn progress_json_is_one_object_per_line() {
    let out = tempfile::tempdir().unwrap();
    let o = dam_break(
        out.path(),
        "3",
        &["--progress", "json", "--checkpoint-every", "2"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let events: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "started",
            "frame",
            "frame",
            "checkpoint",
            "frame",
            "checkpoint",
            "finished"
        ]
    );
    assert_eq!(events[0]["frames"], 3);
    let frame = &events[2];
    assert_eq!(frame["frame"], 2);
    assert!(frame["substeps"].as_u64().unwrap() >= 1);
    assert!(frame["solver"]["iterations"].as_f64().unwrap() > 0.0);
    assert!(frame["eta_s"].as_f64().unwrap() >= 0.0);
    assert_eq!(events[3]["frame"], 2);
}

#[test]
fn each_exit_status_comes_from_a_real_case() {
    let out = tempfile::tempdir().unwrap();
    let status = |o: Output| (o.status.code(), text(&o));
    // 1: the graph is invalid.
    let (code, t) = status(dam_break(
        out.path(),
        "1",
        &["--set", "settings.grid=[2,2,1]"],
    ));
    assert_eq!(code, Some(1), "{t}");
    // 2: usage (clap's, and a resume of a folder that holds no run).
    let (code, t) = status(flipgraph(&["run", "--frame", "3"]));
    assert_eq!(code, Some(2), "{t}");
    let (code, t) = status(flipgraph(&[
        "run",
        "--resume",
        out.path().to_str().unwrap(),
    ]));
    assert_eq!(code, Some(2), "{t}");
    // 4: the simulation blows up (absurd gravity).
    let (code, t) = status(dam_break(
        out.path(),
        "3",
        &["--set", "gravity.gravity=[0,-1e30,0]"],
    ));
    assert_eq!(code, Some(4), "{t}");
    assert!(t.contains("blew up"), "{t}");
    assert_eq!(manifest(out.path())["status"], "failed");
    // 5: a grid that cannot fit under a 3 GiB address-space limit is refused up front.
    let o = Command::new("sh")
        .current_dir(root())
        .arg("-c")
        .arg(format!(
            "ulimit -v 3000000; exec '{}' --plugin-dir '{}' run graphs/drop_3d.ron --quiet \
             --frames 1 --out '{}' --set settings.grid=[512,512,512]",
            env!("CARGO_BIN_EXE_flipgraph"),
            deps_dir().display(),
            out.path().display()
        ))
        .output()
        .unwrap();
    let (code, t) = status(o);
    assert_eq!(code, Some(5), "{t}");
    assert!(
        t.contains("GiB of memory") && t.contains("ulimit -v"),
        "{t}"
    );
}

#[test]
fn a_plugin_failure_exits_3() {
    let plugdir = faulty_plugin_dir();
    let out = tempfile::tempdir().unwrap();
    let o = dam_break(
        out.path(),
        "3",
        &[
            "--plugin-dir",
            plugdir.path().to_str().unwrap(),
            "--set",
            "pressure.solver=faulty/nan",
            "--set",
            "pressure.fail_after=1",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
}

/// Peak RSS of a run (getrusage, recorded in run.json) against `estimate`.
fn estimate_matches_peak_rss(graph: &str, sets: &[&str]) {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["run", graph, "--frames", "2", "--quiet", "--out"];
    args.push(out.path().to_str().unwrap());
    let mut est = vec!["estimate", graph, "--json"];
    for s in sets {
        args.extend(["--set", s]);
        est.extend(["--set", s]);
    }
    let o = flipgraph(&args);
    assert!(o.status.success(), "{}", text(&o));
    let peak = manifest(out.path())["peak_rss_bytes"].as_f64().unwrap();
    let o = flipgraph(&est);
    assert!(o.status.success(), "{}", text(&o));
    let e: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let predicted = e["memory_bytes"].as_f64().unwrap();
    let data = peak - e["baseline_bytes"].as_f64().unwrap();
    eprintln!(
        "{graph}: peak RSS {peak:.3e} B ({data:.3e} above start-up), estimate {predicted:.3e} B"
    );
    assert!(
        (predicted / peak - 1.0).abs() < 0.25,
        "{graph}: estimate {predicted:.3e} vs peak {peak:.3e}"
    );
}

#[test]
fn the_memory_estimate_is_within_25_percent_of_peak_rss() {
    estimate_matches_peak_rss("graphs/dam_break_2d.ron", &["export.png=false"]);
    estimate_matches_peak_rss(
        "graphs/drop_3d.ron",
        &[
            "export.png=false",
            "settings.grid=[40,40,40]",
            "settings.cell_size=0.025",
        ],
    );
}

#[test]
fn keep_checkpoints_deletes_all_but_the_newest_and_the_run_still_extends() {
    let out = tempfile::tempdir().unwrap();
    let o = dam_break(
        out.path(),
        "6",
        &["--checkpoint-every", "1", "--keep-checkpoints", "2"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let mut files: Vec<String> = std::fs::read_dir(out.path().join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["frame_000005.fgck", "frame_000006.fgck"]);
    assert_eq!(
        manifest(out.path())["checkpoints"],
        serde_json::json!([5, 6])
    );
    // the rule is the run's: extending it keeps pruning
    let o = flipgraph(&[
        "run",
        "--resume",
        out.path().to_str().unwrap(),
        "--frames",
        "8",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        manifest(out.path())["checkpoints"],
        serde_json::json!([7, 8])
    );
}
