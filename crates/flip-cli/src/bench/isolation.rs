//! `flipgraph bench isolation`: seconds per pressure solve with the solver in this process
//! and isolated in a child process (`pressure.isolation = "process"`), on the reference dam
//! break at 128² and 64³; both simulations step in turn on the same problems.
//!
//! Two rows per grid. **The solve** compares like with like: the volume correction is off,
//! because in this process it solves on the hierarchy the pressure solve built (or the other
//! way round, whichever comes first), so an in-process pressure solve can be timed without its
//! hierarchy build, which an isolated one always pays. **The step** is the whole step's wall
//! time with the default physics, where isolating the solver also loses that sharing.

use super::bench_dir;
use super::table::Table;
use crate::cmd_run::build;
use crate::session::Session;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use flip_graph::overrides::parse_overrides;
use flip_graph::{Simulation, StepReport};
use flip_nodes::roles::{KindFacts, NodeRole};
use flip_nodes::stats::{SolveReport, SolvedGrid};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench isolation`.
#[derive(Args)]
pub struct IsolationArgs {
    /// 2D grid sizes (cells per axis).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub sizes_2d: Vec<usize>,
    /// 3D grid sizes (cells per axis).
    #[arg(long, value_delimiter = ',', default_value = "64")]
    pub sizes_3d: Vec<usize>,
    /// Timed solves per mode and size.
    #[arg(long, default_value_t = 20)]
    pub steps: u32,
    /// Untimed warm-up steps (the first solve maps the shared memory).
    #[arg(long, default_value_t = 3)]
    pub warmup: u32,
    /// The algorithm.
    #[arg(long, default_value = "multigrid/mgpcg")]
    pub solver: String,
    /// Folder for the table's CSV and Markdown, and scratch output (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The solve of the (first) pressure node in a step.
fn solve<'r>(sim: &Simulation, r: &'r StepReport) -> Option<&'r SolveReport> {
    let is_pressure = |n: &flip_graph::compile::PlanNode| n.spec.role() == NodeRole::Pressure;
    let i = sim.plan().nodes.iter().position(is_pressure)?;
    r.stats(i)
}

/// Median and minimum (the least disturbed solve, on a busy machine).
fn median_min(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let med = v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
    (med, v.first().copied().unwrap_or(f64::NAN))
}

/// (median, minimum) ms in-process and isolated.
type Times = [(f64, f64); 2];

/// What one scene measured in both modes.
struct Measured {
    /// Per pressure solve.
    solve: Times,
    /// Per step (wall time).
    step: Times,
    /// Whether both modes gave the same iterations and residuals.
    same: bool,
    /// Median shared-memory transfer time of the isolated solves (ms).
    transfer: f64,
}

/// One scene in both modes, with the volume correction on or off.
fn measure(
    session: &Session,
    a: &IsolationArgs,
    (dim, n): (u32, usize),
    volume: bool,
) -> Result<Measured> {
    let (graph, grid) = if dim == 2 {
        ("graphs/bench_dam_break_2d.ron", format!("[{n}, {n}, 1]"))
    } else {
        ("graphs/bench_dam_break_3d.ron", format!("[{n}, {n}, {n}]"))
    };
    let graph = PathBuf::from(graph);
    // the simulations' own output (nothing is exported) stays out of the tables' folder
    let out = std::env::temp_dir().join("flipgraph-bench-isolation");
    std::fs::create_dir_all(&out)?;
    let mut sims = Vec::new();
    for mode in ["none", "process"] {
        let sets = [
            format!("settings.grid={grid}"),
            format!("settings.cell_size={}", 1.0 / n as f64),
            format!("pressure.solver={}", a.solver),
            format!("pressure.isolation={mode}"),
            format!("volume.enabled={volume}"),
        ];
        let doc = session.graph(&graph, &parse_overrides(&sets)?)?;
        sims.push(build(session, &doc, &graph, &out.join(mode))?);
    }
    let (mut times, mut steps) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    let (mut same, mut transfer) = (true, Vec::new());
    for s in 0..a.warmup + a.steps {
        let mut seen = Vec::new();
        for (m, sim) in sims.iter_mut().enumerate() {
            let started = Instant::now();
            let r = sim
                .substep(1.0 / 240.0, s, false)
                .map_err(|e| anyhow!("{e}"))?;
            let step_ms = 1e3 * started.elapsed().as_secs_f64();
            let solved = solve(sim, &r).ok_or_else(|| anyhow!("no pressure solve"))?;
            if s >= a.warmup {
                times[m].push(solved.solve_ms);
                steps[m].push(step_ms);
                if let SolvedGrid::Regular(regular) = &solved.grid {
                    transfer.extend(regular.transfer_ms);
                }
            }
            seen.push((solved.iterations, solved.residual));
        }
        same &= seen[0] == seen[1];
    }
    Ok(Measured {
        solve: times.map(median_min),
        step: steps.map(median_min),
        same,
        transfer: median_min(transfer).0,
    })
}

/// Runs the benchmark and prints the table.
pub fn run(session: &Session, a: &IsolationArgs) -> Result<()> {
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let mut table = Table::new(
        "isolation",
        format!(
            "bench isolation: {}, per pressure solve and per step, median and minimum of {} steps after {} warm-up steps",
            a.solver, a.steps, a.warmup
        ),
        &[
            "grid",
            "timed",
            "in-process ms",
            "isolated ms",
            "overhead ms",
            "overhead",
            "min in-process / isolated ms",
            "overhead of min",
            "transfer ms",
            "same results",
        ],
    );
    let scenes = a.sizes_2d.iter().map(|&n| (2, n));
    for scene in scenes.chain(a.sizes_3d.iter().map(|&n| (3, n))) {
        let name = match scene {
            (2, n) => format!("{n}²"),
            (_, n) => format!("{n}³"),
        };
        let alone = measure(session, a, scene, false)?;
        let stepped = measure(session, a, scene, true)?;
        let rows = [
            ("solve, volume correction off", &alone.solve, &alone),
            ("step, default physics", &stepped.step, &stepped),
        ];
        for (timed, &[(local, local_min), (isolated, isolated_min)], m) in rows {
            table.row([
                name.clone(),
                timed.to_string(),
                format!("{local:.3}"),
                format!("{isolated:.3}"),
                format!("{:.3}", isolated - local),
                format!("{:+.1} %", 100.0 * (isolated - local) / local),
                format!("{local_min:.3} / {isolated_min:.3}"),
                format!("{:+.1} %", 100.0 * (isolated_min - local_min) / local_min),
                format!("{:.3}", m.transfer),
                (if m.same { "yes" } else { "NO" }).to_string(),
            ]);
        }
    }
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}
