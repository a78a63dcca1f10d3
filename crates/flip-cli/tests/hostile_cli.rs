//! The binary against hostile plugins: refusals and plugin text in `plugins`, a solver that
//! ignores its time limit, a solver that ends the process, and SIGINT during a solve.

mod common;
use common::{root, text};

use flipgraph_tests::hostile_copy;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn flipgraph(plugins: &Path, cache: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flipgraph"));
    // target/<profile>/deps holds the freshly built plugins on a clean checkout.
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    c.current_dir(root())
        .env("XDG_CACHE_HOME", cache)
        .args(["--plugin-dir", deps.to_str().unwrap()])
        .args(["--plugin-dir", plugins.to_str().unwrap()]);
    c
}

const RUN: [&str; 10] = [
    "run",
    "graphs/dam_break_2d.ron",
    "--quiet",
    "--set",
    "settings.grid=24",
    "--set",
    "export.png=false",
    "--set",
    "export.ply=false",
    "--frames=3",
];

#[test]
fn plugins_lists_refusals_with_reasons_and_escapes_plugin_text() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "escape-text", "escape");
    hostile_copy(dir.path(), "ctor-segv", "crash");
    hostile_copy(dir.path(), "ctor-exit", "quitter");
    let start = Instant::now();
    let o = flipgraph(dir.path(), cache.path())
        .arg("plugins")
        .output()
        .unwrap();
    let first = start.elapsed();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains('\u{1b}'), "raw escape in output: {t:?}");
    assert!(t.contains("Evil\\e[2J\\nerror: forged line"), "{t}");
    assert!(t.contains("libflipgraph_crash.so: refused: loading it in a probe process was killed by signal 11 (SIGSEGV)"), "{t}");
    assert!(
        t.contains(
            "libflipgraph_quitter.so: refused: loading it in a probe process exited with status 0"
        ),
        "{t}"
    );
    assert!(
        t.contains("pcg/mic0-pcg") && t.contains("[linear, grid+CSR]"),
        "{t}"
    );
    let start = Instant::now();
    let again = flipgraph(dir.path(), cache.path())
        .arg("plugins")
        .output()
        .unwrap();
    eprintln!(
        "`flipgraph plugins` with 3 new plugins probed: {first:?}; with cached verdicts: {:?}",
        start.elapsed()
    );
    assert!(text(&again).contains("(cached verdict)"));
}

#[test]
fn a_solver_ignoring_its_time_limit_ends_the_process_with_a_clear_message() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let o = flipgraph(dir.path(), cache.path())
        .args(RUN)
        .args(["--out", out.path().to_str().unwrap()])
        .args([
            "--set",
            "pressure.solver=hostile/ignore-cancel",
            "--set",
            "pressure.time_limit=0.2",
        ])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(flip_host::HANG_EXIT_CODE), "{t}");
    assert!(
        t.contains("solver `hostile/ignore-cancel` ignored its time limit of 0.200 s"),
        "{t}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn sigint_stops_a_solve_that_polls_cancel_with_status_130() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let child = flipgraph(dir.path(), cache.path())
        .args(RUN)
        .args(["--out", out.path().to_str().unwrap()])
        .args([
            "--set",
            "pressure.solver=hostile/sleep",
            "--set",
            "pressure.fail_after=3",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (o, took) = interrupt_after(child, Duration::from_millis(1500));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    assert!(t.contains("interrupted (SIGINT) during frame"), "{t}");
    assert!(took < Duration::from_secs(2), "stops promptly: {took:?}");
}

/// Sends SIGINT to `child` after `delay`: its output, and how long it took to end after.
fn interrupt_after(
    child: std::process::Child,
    delay: Duration,
) -> (std::process::Output, Duration) {
    std::thread::sleep(delay);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    (child.wait_with_output().unwrap(), start.elapsed())
}

/// `run` of the 2D dam break at 24² into `out` (PLY frames) whose pressure solve turns to the
/// fixture's `algorithm` after 8 honest solves (in frame 3).
fn frames_then(plugins: &Path, cache: &Path, out: &Path, algorithm: &str) -> Command {
    let mut c = flipgraph(plugins, cache);
    c.args(["run", "graphs/dam_break_2d.ron", "--quiet", "--frames=10"])
        .args(["--set", "settings.grid=24", "--set", "export.png=false"])
        .args(["--out", out.to_str().unwrap()])
        .args(["--set", &format!("pressure.solver=hostile/{algorithm}")])
        .args(["--set", "pressure.fail_after=8"]);
    c
}

#[test]
fn a_solver_that_ends_the_process_is_named_and_the_frames_stay() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let o = frames_then(dir.path(), cache.path(), out.path(), "exit-zero")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(flip_host::PLUGIN_EXIT_CODE), "{t}");
    // named alone although the volume correction's solve may be in flight too: the plugin's
    // code is on the exiting thread's stack
    assert!(
        t.contains("error: plugin `hostile` algorithm `exit-zero`: `solve` ended the process"),
        "{t}"
    );
    let frames = std::fs::read_dir(out.path().join("frames"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "ply"))
                .count()
        })
        .unwrap_or(0);
    assert!(frames >= 1, "the frames before the exit are kept: {t}");
}

#[test]
fn one_sigint_ends_a_run_whose_solver_ignores_it_keeping_the_last_whole_frame() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let child = frames_then(dir.path(), cache.path(), out.path(), "ignore-cancel")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (o, took) = interrupt_after(child, Duration::from_millis(2500));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    assert!(
        t.contains("interrupted (SIGINT), but plugin `hostile` algorithm `ignore-cancel`: `solve` did not return within 3 s"),
        "{t}"
    );
    assert!(took < Duration::from_secs(8), "{took:?}");
    let manifest = std::fs::read_to_string(out.path().join("run.json")).unwrap();
    let run: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let frames = run["frame_records"].as_array().unwrap().len() as u64;
    assert!(frames >= 1, "{manifest}");
    let listed = run["checkpoints"].as_array().unwrap();
    assert!(
        listed.iter().any(|f| f.as_u64() == Some(frames)),
        "{manifest}"
    );
    assert_eq!(run["status"], "interrupted", "{manifest}");
    assert!(out
        .path()
        .join(format!("checkpoints/frame_{frames:06}.fgck"))
        .is_file());
}

#[test]
fn a_solve_far_past_its_typical_time_is_reported_while_it_runs() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "ok", "hostile");
    let out = tempfile::tempdir().unwrap();
    let mut child = frames_then(dir.path(), cache.path(), out.path(), "sleep")
        .args(["--progress", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    std::thread::spawn(move || {
        // never hang the test: a run that reports nothing is ended
        std::thread::sleep(Duration::from_secs(30));
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    });
    let lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let warning = lines
        .map_while(Result::ok)
        .find(|l| l.contains("\"warning\"") && l.contains("has run"));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait().unwrap();
    let warning = warning.expect("a warning before the run ended");
    assert!(
        warning.contains("plugin `hostile` algorithm `sleep`: `solve` has run")
            && warning.contains("times its typical"),
        "{warning}"
    );
}
