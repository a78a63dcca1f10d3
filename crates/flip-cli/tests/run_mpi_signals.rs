//! Stopping `flipgraph run --mpi` under `mpirun`: SIGUSR1 to mpirun (forwarded to every rank)
//! and Ctrl-C (SIGINT to mpirun, which sends every rank SIGCONT, then SIGTERM and SIGKILL
//! `odls_base_sigkill_timeout` seconds apart) both stop the 64² dam break after a frame, with
//! every rank's checkpoint of that frame, `run.json` marked interrupted and no later frame
//! written; the run then resumes from there.

mod common;
use common::{dam_64, flipgraph, mpirun, mpirun_command, text};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A 2000-frame run of the 64² dam break on 2 ranks, sent `signal` (a `kill` name) once its
/// third frame is written; `timeout` sets mpirun's seconds from SIGCONT to SIGTERM and from
/// SIGTERM to SIGKILL. Returns mpirun's output, the run's folder and its last checkpoint.
fn stop_with(dir: &Path, signal: &str, timeout: Option<&str>) -> (Output, PathBuf, u64) {
    let out = dir.join("run");
    let mut a = dam_64(true);
    a.extend(["--frames", "2000", "--checkpoint-every", "1000"]);
    a.extend(["--out", out.to_str().unwrap()]);
    let mut command = mpirun_command(2, &a);
    if let Some(t) = timeout {
        command.env("OMPI_MCA_odls_base_sigkill_timeout", t);
    }
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun runs (install openmpi-bin)");
    let third = out.join("frames/frame_0003.ply");
    let start = std::time::Instant::now();
    while !third.is_file() && start.elapsed().as_secs() < 300 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(third.is_file(), "no third frame within 300 s");
    let kill = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(m["status"], "interrupted", "{m}\n{}", text(&o));
    let checkpoints = m["checkpoints"].as_array().unwrap();
    let last = checkpoints.last().unwrap().as_u64().unwrap();
    assert!((3..1000).contains(&last), "stopped after frame {last}");
    (o, out, last)
}

/// Every rank's checkpoint of `last`, no frame after it, and a resume from it.
fn assert_stopped_after(out: &Path, last: u64) {
    for rank in 0..2 {
        let ck = format!("checkpoints/frame_{last:06}.rank_{rank}_of_2.fgck");
        assert!(
            out.join(ck).is_file(),
            "rank {rank}'s checkpoint after frame {last}"
        );
    }
    assert!(out.join(format!("frames/frame_{last:04}.ply")).is_file());
    let next = out.join(format!("frames/frame_{:04}.ply", last + 1));
    assert!(!next.exists(), "a frame after the stop");
    let more = (last + 2).to_string();
    let dest = out.to_str().unwrap();
    let resume = [
        "run", "--mpi", "--quiet", "--resume", dest, "--frames", &more,
    ];
    let o = mpirun(2, &resume);
    assert!(o.status.success(), "{}", text(&o));
    let o = flipgraph(&["verify", dest]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn sigusr1_stops_a_decomposed_run_after_a_frame_with_every_ranks_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (o, out, last) = stop_with(dir.path(), "USR1", None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    assert!(
        t.contains(&format!("stopped (SIGUSR1) after frame {last}")),
        "{t}"
    );
    assert_stopped_after(&out, last);
}

/// mpirun answers Ctrl-C with SIGTERM to the ranks `timeout` seconds later and SIGKILL as long
/// again after it: 5 s leave a frame of this run, and its checkpoints, ample time.
#[test]
fn ctrl_c_on_mpirun_stops_a_decomposed_run_after_a_frame_with_every_ranks_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (o, out, last) = stop_with(dir.path(), "INT", Some("5"));
    assert!(!o.status.success(), "{}", text(&o));
    assert_stopped_after(&out, last);
}
