//! Checkpoints end to end with the real binary: a run killed with SIGKILL at random (seeded)
//! times and resumed each time writes the same bytes as a run that never stopped (2D and 3D,
//! with the stateful LCP solver); SIGINT writes a checkpoint and exits 130; a fork reuses the
//! frames before it and equals the original after it; `--frames` past the end extends a run.

mod common;
use common::{deps_dir, frame_hashes, root, text};

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn flipgraph(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flipgraph"));
    c.current_dir(root())
        .args(["--plugin-dir", deps_dir().to_str().unwrap()])
        .args(args);
    c
}

/// The 2D circle with separating walls and the policy-iteration LCP solver, whose saved
/// policy changes the next solve's bits (without it a resumed run differs), small.
const CIRCLE_2D: [&str; 12] = [
    "graphs/lcp_circle_2d.ron",
    "--set",
    "settings.grid=[48,48,1]",
    "--set",
    "settings.cell_size=0.020833334",
    "--set",
    "export.png=false",
    "--set",
    "pressure.solver=lcp/pi-mg",
    "--set",
    "settings.frames=16",
    "--quiet",
];

/// The 3D half sphere with separating walls and policy iteration (PCG inside), small.
const SPHERE_3D: [&str; 12] = [
    "graphs/lcp_sphere_3d.ron",
    "--set",
    "settings.grid=[20,20,20]",
    "--set",
    "settings.cell_size=0.05",
    "--set",
    "export.png=false",
    "--set",
    "pressure.solver=lcp/pi-pcg",
    "--set",
    "settings.frames=16",
    "--quiet",
];

/// A small seeded generator (64-bit LCG), for reproducible kill times.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn spawn(args: &[&str], out: &Path, resume: bool) -> Child {
    let out = out.to_str().unwrap();
    let mut c = if resume {
        flipgraph(&["run", "--resume", out, "--quiet"])
    } else {
        let mut c = flipgraph(&["run"]);
        c.args(args).args(["--out", out]);
        c
    };
    c.args(["--checkpoint-every", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `scene` once whole, then again killed with SIGKILL at `kills` random times (each
/// resumed), and compares every frame's SHA-256.
fn killed_and_resumed_equals_uninterrupted(scene: &[&str], seed: u64, kills: usize) {
    let (reference, killed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let start = Instant::now();
    let o = spawn(scene, reference.path(), false)
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let whole = start.elapsed();
    let mut rng = Lcg(seed);
    let mut resume = false;
    let mut kills_mid_run = 0;
    for _ in 0..kills {
        let mut child = spawn(scene, killed.path(), resume);
        let at = whole.mul_f64(0.25 + 0.5 * rng.unit());
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_none() {
            kills_mid_run += 1;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        resume = killed.path().join("run.json").is_file();
    }
    assert!(kills_mid_run > 0, "no kill landed inside a run");
    let o = spawn(scene, killed.path(), resume)
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let (want, got) = (frame_hashes(reference.path()), frame_hashes(killed.path()));
    assert!(!want.is_empty());
    assert_eq!(want, got, "frames after {kills} SIGKILLs and resumes");
    let v = flipgraph(&["verify", killed.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", text(&v));
}

#[test]
fn sigkill_and_resume_is_bit_identical_2d_lcp() {
    killed_and_resumed_equals_uninterrupted(&CIRCLE_2D, 12, 3);
}

#[test]
fn sigkill_and_resume_is_bit_identical_3d_lcp() {
    killed_and_resumed_equals_uninterrupted(&SPHERE_3D, 3, 3);
}

#[test]
fn sigint_writes_a_checkpoint_exits_130_and_resumes_bit_identically() {
    let (reference, stopped) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = spawn(&CIRCLE_2D, reference.path(), false)
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let child = spawn(&CIRCLE_2D, stopped.path(), false);
    // Once a frame is recorded the run is past its start-up.
    let manifest = stopped.path().join("frames");
    while !manifest.is_dir() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    assert!(
        t.contains("checkpoint after frame") && t.contains("--resume"),
        "{t}"
    );
    let o = spawn(&CIRCLE_2D, stopped.path(), true)
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(frame_hashes(reference.path()), frame_hashes(stopped.path()));
}

fn run_ok(args: &[&str]) -> Output {
    let o = flipgraph(args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    o
}

#[test]
fn a_fork_references_earlier_frames_and_extends_past_the_end() {
    let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let p = |i: usize| dirs[i].path().to_str().unwrap().to_string();
    let (p0, p1) = (p(0), p(1));
    // 0: the original, 8 frames; 1: a fresh 10-frame run.
    let original = ["--out", &p0, "--frames", "8", "--checkpoint-every", "4"];
    run_ok(&[&["run"], &CIRCLE_2D[..], &original].concat());
    run_ok(&[&["run"], &CIRCLE_2D[..], &["--out", &p1, "--frames", "10"]].concat());
    // 2: fork at 4 without changes; 3: extend the finished original to 10 frames.
    run_ok(&[
        "run",
        "--from",
        &p(0),
        "--frame",
        "4",
        "--out",
        &p(2),
        "--quiet",
    ]);
    run_ok(&[
        "run",
        "--from",
        &p(0),
        "--frame",
        "8",
        "--out",
        &p(3),
        "--frames",
        "10",
    ]);
    let (original, fresh) = (frame_hashes(dirs[0].path()), frame_hashes(dirs[1].path()));
    let fork = frame_hashes(dirs[2].path());
    assert_eq!(
        fork.keys().next().unwrap(),
        "frame_0005.ply",
        "frames 1-4 not re-simulated"
    );
    for (name, hash) in &fork {
        assert_eq!(original[name], *hash, "{name}");
    }
    let extended = frame_hashes(dirs[3].path());
    assert_eq!(extended.len(), 2);
    for (name, hash) in &extended {
        assert_eq!(fresh[name], *hash, "{name}");
    }
    // the extension's volume books continue the original's: frame 9's change inside is the
    // uninterrupted run's, not the whole liquid
    let record = |dir: usize, frame: usize| {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dirs[dir].path().join("run.json")).unwrap())
                .unwrap();
        m["frame_records"][frame - 1].clone()
    };
    let (resumed, uninterrupted) = (record(3, 9), record(1, 9));
    assert_eq!(resumed["frame"], 9);
    assert_eq!(resumed["volume"], uninterrupted["volume"]);
    assert_eq!(resumed["particles"], uninterrupted["particles"]);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dirs[2].path().join("run.json")).unwrap()).unwrap();
    let first = m["frame_records"][0]["files"][0]["path"].as_str().unwrap();
    assert!(
        first.starts_with(&p(0)),
        "frame 1 is the original's: {first}"
    );
    assert_eq!(m["frame_records"].as_array().unwrap().len(), 8);
    let v = flipgraph(&["verify", &p(2)]).output().unwrap();
    assert!(v.status.success(), "{}", text(&v));
    // A fork with another solver runs from the checkpoint, its solver starting fresh.
    let o = flipgraph(&[
        "run",
        "--from",
        &p(0),
        "--frame",
        "4",
        "--out",
        &p(2),
        "--quiet",
        "--set",
        "pressure.solver=lcp/fas-mg",
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_ne!(
        frame_hashes(dirs[2].path())["frame_0008.ply"],
        original["frame_0008.ply"]
    );
}
