//! `flipgraph bench step`: N substeps after a warm-up on the reference dam break; median, min
//! and max seconds per step by node, particle throughput, pressure iterations, peak memory.

use super::{bench_dir, peak_rss_mb};
use crate::cmd_run::build;
use crate::session::Session;
use crate::summary::RunSummary;
use anyhow::{anyhow, Result};
use clap::Args;
use flip_nodes::roles::{KindFacts, NodeRole};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `bench step`.
#[derive(Args)]
pub struct StepArgs {
    /// Cells per axis.
    #[arg(long, default_value_t = 64)]
    pub size: usize,
    /// 2 or 3 dimensions (2D uses the same scene as a 1 m square).
    #[arg(long, default_value_t = 3)]
    pub dim: u32,
    /// Timed steps.
    #[arg(long, default_value_t = 10)]
    pub steps: u32,
    /// Untimed warm-up steps.
    #[arg(long, default_value_t = 2)]
    pub warmup: u32,
    /// Graph (default graphs/bench_dam_break_3d.ron, or bench_dam_break_2d.ron with --dim 2).
    #[arg(long)]
    pub graph: Option<PathBuf>,
    /// Overrides, e.g. pressure.solver=pcg/mic0-pcg (repeatable).
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// Folder for the CSV (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Weak scaling under `mpirun -np N`: every rank owns `size` layers along the slab axis
    /// (the domain and the liquid column stretch with the ranks); rank 0 prints one row.
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub mpi: bool,
}

pub(super) fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let med = if v.is_empty() { 0.0 } else { v[v.len() / 2] };
    (
        med,
        v.first().copied().unwrap_or(0.0),
        v.last().copied().unwrap_or(0.0),
    )
}

/// The G2P transfer of each grid-to-particle node (`flip` or `apic`) and whether a volume
/// correction is on.
fn transfer_modes(doc: &flip_graph::GraphDoc, registry: &flip_graph::NodeRegistry) -> String {
    let role = |n: &flip_graph::doc::NodeDoc| registry.get(&n.kind).map(|k| k.spec.role());
    let text = |n: &flip_graph::doc::NodeDoc, p: &str, default: &str| match n.params.get(p) {
        Some(flip_graph::ParamValue::Text(t)) => t.clone(),
        Some(flip_graph::ParamValue::Bool(b)) => b.to_string(),
        _ => default.to_string(),
    };
    let mut modes: Vec<String> = doc
        .nodes
        .iter()
        .filter(|n| role(n) == Some(NodeRole::GridToParticle))
        .map(|n| text(n, "transfer", "flip"))
        .collect();
    let corrections = (doc.nodes.iter()).filter(|n| role(n) == Some(NodeRole::VolumeCorrection));
    modes.extend(corrections.map(|n| format!("correction {}", text(n, "enabled", "true"))));
    modes.join(", ")
}

/// Runs the untimed warm-up substeps; returns the benchmark's time step (the graph's fixed
/// one, else 1/240 s).
pub(super) fn warm_up(
    sim: &mut flip_graph::Simulation,
    doc: &flip_graph::GraphDoc,
    steps: u32,
) -> Result<f32> {
    let dt = if doc.settings.fixed_dt > 0.0 {
        doc.settings.fixed_dt
    } else {
        1.0 / 240.0
    };
    for s in 0..steps {
        sim.substep(dt, s, false).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(dt)
}

/// The graph a run of `a` uses.
pub(super) fn graph_of(a: &StepArgs) -> PathBuf {
    a.graph.clone().unwrap_or_else(|| {
        PathBuf::from(if a.dim == 2 {
            "graphs/bench_dam_break_2d.ron"
        } else {
            "graphs/bench_dam_break_3d.ron"
        })
    })
}

/// Runs the benchmark.
pub fn run(session: &Session, a: &StepArgs) -> Result<()> {
    #[cfg(feature = "mpi")]
    if a.mpi {
        return super::step_mpi::run(session, a);
    }
    let graph = graph_of(a);
    let grid = if a.dim == 2 {
        format!("[{0}, {0}, 1]", a.size)
    } else {
        format!("[{0}, {0}, {0}]", a.size)
    };
    let mut sets = vec![
        format!("settings.grid={grid}"),
        format!("settings.cell_size={}", 1.0 / a.size as f64),
    ];
    sets.extend(a.sets.iter().cloned());
    let doc = session.graph(&graph, &sets)?;
    let out = bench_dir(&a.out);
    std::fs::create_dir_all(&out)?;
    let mut sim = build(session, &doc, &graph, &out)?;
    let dt = warm_up(&mut sim, &doc, a.warmup)?;
    let mut summary = RunSummary::new(&sim);
    let mut per_node: Vec<Vec<f64>> = vec![Vec::new(); sim.plan().nodes.len()];
    let mut walls = Vec::new();
    let mut overheads = Vec::new();
    let mut checks = Vec::new();
    let mut criticals = Vec::new();
    let mut stages = StageTimes::default();
    for s in 0..a.steps {
        // Substep indices keep counting: index 0 is the start of the run (one-shot emitters).
        let r = sim
            .substep(dt, a.warmup + s, false)
            .map_err(|e| anyhow!("{e}"))?;
        for (i, t) in r.node_times.iter().enumerate() {
            per_node[i].push(t.as_secs_f64());
        }
        walls.push(r.wall.as_secs_f64());
        // Scheduler overhead: wall time minus the critical path (the longest chain of node
        // times through the graph) and the state check (a simulation pass of its own,
        // reported on its own line).
        let critical = r.critical_path.as_secs_f64();
        criticals.push(critical);
        let check = r.state_check.as_secs_f64();
        overheads.push(r.wall.as_secs_f64() - critical - check);
        checks.push(check);
        stages.add(&summary.roles, &r);
        summary.add_frame(std::slice::from_ref(&r));
    }
    let (med, min, max) = stats(walls);
    let np = summary.particles as f64;
    println!("bench step: {}D {} cells/axis, {} particles, {} steps after {} warm-up (dt = {dt:.5} s), {} threads",
        a.dim, a.size, summary.particles, a.steps, a.warmup, rayon::current_num_threads());
    println!("step seconds: median {med:.4}  min {min:.4}  max {max:.4}");
    let mut csv = String::from("node,kind,median_s,min_s,max_s,us_per_particle\n");
    println!(
        "{:<18} {:<12} {:>10} {:>10} {:>10} {:>12}",
        "node", "kind", "median s", "min s", "max s", "µs/particle"
    );
    let (mut particle_stage, mut transfers, mut correction) = (0.0, 0.0, 0.0);
    let mut node_total = 0.0;
    for (i, times) in per_node.into_iter().enumerate() {
        let (m, lo, hi) = stats(times);
        let (kind, role) = (&summary.kinds[i], summary.roles[i]);
        if role.is_particle_stage() {
            particle_stage += m;
        }
        if role.is_transfer() {
            transfers += m;
        }
        if role.is_particle_upkeep() {
            correction += m;
        }
        if role.is_step_boundary() {
            continue;
        }
        node_total += m;
        println!(
            "{:<18} {:<12} {m:>10.4} {lo:>10.4} {hi:>10.4} {:>12.4}",
            summary.ids[i],
            kind,
            1e6 * m / np.max(1.0)
        );
        writeln!(
            csv,
            "{},{},{m},{lo},{hi},{}",
            summary.ids[i],
            kind,
            1e6 * m / np.max(1.0)
        )?;
    }
    println!(
        "particle stages (p2g + g2p + advect): {:.4} µs/particle/step",
        1e6 * particle_stage / np.max(1.0)
    );
    let (critical, _, _) = stats(criticals);
    println!(
        "node time (medians summed; nodes on independent branches overlap): {node_total:.4} s/step, critical path median {critical:.4} s"
    );
    println!(
        "transfers (p2g + g2p, {}): {:.4} s/step ({:.1}% of the node time)",
        transfer_modes(&doc, &session.registry),
        transfers,
        100.0 * transfers / node_total.max(1e-12)
    );
    println!(
        "volume correction and reseeding: {:.4} s/step ({:.1}% of the node time)",
        correction,
        100.0 * correction / node_total.max(1e-12)
    );
    stages.print(a.steps);
    let (check, _, _) = stats(checks);
    println!(
        "state check (largest speed for CFL, blow-up test): {:.3} ms/step ({:.2}% of the step)",
        1e3 * check,
        100.0 * check / med.max(1e-12)
    );
    let (overhead, _, _) = stats(overheads);
    println!(
        "scheduler overhead (wall minus critical path and state check): {:.3} ms/step ({:.2}% of the step)",
        1e3 * overhead,
        100.0 * overhead / med.max(1e-12)
    );
    println!(
        "pressure: {:.1} iterations mean, {:.4} s mean, residual max {:.2e}",
        summary.mean(|s| s.iterations),
        summary.mean(|s| s.solve_ms) / 1e3,
        summary.max(|s| s.residual)
    );
    if let Some(mb) = peak_rss_mb() {
        println!("peak resident memory: {mb:.0} MB");
    }
    let path = out.join(format!("step_{}d_{}.csv", a.dim, a.size));
    std::fs::write(&path, csv)?;
    println!("csv: {}", path.display());
    Ok(())
}

/// Sums of the correction's stage timings that its nodes report as statistics.
#[derive(Default)]
struct StageTimes {
    /// (statistic, total ms) in first-seen order.
    totals: Vec<(String, f64)>,
}

impl StageTimes {
    const NAMES: [&'static str; 5] = [
        "correction_measure_ms",
        "correction_solve_ms",
        "correction_displace_ms",
        "correction_iterations",
        "correction_assemble_ms",
    ];

    fn add(&mut self, roles: &[NodeRole], r: &flip_graph::StepReport) {
        let corrections = roles.iter().zip(&r.node_stats);
        for (_, stats) in corrections.filter(|(role, _)| **role == NodeRole::VolumeCorrection) {
            for (name, v) in stats
                .iter()
                .filter(|(n, _)| Self::NAMES.contains(&n.as_str()))
            {
                match self.totals.iter_mut().find(|(n, _)| n == name) {
                    Some((_, t)) => *t += v,
                    None => self.totals.push((name.clone(), *v)),
                }
            }
        }
    }

    fn print(&self, steps: u32) {
        if self.totals.is_empty() {
            return;
        }
        let mean = |name: &str| {
            let t = self.totals.iter().find(|(n, _)| n == name);
            t.map_or(0.0, |(_, t)| t / f64::from(steps.max(1)))
        };
        // wired before advection, the correction measures nothing (the level-set node's
        // splat) and its displacement is a grid, applied by advect
        let measured = self.totals.iter().any(|(n, _)| n == Self::NAMES[0]);
        let measure = if measured {
            format!("measure {:.1}", mean(Self::NAMES[0]))
        } else {
            "measure: the level set's".into()
        };
        let displace = if measured {
            "displace"
        } else {
            "displacement grid"
        };
        println!(
            "volume correction stages (mean ms/step): {measure}, assemble {:.1}, solve {:.1} ({:.1} iterations), {displace} {:.1}",
            mean(Self::NAMES[4]),
            mean(Self::NAMES[1]),
            mean(Self::NAMES[3]),
            mean(Self::NAMES[2])
        );
    }
}
