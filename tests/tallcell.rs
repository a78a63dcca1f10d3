//! The tall-cell water of Chentanez & Müller 2011 (2D), solved through the plugin host's CSR
//! problem kind: a lake at rest over uneven terrain stays at rest, a standing wave in a long
//! tank has the period of linear theory, the CSR solvers and the tall-cell multigrid agree
//! with the direct solve, and problem kinds must match the algorithm's capabilities.

use flip_core::tallcell::{advect, pressure, terrain, TallGrid, TallLiquid};
use flip_graph::ParamValue::Text;
use flip_graph::Simulation;
use flip_host::{ProblemRef, SolverInstance};
use flipgraph_tests::{
    graph, graphs_dir, plugins, registry, set as set_param, simulation, solve as solve_of,
};
use std::path::Path;

#[path = "tallcell_support.rs"]
mod support;
use support::{max_diff, solver, step, Route, G, RHO};

fn lake(regular: Option<usize>) -> TallLiquid {
    let (cols, height, dx) = (64, 48, 1.0 / 64.0);
    let t = terrain::from_fn(cols, dx, height, |x| {
        0.08 + 0.05 * (7.0 * x).sin() + 0.03 * (19.0 * x).cos()
    });
    let grid = TallGrid::new(height, dx, t, regular, 2).expect("grid");
    TallLiquid::below(grid, |_| 0.5 + 0.3 * dx)
}

#[test]
fn a_lake_over_uneven_terrain_stays_at_rest() {
    let mut liquid = lake(Some(8));
    assert!(
        liquid.grid.tall.iter().any(|&h| h > 10),
        "{:?}",
        liquid.grid.tall
    );
    let mut direct = solver("direct/cholesky", &[]);
    let v0 = liquid.volume();
    let (mut speed, mut div) = (0.0f32, 0.0f32);
    for _ in 0..500 {
        div = div.max(step(&mut liquid, &mut direct, 1.0 / 120.0, Route::Csr));
        speed = speed.max(liquid.max_speed());
    }
    let drift = (liquid.volume() - v0) / v0;
    println!("lake at rest, 500 steps: max speed {speed:.3e} m/s, volume drift {drift:+.3e}, max |div| {div:.3e} 1/s");
    assert!(speed < 1e-3, "max speed {speed}");
    assert!(drift.abs() < 0.01, "volume drift {drift}");
}

const LENGTH: f32 = 4.0;
const DEPTH: f32 = 0.4;
const AMP: f32 = 0.004;

/// A standing wave (first sloshing mode) in a tank `LENGTH` m long and `DEPTH` m deep, run
/// for `periods` periods of linear theory: the surface elevation at probes x = 0, L/4, L/2
/// after every step, the step and the linear period.
fn standing_wave(regular: Option<usize>, dx: f32, periods: f32) -> (Vec<[f32; 3]>, f32, f32) {
    let k = std::f32::consts::PI / LENGTH;
    let cols = (LENGTH / dx).round() as usize;
    let height = ((DEPTH + 0.2) / dx).round() as usize;
    let grid = TallGrid::new(
        height,
        dx,
        terrain::from_fn(cols, dx, 0, |_| 0.0),
        regular,
        2,
    )
    .expect("grid");
    let mut liquid = TallLiquid::below(grid, |x| DEPTH + AMP * (k * x).cos());
    let omega = (-G * k * (k * DEPTH).tanh()).sqrt();
    let period = 2.0 * std::f32::consts::PI / omega;
    let dt = period / 160.0;
    let mut direct = solver("direct/cholesky", &[]);
    let probes = [0, cols / 4, cols / 2];
    let steps = (periods * 160.0).round() as usize;
    let series = (0..steps)
        .map(|_| {
            step(&mut liquid, &mut direct, dt, Route::Csr);
            probes.map(|c| liquid.surface(c) - DEPTH)
        })
        .collect();
    (series, dt, period)
}

/// Mean period from the upward zero crossings of `eta` (sampled every `dt`).
fn measured_period(eta: &[f32], dt: f32) -> f32 {
    let ups: Vec<f32> = eta
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(n, w)| (n as f32 + 1.0 + w[1] / (w[0] - w[1])) * dt)
        .collect();
    assert!(ups.len() >= 2, "{} crossings", ups.len());
    (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f32
}

#[test]
fn a_standing_wave_in_a_long_tank_has_the_linear_theory_speed() {
    let (tall, dt, expected) = standing_wave(Some(8), 1.0 / 32.0, 2.6);
    let left: Vec<f32> = tall.iter().map(|p| p[0]).collect();
    let period = measured_period(&left, dt);
    let k = std::f32::consts::PI / LENGTH;
    let (c, c_lin) = (2.0 * LENGTH / period, 2.0 * LENGTH / expected);
    let err = c / c_lin - 1.0;
    println!(
        "standing wave, L = {LENGTH} m, kh = {:.3}: period {period:.4} s (linear {expected:.4} s), \
         speed {c:.4} m/s vs {c_lin:.4} m/s ({:+.2} %)",
        k * DEPTH,
        100.0 * err
    );
    assert!(err.abs() < 0.03, "wave speed off by {:.2} %", 100.0 * err);
    let (regular, _, _) = standing_wave(None, 1.0 / 32.0, 2.6);
    let worst = tall
        .iter()
        .zip(&regular)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0f32, f32::max);
    println!(
        "tall cells vs regular grid at the probes: largest difference {:.2} % of the wave height",
        100.0 * worst / (2.0 * AMP)
    );
    assert!(worst < 0.05 * 2.0 * AMP, "probes differ by {worst} m");
}

/// One step's problem of a lake whose velocity is stirred, after gravity.
fn stirred_problem(regular: Option<usize>) -> pressure::TallPressure {
    let mut liquid = lake(regular);
    for (c, v) in liquid.v.iter_mut().enumerate() {
        *v = 0.05 * ((c as f32) * 0.37).sin();
    }
    advect::enforce_walls(&mut liquid);
    advect::add_gravity(&mut liquid, G, 0.01);
    pressure::assemble(&liquid, RHO, 0.01)
}

fn solve(name: &str, problem: &pressure::TallPressure, params: &[(String, f64)]) -> Vec<f64> {
    let set = plugins();
    let (plugin, info) = set.find(name).expect("solver plugin");
    let mut s = SolverInstance::create(plugin, &info.name, params).expect("solver instance");
    let mut csr = problem.csr.clone();
    s.solve_csr(&mut csr.view())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    csr.pressure
}

#[test]
fn csr_solvers_agree_with_the_direct_solve_on_tall_cell_problems() {
    let tight = [("rel_tolerance".to_string(), 1e-10)];
    let regular = stirred_problem(None);
    assert!(
        regular.csr.symmetric,
        "the regular grid's matrix is the MAC matrix"
    );
    let exact = solve("direct/cholesky", &regular, &[]);
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for name in ["pcg/ic0-pcg", "pcg/cg"] {
        let err = max_diff(&solve(name, &regular, &tight), &exact);
        println!(
            "regular grid, {} unknowns: {name} vs direct: {err:.2e} (max |p| {scale:.2e})",
            exact.len()
        );
        assert!(err < 1e-6 * scale, "{name}: {err}");
    }
    let tall = stirred_problem(Some(8));
    assert!(
        !tall.csr.symmetric,
        "tall cells make the point-wise operator unsymmetric"
    );
    assert!(4 * tall.csr.rhs.len() < 2 * regular.csr.rhs.len());
    let exact = solve("direct/cholesky", &tall, &[]);
    let err = max_diff(&solve("pcg/bicgstab", &tall, &tight), &exact);
    println!(
        "tall cells, {} unknowns: pcg/bicgstab vs direct (LU): {err:.2e}",
        exact.len()
    );
    assert!(err < 1e-6 * scale, "bicgstab: {err}");
    let set = plugins();
    let (plugin, info) = set.find("pcg/cg").expect("cg");
    let mut cg = SolverInstance::create(plugin, &info.name, &[]).expect("cg");
    let err = cg
        .solve_csr(&mut tall.csr.clone().view())
        .expect_err("CG refuses")
        .to_string();
    assert!(err.contains("symmetric"), "{err}");
}

#[test]
fn the_tank_graph_runs_and_its_pressure_node_refuses_structured_only_solvers() {
    use flip_nodes::stats::SolvedGrid;
    use flipgraph_tests::{graph, graphs_dir, registry, set, simulation, solve};
    let registry = registry();
    let mut doc = graph("tallcell_tank_2d.ron");
    doc.settings.frames = 2;
    let (mut sim, _out) = simulation(&doc, &registry);
    for _ in 0..2 {
        for r in sim.advance_frame().expect("frame") {
            let solved = solve(&sim, &r, "pressure");
            let div = solved.max_divergence;
            assert!(div < 1e-3, "divergence left {div}");
            let SolvedGrid::TallCell(tall) = &solved.grid else {
                panic!("a tall-cell solve")
            };
            assert!(!tall.symmetric);
        }
    }
    set(
        &mut doc,
        "pressure",
        "solver",
        flip_graph::ParamValue::Text("multigrid/mgpcg".into()),
    );
    let out = tempfile::tempdir().expect("temp dir");
    let errors = flip_graph::Simulation::new(&doc, &registry, out.path(), &graphs_dir())
        .err()
        .expect("refused");
    let text: String = errors.iter().map(ToString::to_string).collect();
    assert!(text.contains("pressure") && text.contains("CSR"), "{text}");
}

#[test]
fn the_tank_keeps_its_volume_while_tall_cells_are_refitted() {
    let (cols, height, dx) = (128, 24, 1.0 / 32.0);
    let width = cols as f32 * dx;
    let t = terrain::from_fn(cols, dx, height - 4, |x| {
        let t = std::f32::consts::TAU * x / width;
        0.1 + 0.06 * (0.6 * (3.0 * t).sin() + 0.4 * (7.0 * t).cos())
    });
    let grid = TallGrid::new(height, dx, t, Some(8), 2).expect("grid");
    let k = std::f32::consts::PI / width;
    let mut liquid = TallLiquid::below(grid, |x| 0.45 + 0.03 * (k * x).cos());
    let mut direct = solver("direct/cholesky", &[]);
    let v0 = liquid.volume();
    let mut refitted = 0;
    for _ in 0..240 {
        let before = liquid.grid.tall.clone();
        step(&mut liquid, &mut direct, 1.0 / 60.0, Route::Csr);
        refitted += before
            .iter()
            .zip(&liquid.grid.tall)
            .filter(|(a, b)| a != b)
            .count();
    }
    let drift = (liquid.volume() - v0) / v0;
    println!(
        "tank over hills, 240 steps: {refitted} column re-fits, volume drift {drift:+.3e}, max speed {:.3} m/s",
        liquid.max_speed()
    );
    assert!(
        refitted > 50,
        "the scene must exercise the re-fit: {refitted}"
    );
    assert!(drift.abs() < 0.01, "volume drift {drift}");
}

/// Solves `problem` as the tall-cell kind (system and grid) with `name`.
fn solve_tallcell(
    name: &str,
    problem: &pressure::TallPressure,
    params: &[(String, f64)],
) -> Vec<f64> {
    let set = plugins();
    let (plugin, info) = set.find(name).expect("solver plugin");
    let mut s = SolverInstance::create(plugin, &info.name, params).expect("solver instance");
    let mut p = problem.clone();
    s.solve_any(ProblemRef::TallCell(&mut p.tallcell()))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    p.csr.pressure
}

#[test]
fn the_tall_cell_multigrid_agrees_with_the_direct_solve() {
    let tight = [("rel_tolerance".to_string(), 1e-10)];
    for regular in [Some(8), None] {
        let problem = stirred_problem(regular);
        let exact = solve("direct/cholesky", &problem, &[]);
        let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for cycle in [0.0, 1.0] {
            let params = [tight[0].clone(), ("cycle".to_string(), cycle)];
            let err = max_diff(
                &solve_tallcell("multigrid/tall-mg", &problem, &params),
                &exact,
            );
            println!(
                "{regular:?}, {} unknowns: multigrid/tall-mg (cycle {cycle}) vs direct: {err:.2e}",
                exact.len()
            );
            assert!(err < 1e-7 * scale, "tall-mg: {err}");
        }
    }
}

#[test]
fn problem_kinds_and_algorithms_must_match() {
    let set = plugins();
    let problem = stirred_problem(Some(8));
    let (plugin, info) = set.find("multigrid/tall-mg").expect("tall-mg");
    let mut mg = SolverInstance::create(plugin, &info.name, &[]).expect("tall-mg");
    let err = mg
        .solve_csr(&mut problem.csr.clone().view())
        .expect_err("a CSR problem has no grid")
        .to_string();
    assert!(err.contains("does not accept CSR"), "{err}");
    let (plugin, info) = set.find("pcg/bicgstab").expect("bicgstab");
    let mut krylov = SolverInstance::create(plugin, &info.name, &[]).expect("bicgstab");
    let mut p = problem.clone();
    let err = krylov
        .solve_any(ProblemRef::TallCell(&mut p.tallcell()))
        .expect_err("bicgstab lists no tall-cell kind")
        .to_string();
    assert!(err.contains("does not accept tall-cell"), "{err}");
    let mut doc = graph("tallcell_tank_2d.ron");
    set_param(
        &mut doc,
        "pressure",
        "solver",
        Text("multigrid/mg-vcycle".into()),
    );
    let errors = Simulation::new(&doc, &registry(), Path::new("/nonexistent"), &graphs_dir())
        .err()
        .expect("a structured-only solver is refused");
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|e| e.contains("pressure")
            && e.contains("takes neither general sparse (CSR) nor tall-cell")
            && e.contains("multigrid/tall-mg")),
        "{text:#?}"
    );
}

#[test]
fn the_tank_graph_runs_with_the_tall_cell_multigrid() {
    let mut doc = graph("tallcell_tank_2d.ron");
    set_param(
        &mut doc,
        "pressure",
        "solver",
        Text("multigrid/tall-mg".into()),
    );
    let (mut sim, _out) = simulation(&doc, &registry());
    let reports = sim.advance_frame().expect("a frame");
    for r in &reports {
        let solved = solve_of(&sim, r, "pressure");
        let cycles = solved.iterations;
        assert!(solved.converged);
        assert!(cycles <= 20, "{cycles} cycles");
    }
}
