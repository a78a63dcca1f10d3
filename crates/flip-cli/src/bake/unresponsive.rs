//! Plugin calls that do not return. A call running [`OVERDUE_FACTOR`] times longer than it
//! usually takes is reported in the progress output as it runs, before any limit strikes. And
//! one interrupt ends a run even while a plugin call ignores it: a thread waits for the first
//! SIGINT or SIGTERM, gives the run [`GRACE`] to stop on its own, and if a plugin call is still
//! in flight then, writes the checkpoint of the last whole frame, names the call, and ends the
//! process with status 130 (an in-process thread cannot be stopped safely). Frames already
//! written stay: they are written atomically.

use super::checkpoint_path;
use crate::manifest::{now_unix, Manifest, RunStatus};
use crate::progress::Progress;
use anyhow::Result;
use flip_graph::Snapshot;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a run may take to stop after an interrupt before the process ends.
pub const GRACE: Duration = Duration::from_secs(3);

/// A call this many times slower than its typical duration is reported...
pub const OVERDUE_FACTOR: f64 = 10.0;
/// ...once it has run this long.
pub const OVERDUE_AFTER: Duration = Duration::from_secs(2);

/// Starts the thread that reports plugin calls running far past their typical duration, once
/// each, as warnings of `progress`.
pub fn report_overdue(progress: Progress) {
    std::thread::spawn(move || {
        let mut told = std::collections::HashSet::new();
        loop {
            std::thread::sleep(Duration::from_millis(500));
            for late in flip_host::overdue_calls(OVERDUE_FACTOR, OVERDUE_AFTER) {
                if told.insert(late.ticket) {
                    progress.warning(&format!(
                        "{} has run {:.1} s, {:.0} times its typical {:.3} s; it may not \
                         return (Ctrl-C stops the run and keeps the last whole frame)",
                        late.what,
                        late.running.as_secs_f64(),
                        late.running.as_secs_f64() / late.typical.as_secs_f64().max(1e-9),
                        late.typical.as_secs_f64()
                    ));
                }
            }
        }
    });
}

/// The last whole frame of a run, kept for the thread that may have to end it.
pub type LastWhole = Arc<Mutex<Option<Arc<Snapshot>>>>;

/// Starts the thread that ends a run whose plugin call does not return after an interrupt.
///
/// # Errors
/// The signal handlers could not be installed.
pub fn watch(out: PathBuf, graph_sha256: String, last: LastWhole) -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        let Some(signal) = signals.forever().next() else {
            return;
        };
        std::thread::sleep(GRACE);
        let calls = flip_host::calls_in_flight();
        let Some(call) = calls.first() else {
            return; // the run is stopping on its own
        };
        let name = if signal == SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        };
        let kept = match checkpoint_last_whole(&out, &graph_sha256, &last) {
            Ok(Some(path)) => format!(
                "checkpoint of the last whole frame written to {}; continue with `flipgraph run \
                 --resume {}`",
                path.display(),
                out.display()
            ),
            Ok(None) => "no whole frame to checkpoint yet".into(),
            Err(e) => format!("the last whole frame could not be checkpointed: {e:#}"),
        };
        eprintln!(
            "error: interrupted ({name}), but {call} did not return within {} s (it ignores \
             cancellation), and a plugin thread cannot be stopped safely: flipgraph exits now; \
             {kept}; frames written so far are kept in {}",
            GRACE.as_secs(),
            out.display()
        );
        flip_host::host_exits();
        std::process::exit(130);
    });
    Ok(())
}

/// Writes the checkpoint of the last whole frame and lists it in the run's manifest (the
/// thread that would have is inside the plugin call).
fn checkpoint_last_whole(
    out: &Path,
    graph_sha256: &str,
    last: &LastWhole,
) -> Result<Option<PathBuf>> {
    let Some(snap) = last.lock().unwrap_or_else(PoisonError::into_inner).clone() else {
        return Ok(None);
    };
    let path = checkpoint_path(out, snap.frame());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    snap.to_checkpoint(graph_sha256).write(&path)?;
    let mut manifest = Manifest::read(out)?;
    if !manifest.checkpoints.contains(&snap.frame()) {
        manifest.checkpoints.push(snap.frame());
        manifest.checkpoints.sort_unstable();
    }
    manifest.status = RunStatus::Interrupted;
    manifest.ended_unix = Some(now_unix());
    manifest.write(out)?;
    Ok(Some(path))
}
