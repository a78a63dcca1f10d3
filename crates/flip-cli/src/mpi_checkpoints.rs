//! Checkpoints of a decomposed run (`run --mpi`): after the same frames every rank writes its
//! own state (its window's particles, ghosts included, the step state and its nodes' saved
//! state) to `checkpoints/frame_N.rank_R_of_N.fgck`; rank 0 lists the frame in `run.json` once
//! every rank has written it. `run --mpi --resume OUT` on as many ranks restores each rank from
//! its own file of the newest frame that every rank holds; `run --mpi --from OUT --frame F`
//! from its own file of frame `F`.

use crate::bake::{read_checkpoint, CHECKPOINT_DIR};
use anyhow::{anyhow, Context, Result};
use flip_comm::{CommExt, Communicator};
use flip_graph::Simulation;
use std::path::{Path, PathBuf};

/// Path of rank `rank`'s checkpoint after `frame` frames of a run on `ranks` ranks.
pub fn rank_checkpoint_path(out: &Path, frame: u32, rank: u32, ranks: u32) -> PathBuf {
    out.join(CHECKPOINT_DIR)
        .join(format!("frame_{frame:06}.rank_{rank}_of_{ranks}.fgck"))
}

/// One rank's checkpoints.
pub struct RankCheckpoints<'c> {
    out: PathBuf,
    comm: &'c dyn Communicator,
    /// Checkpoint interval in frames.
    every: u32,
    /// How many of the newest are kept (0: all).
    keep: u32,
    /// Frames every rank has a checkpoint of, oldest first (the same list on every rank).
    pub frames: Vec<u32>,
}

impl<'c> RankCheckpoints<'c> {
    /// Checkpoints into `out` every `every` frames, keeping `keep` (0: all); a resume fills
    /// `frames` with those already written ([`RankCheckpoints::restore_latest`]).
    pub fn new(out: &Path, comm: &'c dyn Communicator, every: u32, keep: u32) -> Self {
        Self {
            out: out.to_path_buf(),
            comm,
            every: every.max(1),
            keep,
            frames: Vec::new(),
        }
    }

    fn path(&self, frame: u32) -> PathBuf {
        rank_checkpoint_path(&self.out, frame, self.comm.rank(), self.comm.ranks())
    }

    /// Whether a checkpoint is due after `frame` of `last`.
    pub fn due(&self, frame: u32, last: u32) -> bool {
        frame.is_multiple_of(self.every) || frame == last
    }

    /// Writes this rank's state after the current frame. Collective: fails on every rank when
    /// any rank could not write (each names its own cause; the others say which rank failed).
    pub fn write(&mut self, sim: &mut Simulation, graph_hash: &str) -> Result<()> {
        let frame = sim.frame();
        let path = self.path(frame);
        let mine = write_one(sim, graph_hash, &path);
        let failed = self.comm.all_gather_one(u8::from(mine.is_err()));
        mine?;
        if let Some(rank) = failed.iter().position(|&f| f != 0) {
            return Err(anyhow!(
                "rank {rank} could not write its checkpoint after frame {frame}"
            ));
        }
        if !self.frames.contains(&frame) {
            self.frames.push(frame);
            self.frames.sort_unstable();
        }
        self.prune();
        Ok(())
    }

    /// Deletes this rank's oldest checkpoints beyond `keep` (every rank drops the same frames).
    fn prune(&mut self) {
        let keep = self.keep as usize;
        if keep == 0 || self.frames.len() <= keep {
            return;
        }
        let old: Vec<u32> = self.frames.drain(..self.frames.len() - keep).collect();
        for frame in old {
            let path = self.path(frame);
            if let Err(e) = std::fs::remove_file(&path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    eprintln!("warning: cannot delete {}: {e}", path.display());
                }
            }
        }
    }

    /// Restores this rank from the newest of `listed` frames that every rank has a file of,
    /// and keeps `listed` up to it. Collective; returns the frame (`None`: no such frame).
    pub fn restore_latest(
        &mut self,
        sim: &mut Simulation,
        listed: &[u32],
        graph_hash: &str,
    ) -> Result<Option<u32>> {
        let mine = listed
            .iter()
            .rev()
            .find(|&&f| self.path(f).is_file())
            .map_or(-1, |&f| i64::from(f));
        // the newest frame every rank holds: the smallest rank's newest (-1: a rank holds none)
        let newest = self.comm.all_gather_one(mine).into_iter().min();
        let Some(frame) = newest.and_then(|f| u32::try_from(f).ok()) else {
            return Ok(None);
        };
        restore_collective(self.comm, sim, &self.path(frame), graph_hash, &[])?;
        self.frames = listed.iter().copied().filter(|&f| f <= frame).collect();
        Ok(Some(frame))
    }

    /// Restores this rank from its file of `frame` in the run `parent` (a fork), whose graph
    /// hashed to `graph_hash`; the `fresh` nodes start without their saved state. Collective.
    pub fn restore_fork(
        &self,
        sim: &mut Simulation,
        parent: &Path,
        frame: u32,
        graph_hash: &str,
        fresh: &[&str],
    ) -> Result<()> {
        let (rank, ranks) = (self.comm.rank(), self.comm.ranks());
        let path = rank_checkpoint_path(parent, frame, rank, ranks);
        restore_collective(self.comm, sim, &path, graph_hash, fresh)
    }
}

/// Restores `sim` from `path` on every rank; fails on every rank when any rank failed.
fn restore_collective(
    comm: &dyn Communicator,
    sim: &mut Simulation,
    path: &Path,
    graph_hash: &str,
    fresh: &[&str],
) -> Result<()> {
    let restored = read_checkpoint(path, graph_hash).and_then(|ck| {
        sim.restore(ck, fresh)
            .with_context(|| format!("{}: restoring", path.display()))
    });
    let failed = comm.all_gather_one(u8::from(restored.is_err()));
    restored?;
    if failed.contains(&1) {
        return Err(anyhow!("another rank could not restore its checkpoint"));
    }
    Ok(())
}

/// Snapshots `sim` and writes it to `path`.
fn write_one(sim: &mut Simulation, graph_hash: &str, path: &Path) -> Result<()> {
    let snap = sim
        .snapshot()
        .map_err(|e| anyhow!("cannot save the run's state: {e}"))?;
    std::fs::create_dir_all(path.parent().expect("in a folder"))
        .with_context(|| format!("cannot create {}", path.display()))?;
    snap.to_checkpoint(graph_hash)
        .write(path)
        .map_err(|e| anyhow!("{e:#}"))
}
