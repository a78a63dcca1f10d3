//! `flipgraph bench tallcell`: the paper's scenes at several column counts, on the tall-cell
//! grid and on the regular grid of the same columns: unknowns, milliseconds per step by stage
//! (the paper's VE, LA, VA, RM, PP; RM includes the level-set reinitialisation) and the
//! solver's iterations. 2D: the "Tank" of `graphs/tallcell_tank_2d.ron`; 3D (`--dim 3`, sizes
//! are columns per side): a deep Tank (1.4 m of water over hills in a 4 m square basin) and the
//! "Flood" of `graphs/tallcell_flood_3d.ron` (its height map as a formula).

use super::bench_dir;
use super::table::Table;
use super::tallcell_scenes::{scene, Scene};
use crate::session::Session;
use anyhow::Result;
use clap::Args;
use flip_core::tallcell::{advect, extrapolate, pressure, reinit, TallLiquid};
use flip_host::{ProblemRef, SolverInstance};
use flip_sdk::SolveStats;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench tallcell`.
#[derive(Args)]
pub struct TallcellArgs {
    /// 2: columns along x; 3: columns on an x-z map (the paper's case).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    pub dim: u8,
    /// Columns (per side in 3D), comma-separated; default 128,256,512 in 2D, 32,64,128 in 3D.
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Sizes of the multigrid-vs-Krylov table (tall-cell problems only); default `--sizes`.
    #[arg(long, value_delimiter = ',')]
    pub solver_sizes: Vec<usize>,
    /// Timed steps per run.
    #[arg(long, default_value_t = 10)]
    pub steps: usize,
    /// CSR solver (plugin/algorithm).
    #[arg(long, default_value = "pcg/bicgstab")]
    pub solver: String,
    /// The multigrid of the solver table (plugin/algorithm).
    #[arg(long, default_value = "multigrid/tall-mg")]
    pub multigrid: String,
    /// The Krylov baseline of the solver table (plugin/algorithm).
    #[arg(long, default_value = "pcg/bicgstab")]
    pub krylov: String,
    /// Regular layers per column.
    #[arg(long, default_value_t = 8)]
    pub regular_layers: usize,
    /// Folder for the tables' CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Milliseconds per stage (VE, LA, VA, RM, PP), unknowns and iterations, summed over steps.
#[derive(Default)]
pub(super) struct Totals {
    ms: [f64; 5],
    unknowns: usize,
    iterations: u64,
}

impl TallcellArgs {
    /// The sizes asked for, or the dimension's default.
    pub(super) fn sizes(&self) -> Vec<usize> {
        match (self.sizes.is_empty(), self.dim) {
            (false, _) => self.sizes.clone(),
            (true, 2) => vec![128, 256, 512],
            (true, _) => vec![32, 64, 128],
        }
    }

    /// The sizes of the solver table.
    pub(super) fn solver_sizes(&self) -> Vec<usize> {
        if self.solver_sizes.is_empty() {
            self.sizes()
        } else {
            self.solver_sizes.clone()
        }
    }

    /// The scenes of the per-stage table.
    fn scenes(&self) -> &'static [Scene] {
        if self.dim == 2 {
            &[Scene::Tank]
        } else {
            &[Scene::Tank, Scene::Flood]
        }
    }
}

/// The step for `liquid`: half the CFL limit of a shallow-water wave 5 cells deep.
pub(super) fn step_dt(liquid: &TallLiquid) -> f32 {
    0.5 * liquid.grid.dx / (5.0 * 9.81 * liquid.grid.dx).sqrt()
}

/// The stages of one step before the solve (VE, LA, VA, RM, then gravity and the assembly,
/// the start of PP), each timed by `lap(stage, start)`; returns the pressure problem.
pub(super) fn prepare(
    liquid: &mut TallLiquid,
    dt: f32,
    mut lap: impl FnMut(usize, Instant),
) -> pressure::TallPressure {
    let s = Instant::now();
    extrapolate::extrapolate_velocity(liquid, 4);
    lap(0, s);
    let s = Instant::now();
    advect::advect_level_set(liquid, dt);
    lap(1, s);
    let s = Instant::now();
    advect::advect_velocity(liquid, dt);
    lap(2, s);
    let s = Instant::now();
    reinit::reinitialise(liquid);
    liquid.refit();
    lap(3, s);
    let s = Instant::now();
    advect::add_gravity(liquid, -9.81, dt);
    let p = pressure::assemble(liquid, 1000.0, dt);
    lap(4, s);
    p
}

/// Solves `p` with `solver`, as the tall-cell kind when the algorithm takes it.
pub(super) fn solve(
    solver: &mut SolverInstance,
    tallcell: bool,
    p: &mut pressure::TallPressure,
) -> Result<SolveStats> {
    Ok(if tallcell {
        solver.solve_any(ProblemRef::TallCell(&mut p.tallcell()))?
    } else {
        solver.solve_csr(&mut p.csr.view())?
    })
}

pub(super) fn run_one(
    liquid: &mut TallLiquid,
    (solver, tallcell): (&mut SolverInstance, bool),
    steps: usize,
) -> Result<Totals> {
    let dt = step_dt(liquid);
    let mut t = Totals::default();
    for _ in 0..steps {
        let mut p = prepare(liquid, dt, |k, start| {
            t.ms[k] += start.elapsed().as_secs_f64() * 1e3;
        });
        let s = Instant::now();
        let stats = solve(solver, tallcell, &mut p)?;
        pressure::apply(liquid, &p);
        t.ms[4] += s.elapsed().as_secs_f64() * 1e3;
        t.unknowns += p.csr.rhs.len();
        t.iterations += u64::from(stats.iterations);
    }
    Ok(t)
}

/// Runs the benchmark and prints the tables.
pub fn run(session: &Session, args: &TallcellArgs) -> Result<()> {
    let (plugin, info) = session.plugins.find(&args.solver)?;
    let steps = args.steps.max(1);
    let mut table = Table::new(
        format!("tallcell_{}d", args.dim),
        format!(
            "bench tallcell: tall-cell water ({}D), {steps} steps per run, solver {}, mean ms per step",
            args.dim, args.solver
        ),
        &[
            "scene", "columns", "grid", "unknowns", "VE ms", "LA ms", "VA ms", "RM ms", "PP ms",
            "total ms", "iter",
        ],
    );
    let mut ratios = Vec::new();
    for &n in &args.sizes() {
        for &kind in args.scenes() {
            let mut per_step = [0.0; 2];
            let mut unknowns = [0; 2];
            for (g, (name, regular)) in [("tall", Some(args.regular_layers)), ("regular", None)]
                .into_iter()
                .enumerate()
            {
                if kind == Scene::Flood && regular.is_none() {
                    continue;
                }
                let mut liquid = scene(args.dim, kind, n, regular)?;
                let mut solver = SolverInstance::create(plugin.clone(), &info.name, &[])?;
                let t = run_one(&mut liquid, (&mut solver, info.accepts_tallcell()), steps)?;
                let per = |x: f64| format!("{:.2}", x / steps as f64);
                per_step[g] = t.ms.iter().sum::<f64>() / steps as f64;
                unknowns[g] = t.unknowns / steps;
                table.row([
                    kind.name().to_string(),
                    n.to_string(),
                    name.to_string(),
                    unknowns[g].to_string(),
                    per(t.ms[0]),
                    per(t.ms[1]),
                    per(t.ms[2]),
                    per(t.ms[3]),
                    per(t.ms[4]),
                    format!("{:.2}", per_step[g]),
                    format!("{:.1}", t.iterations as f64 / steps as f64),
                ]);
            }
            if kind == Scene::Tank {
                ratios.push((n, unknowns, per_step));
            }
        }
    }
    for (n, u, t) in ratios {
        table.note(format!(
            "Tank, tall cells vs the regular grid at {n} columns: {:.1}× fewer unknowns, {:.1}× faster per step",
            u[1] as f64 / u[0].max(1) as f64,
            t[1] / t[0]
        ));
    }
    table.emit(&bench_dir(&args.out))?;
    super::tallcell_solvers::run(session, args)
}
