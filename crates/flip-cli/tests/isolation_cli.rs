//! The binary with `pressure.isolation = "process"`: a crashing or hanging solver ends the run
//! with a clear message, the frames before it intact and nothing left behind (no child, no
//! shared-memory file); a killed host takes its solver child with it; `validate` checks the
//! new parameters.

mod common;
use common::text;

use flipgraph_tests::hostile_copy;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn flipgraph(plugins: &Path, cache: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flipgraph"));
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    c.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("XDG_CACHE_HOME", cache)
        .args(["--plugin-dir", deps.to_str().unwrap()])
        .args(["--plugin-dir", plugins.to_str().unwrap()]);
    c
}

/// A 24² dam break for 3 frames (2 solves a frame) with `solver` isolated.
fn run_args(out: &Path, solver: &str) -> Vec<String> {
    let sets = [
        "settings.grid=24",
        "export.png=false",
        "pressure.isolation=process",
        "pressure.fail_after=4",
    ];
    let mut a: Vec<String> = ["run", "graphs/dam_break_2d.ron", "--quiet", "--frames=3"]
        .map(String::from)
        .into();
    a.extend(["--out".into(), out.display().to_string()]);
    for s in sets
        .iter()
        .map(|s| s.to_string())
        .chain([format!("pressure.solver={solver}")])
    {
        a.extend(["--set".into(), s]);
    }
    a
}

/// Shared-memory files of process `pid` left in /dev/shm.
fn shm_files(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("flipgraph-solver-{pid}-");
    std::fs::read_dir("/dev/shm").map_or(Vec::new(), |d| {
        d.flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
            })
            .collect()
    })
}

#[test]
fn a_crashing_or_hanging_isolated_solver_ends_the_run_keeping_earlier_frames() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    for (solver, extra, message) in [
        ("hostile/crash-segv", None, "failed during solve: the plugin process was killed by signal 11 (SIGSEGV)"),
        ("hostile/ignore-cancel", Some("pressure.time_limit=0.2"), "failed during solve: the call ignored its time limit of 0.200 s and cancellation; the plugin process was killed after"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let start = Instant::now();
        let mut cmd = flipgraph(dir.path(), cache.path());
        cmd.args(run_args(out.path(), solver));
        if let Some(e) = extra {
            cmd.args(["--set", e]);
        }
        let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let pid = child.id();
        let o = child.wait_with_output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(3), "{t}");
        assert!(t.contains("frame 3, node `pressure`"), "{t}");
        assert!(t.contains(&format!("plugin `hostile` algorithm `{}` (isolation = \"process\") {message}", &solver[8..])), "{t}");
        assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
        for f in 1..=2 {
            assert!(out.path().join(format!("frames/frame_{f:04}.ply")).is_file(), "frame {f}");
        }
        let verify = Command::new(env!("CARGO_BIN_EXE_flipgraph"))
            .args(["verify", out.path().to_str().unwrap()])
            .output()
            .unwrap();
        assert!(verify.status.success(), "{}", text(&verify));
        assert_eq!(shm_files(pid), Vec::<PathBuf>::new(), "no shared file left");
    }
}

/// Processes whose environment holds `tag` and whose command line contains `arg` (any
/// process of the tag when `arg` is empty).
fn tagged(tag: &str, arg: &str) -> usize {
    let needle = format!("FLIPGRAPH_TEST_TAG={tag}");
    let has = |file: &[u8], word: &[u8]| file.split(|&b| b == 0).any(|v| v == word);
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let env = std::fs::read(e.path().join("environ")).unwrap_or_default();
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            has(&env, needle.as_bytes()) && (arg.is_empty() || has(&cmd, arg.as_bytes()))
        })
        .count()
}

#[test]
fn a_killed_host_takes_its_hung_solver_child_with_it() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let tag = format!("{}-{:?}", std::process::id(), Instant::now());
    let mut host = flipgraph(dir.path(), cache.path())
        .args(run_args(out.path(), "hostile/ignore-cancel"))
        .env("FLIPGRAPH_TEST_TAG", &tag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The plugin probe's child carries the tag too: wait for the solver child itself.
    let start = Instant::now();
    while tagged(&tag, "__solver-child") == 0 && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        tagged(&tag, "__solver-child"),
        1,
        "the solver child running"
    );
    host.kill().unwrap();
    host.wait().unwrap();
    let start = Instant::now();
    while tagged(&tag, "") > 0 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(tagged(&tag, ""), 0, "no orphaned solver child");
}

#[test]
fn validate_checks_the_isolation_parameters() {
    let cache = tempfile::tempdir().unwrap();
    let validate = |sets: &[&str]| {
        let mut c = flipgraph(cache.path(), cache.path());
        c.args(["validate", "graphs/dam_break_2d.ron"]);
        for s in sets {
            c.args(["--set", s]);
        }
        c.output().unwrap()
    };
    let ok = validate(&[
        "pressure.isolation=process",
        "pressure.fallback_solver=pcg/mic0-pcg",
    ]);
    assert!(ok.status.success(), "{}", text(&ok));
    let bad = validate(&["pressure.isolation=thread"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad).contains("node `pressure`, `isolation`: `thread` is not one of none, process"),
        "{}",
        text(&bad)
    );
    let bad = validate(&["pressure.fallback_solver=nope/x"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad).contains("node `pressure`, `fallback_solver`: `nope/x` is not one of the"),
        "{}",
        text(&bad)
    );
    // The bundled plugins are found through `--plugin-dir deps`: a clean checkout's `cargo test`
    // builds them there, not next to the executable.
    let lcp = flipgraph(cache.path(), cache.path())
        .args([
            "validate",
            "graphs/lcp_circle_2d.ron",
            "--set",
            "pressure.fallback_solver=pcg/cg",
        ])
        .output()
        .unwrap();
    assert_eq!(lcp.status.code(), Some(1));
    assert!(
        text(&lcp)
            .contains("`fallback_solver`: `pcg/cg` cannot stand in: this node needs an LCP solver"),
        "{}",
        text(&lcp)
    );
}

#[test]
fn the_switch_to_the_fallback_is_a_typed_progress_event() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let o = flipgraph(dir.path(), cache.path())
        .args(run_args(out.path(), "hostile/crash-segv"))
        .args([
            "--progress",
            "json",
            "--set",
            "pressure.fallback_solver=pcg/mic0-pcg",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let switched: Vec<_> = events
        .iter()
        .filter(|e| e["event"] == "solver_fallback")
        .collect();
    assert_eq!(switched.len(), 1, "{events:?}");
    let e = switched[0];
    assert_eq!(
        (
            &e["node"],
            &e["plugin"],
            &e["algorithm"],
            &e["fallback"],
            &e["frame"]
        ),
        (
            &"pressure".into(),
            &"hostile".into(),
            &"crash-segv".into(),
            &"pcg/mic0-pcg".into(),
            &3.into()
        ),
        "{e}"
    );
    assert!(e["reason"].as_str().unwrap().contains("SIGSEGV"), "{e}");
    // Not as text on stderr instead.
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("fallback"),
        "{}",
        text(&o)
    );
}
