//! `flipgraph run GRAPH --mpi` under `mpirun -np N` (feature `mpi`): every rank simulates its
//! window of the domain (a slab of whole layers along the outermost axis plus ghost layers,
//! `flip_graph::window`), particles migrate between ranks each substep, the solves run
//! distributed, and rank 0 writes the frames a single-process run would write and the run's
//! `run.json` (so `flipgraph verify` checks them). Checkpoints, `--resume` and `--from` are not
//! offered: a checkpoint holds one process's state.

use crate::cmd_run::{build_with, default_out, RunArgs};
use crate::manifest::{now_unix, Manifest, RunStatus};
use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use flip_graph::window::{ghost_layers_for, Window};
use flip_graph::{Simulation, StepReport};
use flip_plugin::host::distributed::Communicator;
use flip_plugin::host::mpi_comm::{self, MpiComm};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs `args` on this rank.
pub fn run(session: &Session, args: &RunArgs) -> Result<()> {
    let rt = mpi_comm::init().ok_or_else(|| anyhow!("MPI could not be initialised"))?;
    let graph = args.graph.as_ref().expect("clap requires a graph");
    let doc = session.graph(graph, &args.sets)?;
    let frames = args.frames.unwrap_or(doc.settings.frames);
    let out = args.out.clone().unwrap_or_else(|| default_out(graph));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut sim = build_with(session, &doc, graph, &out, args.allow_outside_out)?;
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
    let mut record = (rt.comm.rank() == 0).then(|| Record {
        manifest: Manifest::new(&doc, graph, &session.plugins, frames),
        out: out.clone(),
    });
    if let Some(r) = &mut record {
        r.manifest.threads *= rt.comm.ranks() as usize;
        r.manifest.write(&r.out)?;
    }
    let totals = simulate(&mut sim, frames, talk, &rt.comm, record.as_mut());
    if let Some(r) = &mut record {
        r.manifest.status = RunStatus::Done;
        r.manifest.ended_unix = Some(now_unix());
        r.manifest.write(&r.out)?;
    }
    if talk {
        totals.print(&sim);
    }
    Ok(())
}

/// Rank 0's manifest of the run and where it goes.
struct Record {
    manifest: Manifest,
    out: PathBuf,
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

/// Simulates `frames` frames; a failure on this rank ends every rank (the others may be
/// waiting in a collective).
fn simulate(
    sim: &mut Simulation,
    frames: u32,
    talk: bool,
    comm: &MpiComm,
    mut record: Option<&mut Record>,
) -> Totals {
    let mut totals = Totals::default();
    let start = Instant::now();
    while sim.frame() < frames {
        let t = Instant::now();
        match sim.advance_frame() {
            Ok(reports) => {
                reports.iter().for_each(|r| totals.add(r));
                if let Some(r) = record.as_deref_mut() {
                    let files: Vec<PathBuf> =
                        reports.iter().flat_map(|r| r.files.clone()).collect();
                    let (wall, n) = (t.elapsed().as_secs_f64(), reports.len() as u32);
                    let recorded = r.manifest.add_frame(&r.out, sim.frame(), n, wall, &files);
                    r.manifest.peak_rss_bytes = crate::limits::peak_rss();
                    if let Err(e) = recorded.and_then(|()| r.manifest.write(&r.out)) {
                        // the other ranks would wait for this one in the next substep
                        eprintln!("rank 0: error: {e:#}");
                        comm.abort(2);
                    }
                }
                if talk {
                    let last = reports.last().expect("a frame has a substep");
                    println!(
                        "frame {}/{frames}: {} particles, {} substeps, {:.2} s",
                        sim.frame(),
                        last.particles,
                        reports.len(),
                        start.elapsed().as_secs_f64()
                    );
                }
            }
            Err(e) => {
                eprintln!("rank {}: error: {e}", comm.rank());
                comm.abort(2);
            }
        }
    }
    totals.wall = start.elapsed();
    totals
}
