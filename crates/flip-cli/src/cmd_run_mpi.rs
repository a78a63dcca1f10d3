//! `flipgraph run GRAPH --mpi` under `mpirun -np N` (feature `mpi`): every rank simulates its
//! window of the domain (a slab of whole layers along the outermost axis plus ghost layers,
//! `flip_graph::window`), particles migrate between ranks each substep, the solves run
//! distributed, and rank 0 writes the frames a single-process run would write and the run's
//! `run.json` (so `flipgraph verify` checks them). Checkpoints are one file per rank
//! ([`crate::mpi_checkpoints`]); `run --mpi --resume OUT` continues on as many ranks, and
//! `run --mpi --from OUT --frame F --out NEW` forks such a run on as many ranks. SIGUSR1
//! (which mpirun forwards to every rank), or the SIGTERM mpirun sends every rank when it is
//! interrupted, stops the run after the frame in progress, with a checkpoint: the ranks agree
//! on it at the end of every frame.

use crate::cmd_run::{build_with, default_out, fork_manifest, require_ranks, settle, RunArgs};
use crate::exit::{fail, ExitStatus};
use crate::manifest::{now_unix, Manifest, RunStatus};
use crate::mpi_checkpoints::RankCheckpoints;
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use flip_comm::mpi::{self as mpi_comm, MpiComm};
use flip_comm::Communicator;
use flip_graph::window::{ghost_layers_for, Window};
use flip_graph::{Simulation, StepReport};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a decomposed run starts.
struct Start {
    manifest: Manifest,
    out: PathBuf,
    fork: Option<Fork>,
}

/// Where a fork starts from.
struct Fork {
    parent: PathBuf,
    frame: u32,
    /// The parent's graph hash, which its checkpoints carry.
    graph_hash: String,
    /// Nodes whose parameters changed: they start without their saved state.
    fresh: Vec<String>,
}

/// The graph, manifest and output folder of a fresh run, of the run `--resume` continues, or
/// of the fork `--from` makes.
fn start(session: &Session, args: &RunArgs, ranks: u32) -> Result<Start> {
    if let Some(dir) = &args.resume {
        let m = Manifest::read(dir)?;
        require_ranks(&m, dir, ranks, "resume")?;
        return Ok(Start {
            manifest: m,
            out: dir.clone(),
            fork: None,
        });
    }
    if let Some(parent) = &args.from {
        let out = args.out.clone().expect("clap requires --out");
        let (_, m, out, fresh) = fork_manifest(session, parent, args, &out, Some(ranks))?;
        let hash = Manifest::read(parent)?.graph_sha256;
        let at = args.frame.expect("clap requires --frame");
        return Ok(Start {
            manifest: m,
            out,
            fork: Some(Fork {
                parent: parent.clone(),
                frame: at,
                graph_hash: hash,
                fresh,
            }),
        });
    }
    let graph = args.graph.as_ref().expect("clap requires a graph");
    let doc = session.graph(graph, &args.sets)?;
    let frames = args.frames.unwrap_or(doc.settings.frames);
    let mut m = Manifest::new(&doc, graph, &session.plugins, frames);
    m.threads *= ranks as usize;
    m.mpi_ranks = Some(ranks);
    Ok(Start {
        manifest: m,
        out: args.out.clone().unwrap_or_else(|| default_out(graph)),
        fork: None,
    })
}

/// Runs `args` on this rank.
pub fn run(session: &Session, args: &RunArgs) -> Result<()> {
    let rt = mpi_comm::init().ok_or_else(|| anyhow!("MPI could not be initialised"))?;
    let Start {
        mut manifest,
        out,
        fork,
    } = start(session, args, rt.comm.ranks())?;
    let doc = manifest.doc()?;
    let graph = manifest.graph_file.clone();
    let frames = settle(&mut manifest, args);
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut sim = build_with(session, &doc, &graph, &out, args.allow_outside_out)?;
    let reach = sim.window_reach().map_err(|refused| {
        let names: Vec<String> = refused.iter().map(ToString::to_string).collect();
        anyhow!(
            "{}: cannot run with --mpi:\n  {}",
            graph.display(),
            names.join("\n  ")
        )
    })?;
    let ghost = ghost_layers_for(doc.settings.cfl, reach);
    let comm: Arc<dyn Communicator> = rt.comm.clone();
    let window = Window::new(comm, doc.settings.grid_spec(), ghost)
        .with_context(|| format!("{}: decomposing the grid", graph.display()))?;
    let talk = rt.comm.rank() == 0 && !args.quiet;
    if talk {
        println!(
            "{}: {} ranks, slabs of {} layers along {} with {ghost} ghost layers a side, {frames} frames into {}",
            graph.display(),
            rt.comm.ranks(),
            window.owned.len(),
            ["x", "y", "z"][window.axis],
            out.display()
        );
    }
    sim.set_window(window)
        .map_err(|_| anyhow!("refused after being accepted"))?;
    let (every, keep) = (manifest.checkpoint_every, manifest.keep_checkpoints);
    let mut checkpoints = RankCheckpoints::new(&out, rt.comm.as_ref(), every, keep);
    if args.resume.is_some() {
        let listed = manifest.checkpoints.clone();
        match checkpoints.restore_latest(&mut sim, &listed, &manifest.graph_sha256)? {
            Some(at) => manifest.frame_records.retain(|r| r.frame <= at),
            None => manifest.frame_records.clear(),
        }
        manifest.checkpoints = checkpoints.frames.clone();
        if talk {
            println!("resuming after frame {}", sim.frame());
        }
    }
    if let Some(f) = &fork {
        let fresh: Vec<&str> = f.fresh.iter().map(String::as_str).collect();
        checkpoints.restore_fork(&mut sim, &f.parent, f.frame, &f.graph_hash, &fresh)?;
        // the fork's own first checkpoint, so that it resumes and forks by itself
        checkpoints.write(&mut sim, &manifest.graph_sha256)?;
        manifest.checkpoints = checkpoints.frames.clone();
        if talk {
            println!("forked {} after frame {}", f.parent.display(), f.frame);
        }
    }
    manifest.status = RunStatus::Running;
    manifest.ended_unix = None;
    let mut record = Record {
        manifest,
        out: out.clone(),
        writes: rt.comm.rank() == 0,
    };
    record.write()?;
    let mut run = Run {
        frames,
        talk,
        comm: &rt.comm,
        record: &mut record,
        checkpoints: &mut checkpoints,
        signal: stop_signals()?,
        stopped_by: 0,
    };
    let totals = run.simulate(&mut sim);
    let signal = signal_name(run.stopped_by);
    let stopped = sim.frame() < frames;
    if stopped && !checkpoints.frames.contains(&sim.frame()) {
        checkpoints.write(&mut sim, &record.manifest.graph_sha256)?;
        record.manifest.checkpoints = checkpoints.frames.clone();
    }
    record.manifest.status = if stopped {
        RunStatus::Interrupted
    } else {
        RunStatus::Done
    };
    record.manifest.ended_unix = Some(now_unix());
    record.write()?;
    if talk {
        totals.print(&sim);
    }
    // rank 0 reports the stop (and mpirun passes on its status); the others end quietly
    if stopped && rt.comm.rank() == 0 {
        let (n, at) = (rt.comm.ranks(), sim.frame());
        return Err(fail(
            ExitStatus::Interrupted,
            format!(
                "stopped ({signal}) after frame {at} with a checkpoint of every rank; continue \
                 with `mpirun -np {n} flipgraph run --mpi --resume {}`",
                out.display()
            ),
        ));
    }
    Ok(())
}

/// The run's manifest and where it goes (rank 0 writes it).
struct Record {
    manifest: Manifest,
    out: PathBuf,
    writes: bool,
}

impl Record {
    fn write(&self) -> Result<()> {
        if self.writes {
            self.manifest.write(&self.out)?;
        }
        Ok(())
    }
}

/// What the run took, for the closing line.
#[derive(Default)]
struct Totals {
    substeps: u64,
    wall: Duration,
    exchange: Duration,
    migrated: usize,
    ghosts: usize,
}

impl Totals {
    fn add(&mut self, r: &StepReport) {
        self.substeps += 1;
        if let Some((c, t)) = r.exchange {
            self.exchange += t;
            self.migrated += c.migrated_out;
            self.ghosts += c.ghosts_in;
        }
    }

    fn print(&self, sim: &Simulation) {
        let secs = self.wall.as_secs_f64();
        let per = secs * 1e3 / self.substeps.max(1) as f64;
        let share = 100.0 * self.exchange.as_secs_f64() / secs.max(1e-12);
        let traffic = sim.window().map(|w| &w.solve.stats);
        let halo = traffic.map_or(0, |s| {
            s.halo_bytes.load(std::sync::atomic::Ordering::Relaxed)
        });
        println!(
            "rank 0: {} substeps in {secs:.2} s ({per:.1} ms each); particle exchange {share:.1} %, \
             {} particles migrated out, {} ghost copies in; solver halo traffic {:.1} MB",
            self.substeps,
            self.migrated,
            self.ghosts,
            halo as f64 / 1e6
        );
    }
}

/// The frame loop's settings and records.
struct Run<'a, 'c> {
    frames: u32,
    talk: bool,
    comm: &'a MpiComm,
    record: &'a mut Record,
    checkpoints: &'a mut RankCheckpoints<'c>,
    /// The number of the stop signal this rank got (0: none).
    signal: Arc<AtomicUsize>,
    /// The stop signal any rank got (the largest number), once the ranks agreed to stop.
    stopped_by: usize,
}

/// Signals that stop a decomposed run after the frame in progress: SIGUSR1, which mpirun
/// forwards to every rank, and SIGTERM (and SIGINT): interrupted, mpirun sends every rank
/// SIGCONT, then SIGTERM and then SIGKILL `odls_base_sigkill_timeout` seconds apart (1 by
/// default; `--mca odls_base_sigkill_timeout 60` gives longer frames time to finish and
/// write their checkpoints).
fn stop_signals() -> Result<Arc<AtomicUsize>> {
    use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
    let which = Arc::new(AtomicUsize::new(0));
    for sig in [SIGUSR1, SIGTERM, SIGINT] {
        signal_hook::flag::register_usize(sig, which.clone(), sig as usize)
            .with_context(|| format!("cannot install the {} handler", signal_name(sig as usize)))?;
    }
    Ok(which)
}

fn signal_name(sig: usize) -> &'static str {
    use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
    match sig as i32 {
        SIGUSR1 => "SIGUSR1",
        SIGTERM => "SIGTERM",
        SIGINT => "SIGINT",
        _ => "a signal",
    }
}

impl Run<'_, '_> {
    /// Simulates up to `frames` frames, checkpointing as due, or until a rank was asked to
    /// stop; a failure on this rank ends every rank (the others may be waiting in a
    /// collective).
    fn simulate(&mut self, sim: &mut Simulation) -> Totals {
        let mut totals = Totals::default();
        let start = Instant::now();
        while sim.frame() < self.frames {
            let t = Instant::now();
            let reports = match sim.advance_frame() {
                Ok(reports) => reports,
                Err(e) => self.abort(&e),
            };
            reports.iter().for_each(|r| totals.add(r));
            if let Err(e) = self.record_frame(sim, &reports, t.elapsed()) {
                self.abort(&format!("{e:#}"));
            }
            if self.talk {
                let last = reports.last().expect("a frame has a substep");
                println!(
                    "frame {}/{}: {} particles, {} substeps, {:.2} s",
                    sim.frame(),
                    self.frames,
                    last.count,
                    reports.len(),
                    start.elapsed().as_secs_f64()
                );
            }
            if let Some(sig) = self.stop_asked() {
                self.stopped_by = sig;
                break;
            }
        }
        totals.wall = start.elapsed();
        totals
    }

    /// Records the frame in the manifest and writes the checkpoint if one is due (collective).
    fn record_frame(
        &mut self,
        sim: &mut Simulation,
        reports: &[StepReport],
        wall: Duration,
    ) -> Result<()> {
        let frame = sim.frame();
        let r = &mut *self.record;
        if r.writes {
            let files: Vec<PathBuf> = reports.iter().flat_map(|r| r.files.clone()).collect();
            let n = reports.len() as u32;
            r.manifest
                .add_frame(&r.out, frame, n, wall.as_secs_f64(), &files)?;
            r.manifest.peak_rss_bytes = crate::limits::peak_rss();
        }
        if self.checkpoints.due(frame, self.frames) {
            self.checkpoints.write(sim, &r.manifest.graph_sha256)?;
            r.manifest.checkpoints = self.checkpoints.frames.clone();
        }
        r.write()
    }

    /// The stop signal any rank got, if one did (collective: the ranks stop after the same
    /// frame).
    fn stop_asked(&self) -> Option<usize> {
        let mut asked = [self.signal.load(Ordering::Relaxed) as f64];
        self.comm.max(&mut asked);
        (asked[0] > 0.0).then_some(asked[0] as usize)
    }

    /// Prints this rank's error and ends every rank.
    fn abort(&self, e: &dyn std::fmt::Display) -> ! {
        let graph = self.record.manifest.graph_file.display();
        eprintln!("rank {}: error: {graph}: {e}", self.comm.rank());
        self.comm.abort(2)
    }
}
