//! `flipgraph bench tallcell`: the "Tank" scene of `graphs/tallcell_tank_2d.ron` at several
//! column counts, on the tall-cell grid and on the regular grid of the same columns: unknowns,
//! milliseconds per step by stage (the paper's VE, LA, VA, RM, PP; RM includes the level-set
//! reinitialisation) and the CSR solver's iterations.

use crate::session::Session;
use anyhow::{anyhow, Result};
use clap::Args;
use flip_core::tallcell::{advect, extrapolate, pressure, reinit, terrain, TallGrid, TallLiquid};
use flip_plugin::host::{ProblemRef, SolverInstance};
use flip_plugin::sdk::SolveStats;
use std::time::Instant;

/// Arguments of `bench tallcell`.
#[derive(Args)]
pub struct TallcellArgs {
    /// Columns, comma-separated (the height is 3/16 of them, the tank 4 m long).
    #[arg(long, value_delimiter = ',', default_values_t = [128, 256, 512])]
    pub sizes: Vec<usize>,
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
}

/// The tank: hills, water 0.45 m deep with a 2 cm standing wave.
pub(super) fn tank(columns: usize, regular: Option<usize>) -> Result<TallLiquid> {
    let (width, dx) = (4.0f32, 4.0 / columns as f32);
    let height = columns * 3 / 16;
    let t = terrain::from_fn(columns, dx, height.saturating_sub(4), |x| {
        let t = std::f32::consts::TAU * x / width;
        0.1 + 0.06 * (0.6 * (3.0 * t).sin() + 0.4 * (7.0 * t).cos())
    });
    let grid = TallGrid::new(height, dx, t, regular, 2).map_err(|e| anyhow!(e))?;
    let k = std::f32::consts::PI / width;
    Ok(TallLiquid::below(grid, |x| 0.45 + 0.02 * (k * x).cos()))
}

/// Milliseconds per stage (VE, LA, VA, RM, PP), unknowns and iterations, summed over steps.
#[derive(Default)]
pub(super) struct Totals {
    ms: [f64; 5],
    unknowns: usize,
    iterations: u64,
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

/// Runs the benchmark and prints the table.
pub fn run(session: &Session, args: &TallcellArgs) -> Result<()> {
    let (plugin, info) = session.plugins.find(&args.solver)?;
    let steps = args.steps.max(1);
    println!(
        "tall-cell Tank (2D), {steps} steps per run, solver {}",
        args.solver
    );
    println!(
        "{:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8} {:>6}",
        "columns",
        "grid",
        "unknowns",
        "VE ms",
        "LA ms",
        "VA ms",
        "RM ms",
        "PP ms",
        "total ms",
        "iter"
    );
    for &n in &args.sizes {
        for (name, regular) in [("tall", Some(args.regular_layers)), ("regular", None)] {
            let mut liquid = tank(n, regular)?;
            let mut solver = SolverInstance::create(plugin.clone(), &info.name, &[])?;
            let t = run_one(&mut liquid, (&mut solver, info.accepts_tallcell()), steps)?;
            let per = |x: f64| x / steps as f64;
            println!(
                "{:>7} {:>8} {:>8} {:>7.2} {:>7.2} {:>7.2} {:>7.2} {:>7.2} {:>8.2} {:>6.1}",
                n,
                name,
                t.unknowns / steps,
                per(t.ms[0]),
                per(t.ms[1]),
                per(t.ms[2]),
                per(t.ms[3]),
                per(t.ms[4]),
                per(t.ms.iter().sum()),
                t.iterations as f64 / steps as f64
            );
        }
    }
    super::tallcell_solvers::run(session, args)
}
