//! The second table of `bench tallcell` (Chentanez & Müller 2011, "multigrid vs IC(0)-PCG"):
//! one step's pressure problem of the Tank at each size, solved from a zero guess by the
//! Krylov baseline (BiCGSTAB: the tall-cell operator is unsymmetric) and by the tall-cell
//! multigrid's full cycles, at relative tolerances 1e-4 and 1e-8: iterations and milliseconds.

use super::bench_dir;
use super::table::Table;
use super::tallcell::{prepare, run_one, solve, step_dt, TallcellArgs};
use super::tallcell_scenes::{scene, Scene};
use crate::session::Session;
use anyhow::Result;
use flip_core::tallcell::pressure::TallPressure;
use std::time::Instant;

/// Tolerances of the paper's table.
const TOLERANCES: [f64; 2] = [1e-4, 1e-8];

/// Best of a few runs: (iterations, ms) of `name` on `problem` at `rel`.
fn time_solve(
    session: &Session,
    name: &str,
    problem: &TallPressure,
    rel: f64,
) -> Result<(u32, f64)> {
    let (plugin, info) = session.plugins.find(name)?;
    let params = [
        ("rel_tolerance".to_string(), rel),
        ("abs_tolerance".to_string(), 0.0),
        ("max_iterations".to_string(), 20_000.0),
    ];
    let mut solver = flip_host::SolverInstance::create(plugin.clone(), &info.name, &params)?;
    let mut best = (0, f64::INFINITY);
    for _ in 0..3 {
        let mut p = problem.clone();
        p.csr.pressure.fill(0.0);
        let start = Instant::now();
        let stats = solve(&mut solver, info.accepts_tallcell(), &mut p)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if stats.converged == 0 {
            anyhow::bail!(
                "{name} did not reach {rel:e} ({} iterations)",
                stats.iterations
            );
        }
        if ms < best.1 {
            best = (stats.iterations, ms);
        }
    }
    Ok(best)
}

/// Prints the table: for each size, the problem after `args.steps` steps.
pub fn run(session: &Session, args: &TallcellArgs) -> Result<()> {
    let (plugin, info) = session.plugins.find(&args.solver)?;
    let mut table = Table::new(
        format!("tallcell_solvers_{}d", args.dim),
        format!(
            "bench tallcell: {} vs {}, one step's pressure problem of the {}D Tank after {} steps, \
             zero initial guess, best of 3 (iterations, ms)",
            args.multigrid, args.krylov, args.dim, args.steps
        ),
        &[
            "columns",
            "unknowns",
            "Krylov 1e-4",
            "Krylov 1e-8",
            "MG 1e-4",
            "MG 1e-8",
            "speed-up",
        ],
    );
    for &n in &args.solver_sizes() {
        let mut liquid = scene(args.dim, Scene::Tank, n, Some(args.regular_layers))?;
        let mut solver = flip_host::SolverInstance::create(plugin.clone(), &info.name, &[])?;
        run_one(
            &mut liquid,
            (&mut solver, info.accepts_tallcell()),
            args.steps,
        )?;
        let dt = step_dt(&liquid);
        let problem = prepare(&mut liquid, dt, |_, _| {});
        let mut cells = vec![n.to_string(), problem.csr.rhs.len().to_string()];
        let mut ms_at_tightest = [0.0; 2];
        for (k, name) in [&args.krylov, &args.multigrid].into_iter().enumerate() {
            for rel in TOLERANCES {
                let (it, ms) = time_solve(session, name, &problem, rel)?;
                cells.push(format!("{it} {ms:.2}"));
                ms_at_tightest[k] = ms;
            }
        }
        cells.push(format!("{:.1}×", ms_at_tightest[0] / ms_at_tightest[1]));
        table.row(cells);
    }
    table.note("speed-up = Krylov / MG time at 1e-8");
    println!();
    table.emit(&bench_dir(&args.out))?;
    Ok(())
}
