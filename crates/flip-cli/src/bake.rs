//! The frame loop of `run`: simulates, records each frame in the manifest, writes checkpoints
//! every N frames, at the end and when a signal stops the run.

use crate::exit::{fail, run_status, ExitStatus};
use crate::manifest::{now_unix, Manifest, RunStatus, StateRecord};
use crate::progress::Progress;
use crate::summary::RunSummary;
use anyhow::{Context, Result};
use flip_graph::{Checkpoint, Simulation, Snapshot};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::Instant;

mod unresponsive;

/// Folder of the checkpoints inside an output folder.
pub const CHECKPOINT_DIR: &str = "checkpoints";

/// Path of the checkpoint after `frame` frames.
pub fn checkpoint_path(out: &Path, frame: u32) -> PathBuf {
    out.join(CHECKPOINT_DIR)
        .join(format!("frame_{frame:06}.fgck"))
}

/// Which signal stopped the run (0: none yet).
pub struct Signals {
    stop: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
    last_whole: unresponsive::LastWhole,
}

impl Signals {
    /// Routes SIGINT and SIGTERM to `stop` (the simulation's stop flag) of the run writing to
    /// `out` (graph hash `graph_sha256`). A plugin call that ignores it ends the process
    /// [`unresponsive::GRACE`] later, after the last whole frame is checkpointed; a second
    /// signal ends it at once. Both with status 130.
    pub fn install(stop: Arc<AtomicBool>, out: &Path, graph_sha256: &str) -> Result<Self> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let which = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
            signal_hook::flag::register_usize(sig, which.clone(), sig as usize)?;
            signal_hook::flag::register(sig, stop.clone())?;
        }
        let last_whole = unresponsive::LastWhole::default();
        unresponsive::watch(out.into(), graph_sha256.into(), last_whole.clone())?;
        Ok(Self {
            stop,
            which,
            last_whole,
        })
    }

    fn name(&self) -> Option<&'static str> {
        if !self.stop.load(Ordering::Relaxed) {
            return None;
        }
        match self.which.load(Ordering::Relaxed) as i32 {
            signal_hook::consts::SIGTERM => Some("SIGTERM"),
            _ => Some("SIGINT"),
        }
    }
}

/// A run in progress.
pub struct Bake {
    /// The simulation.
    pub sim: Simulation,
    /// Its manifest, rewritten after every frame.
    pub manifest: Manifest,
    /// Output folder.
    pub out: PathBuf,
    /// Reporter.
    pub progress: Progress,
    /// Signal handling.
    pub signals: Signals,
}

impl Bake {
    /// Reports plugin calls that run far past their typical duration, as they run.
    pub fn report_overdue_calls(&self) {
        unresponsive::report_overdue(self.progress.clone());
    }

    /// Simulates up to `frames` frames, checkpointing every `manifest.checkpoint_every`.
    ///
    /// # Errors
    /// A failed frame (with its exit status); an interrupt after writing a checkpoint (130).
    pub fn run(&mut self, frames: u32, summary: &mut RunSummary) -> Result<()> {
        let every = self.manifest.checkpoint_every.max(1);
        let start = self.sim.frame();
        let mut snap = self.snapshot()?;
        self.note_unsaved_state(&snap);
        while self.sim.frame() < frames {
            let t = Instant::now();
            let reports = match self.sim.advance_frame() {
                Ok(r) => r,
                Err(e) => return Err(self.stopped(&snap, e)),
            };
            let wall_s = t.elapsed().as_secs_f64();
            let frame = self.sim.frame();
            let files: Vec<PathBuf> = reports.iter().flat_map(|r| r.files.clone()).collect();
            let substeps = reports.len() as u32;
            let out = self.out.clone();
            self.manifest
                .add_frame(&out, frame, substeps, wall_s, &files)?;
            self.manifest.peak_rss_bytes = crate::limits::peak_rss();
            summary.add_frame(&reports);
            self.manifest
                .set_balance(frame, &summary.volume, summary.particles);
            self.progress.node_events(&reports);
            self.progress.frame(frame, &reports, summary, wall_s);
            snap = self.snapshot()?;
            if frame.is_multiple_of(every) || frame == frames {
                self.write_checkpoint(&snap)?;
            }
            self.manifest.write(&self.out)?;
        }
        if self.sim.frame() == start {
            self.write_checkpoint(&snap)?;
        }
        self.manifest.status = RunStatus::Done;
        self.manifest.ended_unix = Some(now_unix());
        self.manifest.write(&self.out)?;
        self.progress.finished(frames);
        Ok(())
    }

    /// The run between frames, also kept for the thread that ends an unresponsive run.
    fn snapshot(&mut self) -> Result<Arc<Snapshot>> {
        let snap = self.sim.snapshot().map_err(|e| {
            fail(
                ExitStatus::Plugin,
                format!("cannot save the run's state: {e}"),
            )
        })?;
        let snap = Arc::new(snap);
        let mut last = (self.signals.last_whole.lock()).unwrap_or_else(PoisonError::into_inner);
        *last = Some(snap.clone());
        Ok(snap)
    }

    /// Names in the manifest (and warns about) nodes whose state checkpoints cannot hold.
    fn note_unsaved_state(&mut self, snap: &Snapshot) {
        self.manifest.state_not_saved = snap
            .incomplete()
            .map(|(node, why)| StateRecord {
                node: node.into(),
                not_saved: why.into(),
            })
            .collect();
        for r in &self.manifest.state_not_saved {
            let message = format!("node `{}`: {}", r.node, r.not_saved);
            self.progress.warning(&message);
        }
    }

    /// Writes `snap` to `checkpoints/frame_N.fgck` and records it.
    pub fn write_checkpoint(&mut self, snap: &Snapshot) -> Result<PathBuf> {
        let path = checkpoint_path(&self.out, snap.frame());
        std::fs::create_dir_all(path.parent().expect("in a folder"))
            .with_context(|| format!("cannot create {}", path.display()))?;
        snap.to_checkpoint(&self.manifest.graph_sha256)
            .write(&path)
            .map_err(|e| fail(ExitStatus::Resources, format!("{e:#}")))?;
        let list = &mut self.manifest.checkpoints;
        if !list.contains(&snap.frame()) {
            list.push(snap.frame());
            list.sort_unstable();
        }
        self.prune_checkpoints();
        self.manifest.write(&self.out)?;
        self.progress.checkpoint(snap.frame(), &path);
        Ok(path)
    }

    /// Deletes the oldest checkpoints beyond `keep_checkpoints` (0 keeps all). A file that
    /// cannot be deleted stays listed, with a warning.
    fn prune_checkpoints(&mut self) {
        let keep = self.manifest.keep_checkpoints as usize;
        let list = &mut self.manifest.checkpoints;
        if keep == 0 || list.len() <= keep {
            return;
        }
        let old: Vec<u32> = list.drain(..list.len() - keep).collect();
        for frame in old {
            let path = checkpoint_path(&self.out, frame);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    self.manifest.checkpoints.insert(0, frame);
                    let message = format!("cannot delete old checkpoint {}: {e}", path.display());
                    self.progress.warning(&message);
                }
            }
        }
        self.manifest.checkpoints.sort_unstable();
    }

    /// The error for a failed frame; on a signal, checkpoints the last whole frame first.
    fn stopped(&mut self, snap: &Snapshot, e: flip_graph::RunError) -> anyhow::Error {
        let kept = format!("frames written so far are kept in {}", self.out.display());
        let at = self.sim.frame() + 1;
        let err = if let Some(signal) = self.signals.name() {
            self.manifest.status = RunStatus::Interrupted;
            match self.write_checkpoint(snap) {
                Ok(path) => fail(
                    ExitStatus::Interrupted,
                    format!(
                        "interrupted ({signal}) during frame {at}; checkpoint after frame {} \
                         written to {}; continue with `flipgraph run --resume {}`; {kept}",
                        snap.frame(),
                        path.display(),
                        self.out.display()
                    ),
                ),
                Err(w) => fail(
                    ExitStatus::Interrupted,
                    format!("interrupted ({signal}) during frame {at}; {w:#}; {kept}"),
                ),
            }
        } else {
            self.manifest.status = RunStatus::Failed;
            let status = run_status(&e, self.sim.plan());
            let graph = self.manifest.graph_file.display();
            fail(status, format!("{graph}: {e} ({kept})"))
        };
        self.manifest.ended_unix = Some(now_unix());
        let _ = self.manifest.write(&self.out);
        self.progress
            .error(&format!("{err:#}"), crate::exit::status_of(&err));
        err
    }
}

/// The newest checkpoint of a run at or before `frame` (any when `None`).
pub fn latest_checkpoint(out: &Path, m: &Manifest, frame: Option<u32>) -> Option<(u32, PathBuf)> {
    m.checkpoints
        .iter()
        .rev()
        .filter(|&&f| frame.is_none_or(|n| f <= n))
        .map(|&f| (f, checkpoint_path(out, f)))
        .find(|(_, p)| p.is_file())
}

/// Reads a checkpoint, checking it belongs to the run's graph.
pub fn read_checkpoint(path: &Path, graph_sha256: &str) -> Result<Checkpoint> {
    let ck = Checkpoint::read(path).map_err(|e| fail(ExitStatus::Usage, format!("{e:#}")))?;
    if ck.graph_hash != graph_sha256 {
        return Err(fail(
            ExitStatus::Usage,
            format!("{}: checkpoint of another graph", path.display()),
        ));
    }
    Ok(ck)
}
