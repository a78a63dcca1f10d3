//! Sweeps on a cluster scheduler: `compare --slurm` writes an array job whose tasks, run here
//! one after another as the array would, merge (`compare --merge`) into the report a plain
//! `compare` of the same variants writes; a lost or unfinished task is a failed variant.

mod common;
use common::{flipgraph, text};

use std::path::Path;
use std::process::{Command, Output};

/// Three variants (one whose override is refused) of a small dam break, 4 frames.
fn compare_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "compare",
        "graphs/dam_break_2d.ron",
        "--frames",
        "4",
        "--set",
        "settings.grid=32",
        "--set",
        "export.png=false",
        "--set",
        "export.ply=false",
        "--variant",
        "tight:pressure.rel_tolerance=1e-8",
        "--variant",
        "loose:pressure.rel_tolerance=1e-2",
        "--variant",
        "bad:g2p.flip_ratio=2",
    ];
    a.extend_from_slice(extra);
    a
}

/// Runs task `k` through the written script, as Slurm's array task `k` would.
fn run_array_task(sweep: &Path, k: usize) -> Output {
    Command::new("bash")
        .arg(sweep.join("sweep.sbatch"))
        .env("SLURM_ARRAY_TASK_ID", k.to_string())
        .output()
        .expect("bash runs")
}

/// A CSV with its timing column (solve_ms, the only one that is not deterministic) blanked.
fn csv_without_timing(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let col = rows[0].iter().position(|c| c == "solve_ms").unwrap();
    for r in &mut rows {
        r[col].clear();
    }
    rows
}

fn summary_without_timing(path: &Path) -> serde_json::Value {
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for v in s.as_array_mut().unwrap() {
        for f in v["frames"].as_array_mut().unwrap() {
            f["solve_ms"] = serde_json::Value::Null;
        }
    }
    s
}

#[test]
fn merged_array_tasks_equal_a_plain_compare_and_lost_tasks_show_as_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, sweep) = (tmp.path().join("plain"), tmp.path().join("sweep"));
    // The variant with the refused override fails: the report is written, the status says so.
    let o = flipgraph(&compare_args(&["--out", plain.to_str().unwrap()]));
    assert_eq!(o.status.code(), Some(6), "{}", text(&o));

    let o = flipgraph(&compare_args(&[
        "--slurm",
        sweep.to_str().unwrap(),
        "--sbatch=--time=00:10:00",
    ]));
    assert!(o.status.success(), "{}", text(&o));
    let script = std::fs::read_to_string(sweep.join("sweep.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=0-2",
        "#SBATCH --time=00:10:00",
        "--task \"$SLURM_ARRAY_TASK_ID\"",
    ] {
        assert!(script.contains(line), "{line} missing from:\n{script}");
    }
    for k in 0..3 {
        let o = run_array_task(&sweep, k);
        // The variant with the refused override fails its task; the others succeed.
        assert_eq!(o.status.success(), k != 2, "task {k}: {}", text(&o));
    }
    let o = flipgraph(&["compare", "--merge", sweep.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}", text(&o));

    assert_eq!(
        csv_without_timing(&plain.join("metrics.csv")),
        csv_without_timing(&sweep.join("metrics.csv"))
    );
    assert_eq!(
        summary_without_timing(&plain.join("summary.json")),
        summary_without_timing(&sweep.join("summary.json"))
    );
    for file in [
        "preview_0001.png",
        "preview_0002.png",
        "preview_0004.png",
        "plot_volume.png",
        "plot_rms_vs_baseline.png",
    ] {
        assert_eq!(
            std::fs::read(plain.join(file)).unwrap(),
            std::fs::read(sweep.join(file)).unwrap(),
            "{file} differs"
        );
    }

    // A task whose result was lost, and one stopped mid-run, are failed variants, not dropped.
    std::fs::remove_file(sweep.join("tasks/0/task.json")).unwrap();
    let result = sweep.join("tasks/1/task.json");
    let unfinished = std::fs::read_to_string(&result)
        .unwrap()
        .replace("\"complete\": true", "\"complete\": false");
    std::fs::write(&result, unfinished).unwrap();
    let o = flipgraph(&["compare", "--merge", sweep.to_str().unwrap()]);
    assert!(!o.status.success(), "every variant failed: {}", text(&o));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("summary.json")).unwrap())
            .unwrap();
    let names: Vec<_> = s
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].clone())
        .collect();
    assert_eq!(names, ["tight", "loose", "bad"]);
    let why = |k: usize| s[k]["failure"].as_str().unwrap_or_default().to_string();
    assert!(why(0).contains("task 0 left no result"), "{}", why(0));
    assert!(
        why(1).contains("task 1 stopped after frame 4"),
        "{}",
        why(1)
    );
    // The unfinished task keeps the frames it completed.
    assert_eq!(s[1]["frames"].as_array().unwrap().len(), 4);
}
