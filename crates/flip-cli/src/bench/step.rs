//! `flipgraph bench step`: N substeps after a warm-up on the reference dam break; median, min
//! and max seconds per step by node, particle throughput, pressure (and viscosity) iterations,
//! peak memory.

use super::table::Table;
use super::{bench_dir, peak_rss_mb};
use super::{roofline, step_bodies};
use crate::cmd_run::build;
use crate::session::Session;
use crate::summary::RunSummary;
use anyhow::{anyhow, Result};
use clap::Args;
use flip_graph::overrides::{apply_overrides_scoped, parse_overrides};
use flip_graph::{EdgeDoc, Endpoint, GraphDoc, NodeDoc, ParamValue};
use flip_nodes::roles::{KindFacts, NodeRole};
use flip_nodes::stats::{SolveReport, SolvedGrid, VolumeCorrectionStats};
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
    pub sets: Vec<flip_graph::Override>,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Shuffle the particles after the warm-up: the order a long simulation leaves them in at
    /// worst, to price the particle order (with `--set advect.sort_every=0`: never reordered).
    #[arg(long)]
    pub scramble: bool,
    /// Kinematic viscosity (m²/s) of a `viscosity` node spliced in before the pressure solve
    /// (the reference scene has none), wired as in `graphs/viscous_dam_break_2d.ron`: prices
    /// the viscous step against the same pressure solve (`--set viscosity.solver=…` picks its
    /// solver)
    #[arg(long)]
    pub viscosity: Option<f64>,
    /// Rigid bodies (boxes and balls of densities 500 to 1200 kg/m³) placed in the column and
    /// coupled into the pressure solve, wired as in `graphs/floating_boxes_3d.ron`; the same
    /// scene without them is measured first, and the table compares the two pressure solves
    /// (time and iterations; `--set pressure.solver=multigrid/mgpcg` for MGPCG's)
    #[arg(long, default_value_t = 0)]
    pub bodies: usize,
    /// Weak scaling under `mpirun -np N`: every rank owns `size` layers along the slab axis
    /// (the domain and the liquid column stretch with the ranks); rank 0 prints one row.
    /// (Hidden in builds without the `mpi` feature, which refuse it saying how to build one.)
    #[arg(long, hide = !crate::features::MPI.enabled)]
    pub mpi: bool,
}

/// Shuffles the carried particles, the same way every run ([`flip_core::Particles::shuffle`]).
fn scramble(sim: &mut flip_graph::Simulation) {
    use flip_nodes::kinds::CarriedParticles;
    let Some(shared) = sim.particles() else {
        return;
    };
    let mut p = (*shared).clone();
    drop(shared);
    p.shuffle(0x9e37_79b9_7f4a_7c15);
    sim.set_particles(p);
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

/// Inserts a `viscosity` node of viscosity `nu` on the wire into the pressure node's
/// `velocity`, reading the level set and solids the pressure node reads.
fn splice_viscosity(doc: &mut GraphDoc, session: &Session, nu: f64) -> Result<(), String> {
    let role = |kind: &str| session.registry.get(kind).map(|k| k.spec.role());
    let pressure = doc
        .nodes
        .iter()
        .find(|n| role(&n.kind) == Some(NodeRole::Pressure))
        .map(|n| n.id.clone())
        .ok_or("the graph has no pressure node")?;
    let source = |port: &str| {
        doc.edges
            .iter()
            .find(|e| e.to.node == pressure && e.to.port == port)
            .map(|e| e.from.clone())
            .ok_or(format!("nothing is wired into `{pressure}.{port}`"))
    };
    let (velocity, level_set, solids) =
        (source("velocity")?, source("level_set")?, source("solids")?);
    let id = "viscosity";
    if doc.nodes.iter().any(|n| n.id == id) {
        return Err(format!("the graph already has a node `{id}`"));
    }
    let mut node = NodeDoc::new(id, "viscosity");
    node.params
        .insert("viscosity".into(), ParamValue::Number(nu));
    doc.nodes.push(node);
    doc.edges
        .retain(|e| !(e.to.node == pressure && e.to.port == "velocity"));
    doc.edges.extend([
        EdgeDoc::new(velocity, Endpoint::new(id, "velocity")),
        EdgeDoc::new(level_set, Endpoint::new(id, "level_set")),
        EdgeDoc::new(solids, Endpoint::new(id, "solids")),
        EdgeDoc::new(
            Endpoint::new(id, "velocity"),
            Endpoint::new(&pressure, "velocity"),
        ),
    ]);
    Ok(())
}

/// Runs the benchmark.
pub fn run(session: &Session, a: &StepArgs) -> Result<()> {
    if a.mpi {
        crate::features::MPI.require("bench step --mpi")?;
        #[cfg(feature = "mpi")]
        return super::step_mpi::run(session, a);
    }
    let graph = graph_of(a);
    let grid = if a.dim == 2 {
        format!("[{0}, {0}, 1]", a.size)
    } else {
        format!("[{0}, {0}, {0}]", a.size)
    };
    let sets = parse_overrides(&[
        format!("settings.grid={grid}"),
        format!("settings.cell_size={}", 1.0 / a.size as f64),
    ])?;
    let mut doc = session.graph(&graph, &sets)?;
    if let Some(nu) = a.viscosity {
        splice_viscosity(&mut doc, session, nu)
            .map_err(|e| anyhow!("{}: --viscosity: {e}", graph.display()))?;
    }
    apply_overrides_scoped(&mut doc, &a.sets, &session.registry)
        .map_err(|e| anyhow!("{}: {e}", graph.display()))?;
    let out = bench_dir(&a.out);
    std::fs::create_dir_all(&out)?;
    let uncoupled = if a.bodies > 0 {
        let alone =
            step_bodies::uncoupled_pressure(session, &doc, &graph, &out, a.warmup, a.steps)?;
        step_bodies::splice_bodies(&mut doc, session, a.bodies)
            .map_err(|e| anyhow!("{}: --bodies: {e}", graph.display()))?;
        Some(alone)
    } else {
        None
    };
    let mut sim = build(session, &doc, &graph, &out)?;
    let dt = warm_up(&mut sim, &doc, a.warmup)?;
    if a.scramble {
        scramble(&mut sim);
    }
    let mut summary = RunSummary::new(&sim);
    let mut per_node: Vec<Vec<f64>> = vec![Vec::new(); sim.plan().nodes.len()];
    let mut walls = Vec::new();
    let mut overheads = Vec::new();
    let mut checks = Vec::new();
    let mut criticals = Vec::new();
    let mut stages = StageTimes::default();
    let mut viscous = ViscosityTimes::default();
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
        stages.add(&r);
        viscous.add(&r);
        summary.add_frame(std::slice::from_ref(&r));
    }
    // read before the bandwidth test, whose arrays would raise the high-water mark
    let peak_mb = peak_rss_mb();
    let bandwidth = roofline::measure_bandwidth();
    let grid_cells = a.size.pow(if a.dim == 2 { 2 } else { 3 });
    let traffic: Vec<_> = sim.plan().nodes.iter().map(|n| n.spec.traffic()).collect();
    let (med, min, max) = stats(walls);
    let np = summary.particles as f64;
    let mut table = Table::new(
        if a.bodies > 0 {
            format!("step_{}d_{}_bodies{}", a.dim, a.size, a.bodies)
        } else {
            format!("step_{}d_{}", a.dim, a.size)
        },
        format!(
            "bench step: {}D {} cells/axis, {} particles{}{}, {} steps after {} warm-up (dt = {dt:.5} s), {} threads",
            a.dim, a.size, summary.particles,
            if a.bodies > 0 { format!(", {} rigid bodies", a.bodies) } else { String::new() },
            if a.scramble { " (shuffled after the warm-up)" } else { "" },
            a.steps, a.warmup, rayon::current_num_threads()
        ),
        &[
            "node",
            "kind",
            "median s",
            "min s",
            "max s",
            "µs/particle",
            "floor MB",
            "% of bandwidth",
        ],
    );
    table.note(format!(
        "step seconds: median {med:.4}  min {min:.4}  max {max:.4}"
    ));
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
        let [floor, share] =
            roofline::cells(traffic[i], summary.particles, grid_cells, m, bandwidth);
        table.row([
            summary.ids[i].clone(),
            kind.to_string(),
            format!("{m:.4}"),
            format!("{lo:.4}"),
            format!("{hi:.4}"),
            format!("{:.4}", 1e6 * m / np.max(1.0)),
            floor,
            share,
        ]);
    }
    table.note(format!(
        "particle stages (p2g + g2p + advect): {:.4} µs/particle/step",
        1e6 * particle_stage / np.max(1.0)
    ));
    let (critical, _, _) = stats(criticals);
    table.note(format!(
        "node time (medians summed; nodes on independent branches overlap): {node_total:.4} s/step, critical path median {critical:.4} s"
    ));
    table.note(format!(
        "transfers (p2g + g2p, {}): {:.4} s/step ({:.1}% of the node time)",
        transfer_modes(&doc, &session.registry),
        transfers,
        100.0 * transfers / node_total.max(1e-12)
    ));
    table.note(format!(
        "volume correction and reseeding: {:.4} s/step ({:.1}% of the node time)",
        correction,
        100.0 * correction / node_total.max(1e-12)
    ));
    table.notes.extend(stages.line(a.steps));
    let (check, _, _) = stats(checks);
    table.note(format!(
        "state check (largest speed for CFL, blow-up test): {:.3} ms/step ({:.2}% of the step)",
        1e3 * check,
        100.0 * check / med.max(1e-12)
    ));
    let (overhead, _, _) = stats(overheads);
    table.note(format!(
        "scheduler overhead (wall minus critical path and state check): {:.3} ms/step ({:.2}% of the step)",
        1e3 * overhead,
        100.0 * overhead / med.max(1e-12)
    ));
    table.note(format!(
        "pressure: {:.1} iterations mean, {:.4} s mean, residual max {:.2e}",
        summary.mean(|s| s.iterations),
        summary.mean(|s| s.solve_ms) / 1e3,
        summary.max(|s| s.residual)
    ));
    if let Some(alone) = uncoupled {
        let coupled = (
            summary.mean(|s| s.iterations),
            summary.mean(|s| s.solve_ms) / 1e3,
        );
        table.note(step_bodies::comparison(a.bodies, coupled, alone));
    }
    table
        .notes
        .extend(viscous.line(a.steps, summary.mean(|s| s.solve_ms)));
    table.note(format!(
        "roofline: floor MB = the least traffic of a stage (inputs read and outputs written once, \
         declared by its kind); % of bandwidth = floor / median s over {:.1} GB/s, this machine's \
         parallel copy on {} threads",
        bandwidth / 1e9,
        rayon::current_num_threads()
    ));
    if let Some(mb) = peak_mb {
        table.note(format!("peak resident memory: {mb:.0} MB"));
    }
    table.emit(&out)?;
    Ok(())
}

/// Sums of the volume correction's stage timings over the timed steps.
#[derive(Default)]
struct StageTimes {
    /// Measuring (ms); `None` when no correction measured (the level set's measurement).
    measure_ms: Option<f64>,
    /// Whether any correction solved.
    solved: bool,
    assemble_ms: f64,
    solve_ms: f64,
    iterations: f64,
    displace_ms: f64,
}

impl StageTimes {
    fn add(&mut self, r: &flip_graph::StepReport) {
        for (_, c) in r.all_stats::<VolumeCorrectionStats>() {
            if let Some(t) = c.measure_ms {
                *self.measure_ms.get_or_insert(0.0) += t;
            }
            if let Some(s) = &c.solve {
                self.solved = true;
                self.assemble_ms += s.assemble_ms;
                self.solve_ms += s.solve_ms;
                self.iterations += f64::from(s.iterations);
                self.displace_ms += s.displace_ms;
            }
        }
    }

    /// The mean stage times as one line, when the correction reported any.
    fn line(&self, steps: u32) -> Option<String> {
        if self.measure_ms.is_none() && !self.solved {
            return None;
        }
        let mean = |total: f64| total / f64::from(steps.max(1));
        // wired before advection, the correction measures nothing (the level-set node's
        // splat) and its displacement is a grid, applied by advect
        let (measure, displace) = match self.measure_ms {
            Some(t) => (format!("measure {:.1}", mean(t)), "displace"),
            None => ("measure: the level set's".into(), "displacement grid"),
        };
        Some(format!(
            "volume correction stages (mean ms/step): {measure}, assemble {:.1}, solve {:.1} ({:.1} iterations), {displace} {:.1}",
            mean(self.assemble_ms),
            mean(self.solve_ms),
            mean(self.iterations),
            mean(self.displace_ms)
        ))
    }
}

/// Sums of the viscosity node's timings over the timed steps.
#[derive(Default)]
struct ViscosityTimes {
    solves: u32,
    assemble_ms: f64,
    solve_ms: f64,
    iterations: f64,
}

impl ViscosityTimes {
    fn add(&mut self, r: &flip_graph::StepReport) {
        for (_, s) in r.all_stats::<SolveReport>() {
            if let SolvedGrid::Viscosity(v) = &s.grid {
                self.solves += 1;
                self.assemble_ms += v.assemble_ms;
                self.solve_ms += s.solve_ms;
                self.iterations += f64::from(s.iterations);
            }
        }
    }

    /// The mean assembly and solve times and the solve's ratio to the pressure solve's
    /// (`pressure_ms`, mean per solve), when a viscosity node solved.
    fn line(&self, steps: u32, pressure_ms: f64) -> Option<String> {
        if self.solves == 0 {
            return None;
        }
        let per_step = |total: f64| total / f64::from(steps.max(1));
        let solve = self.solve_ms / f64::from(self.solves);
        Some(format!(
            "viscosity (mean ms/step): assemble {:.1}, solve {:.1} ({:.1} iterations); solve / pressure solve {:.2}x, assemble + solve / pressure solve {:.2}x",
            per_step(self.assemble_ms),
            per_step(self.solve_ms),
            self.iterations / f64::from(self.solves),
            solve / pressure_ms.max(1e-12),
            (solve + self.assemble_ms / f64::from(self.solves)) / pressure_ms.max(1e-12)
        ))
    }
}
