//! `flipgraph bench step --mpi` under `mpirun -np N` (feature `mpi`): weak scaling of the
//! decomposed step. Each rank owns `size` layers along the slab axis (y in 2D, z in 3D) of a
//! `size`-wide cross-section; the liquid column of the reference scene stretches with the
//! domain, so every rank holds the same share of it. Rank 0 prints one row: time per step and
//! per owned cell (the slowest rank's), the share spent communicating (particle exchange and
//! the solvers' halo exchanges and reductions), and what each step sends (what a larger
//! cluster's network would carry per rank), and the largest rank's peak resident memory.

use super::step::{graph_of, stats, warm_up, StepArgs};
use crate::cmd_run::build;
use crate::session::Session;
use anyhow::{anyhow, Result};
use flip_comm::mpi as mpi_comm;
use flip_comm::{CommStats, Communicator};
use flip_graph::overrides::parse_overrides;
use flip_graph::window::{ghost_layers_for, Window};
use flip_graph::{GraphDoc, NodeRegistry, ParamValue};
use flip_nodes::roles::{KindFacts, NodeRole};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Runs the benchmark on this rank.
pub fn run(session: &Session, a: &StepArgs) -> Result<()> {
    let rt = mpi_comm::init().ok_or_else(|| anyhow!("MPI could not be initialised"))?;
    let ranks = rt.comm.ranks() as usize;
    let n = a.size.max(16);
    let (grid, axis) = match a.dim {
        2 => (format!("[{n}, {}, 1]", n * ranks), 1),
        3 => (format!("[{n}, {n}, {}]", n * ranks), 2),
        d => return Err(anyhow!("--dim must be 2 or 3, not {d}")),
    };
    let graph = graph_of(a);
    let mut sets = parse_overrides(&[
        format!("settings.grid={grid}"),
        format!("settings.cell_size={}", 1.0 / n as f64),
    ])?;
    sets.extend(a.sets.iter().cloned());
    let mut doc = session.graph(&graph, &sets)?;
    stretch_emitters(&mut doc, &session.registry, axis, ranks as f64);
    let out = super::bench_dir(&a.out);
    std::fs::create_dir_all(&out)?;
    let mut sim = build(session, &doc, &graph, &out)?;
    let reach = sim
        .window_reach()
        .map_err(|r| anyhow!("{}: {}", graph.display(), r[0]))?;
    let ghost = ghost_layers_for(doc.settings.cfl, reach);
    let comm: Arc<dyn Communicator> = rt.comm.clone();
    let window = Window::new(comm.clone(), doc.settings.grid_spec(), ghost)?;
    let owned_cells = window.owned.len() * window.dist.layout().layer_len();
    sim.set_window(window)
        .map_err(|_| anyhow!("refused after being accepted"))?;
    let w = sim.window().expect("set").clone();
    let dt = warm_up(&mut sim, &doc, a.warmup)?;
    let before = Traffic::of(&[&w.solve.stats, &w.dist.stats]);
    let (mut walls, mut exchange, mut sent, mut particles) = (Vec::new(), 0.0, 0usize, 0);
    let solve_nodes: Vec<usize> = (sim.plan().nodes.iter().enumerate())
        .filter(|(_, p)| p.spec.role().solves_with_plugin())
        .map(|(i, _)| i)
        .collect();
    let mut solves = 0.0;
    for s in 0..a.steps {
        let r = sim
            .substep(dt, a.warmup + s, false)
            .map_err(|e| anyhow!("{e}"))?;
        let mut slowest = [r.wall.as_secs_f64()];
        comm.max(&mut slowest);
        walls.push(slowest[0]);
        if let Some((c, t)) = r.exchange {
            exchange += t.as_secs_f64();
            sent += c.bytes_sent;
        }
        particles = r.count;
        solves += solve_nodes
            .iter()
            .map(|&i| r.node_times[i].as_secs_f64())
            .sum::<f64>();
    }
    let traffic = Traffic::of(&[&w.solve.stats, &w.dist.stats]).minus(&before);
    let steps = f64::from(a.steps.max(1));
    let total: f64 = walls.iter().sum();
    // The slowest rank's communication share and solves, the largest rank's peak memory.
    let mut comm_s = [
        exchange + traffic.seconds,
        solves,
        super::peak_rss_mb().unwrap_or(f64::NAN),
    ];
    comm.max(&mut comm_s);
    if rt.comm.rank() == 0 {
        let (med, _, _) = stats(walls);
        println!(
            "ranks {ranks}  {}D grid {grid}  {particles} particles  {ghost} ghost layers  {} threads/rank: \
             {:.1} ms/step (median, slowest rank)  {:.1} ns/owned cell/step  comm {:.1}% \
             (particle exchange and solver halos/reductions)  solves {:.1} ms/step  per step and rank: particles {:.1} kB, \
             solver halos {:.1} kB in {:.1} messages, {:.1} collectives; peak memory {:.0} MB (largest rank)",
            a.dim,
            rayon::current_num_threads(),
            1e3 * med,
            1e9 * med / owned_cells as f64,
            100.0 * comm_s[0] / total.max(1e-12),
            1e3 * comm_s[1] / steps,
            sent as f64 / steps / 1e3,
            traffic.bytes as f64 / steps / 1e3,
            traffic.messages as f64 / steps,
            traffic.collectives as f64 / steps,
            comm_s[2],
        );
    }
    Ok(())
}

/// Stretches every emitter's centre and size along `axis` by `factor`, so the liquid fills
/// the grown domain as it filled the unit one.
fn stretch_emitters(doc: &mut GraphDoc, registry: &NodeRegistry, axis: usize, factor: f64) {
    let is_emitter = |kind: &str| {
        registry
            .get(kind)
            .is_some_and(|k| k.spec.role() == NodeRole::Emitter)
    };
    for node in doc.nodes.iter_mut().filter(|n| is_emitter(&n.kind)) {
        for key in ["center", "size"] {
            if let Some(ParamValue::Vector(v)) = node.params.get_mut(key) {
                if let Some(x) = v.get_mut(axis) {
                    *x *= factor;
                }
            }
        }
    }
}

/// Communication counters summed over distributions.
#[derive(Default)]
struct Traffic {
    bytes: u64,
    messages: u64,
    collectives: u64,
    seconds: f64,
}

impl Traffic {
    fn of(all: &[&CommStats]) -> Self {
        let mut t = Self::default();
        for s in all {
            t.bytes += s.halo_bytes.load(Ordering::Relaxed);
            t.messages += s.halo_messages.load(Ordering::Relaxed);
            t.collectives += s.collectives.load(Ordering::Relaxed);
            t.seconds += s.comm_ns.load(Ordering::Relaxed) as f64 * 1e-9;
        }
        t
    }

    fn minus(&self, before: &Self) -> Self {
        Self {
            bytes: self.bytes - before.bytes,
            messages: self.messages - before.messages,
            collectives: self.collectives - before.collectives,
            seconds: self.seconds - before.seconds,
        }
    }
}
