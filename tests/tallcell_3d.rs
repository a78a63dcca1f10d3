//! The tall-cell water of Chentanez & Müller 2011 in 3D (the paper's case: columns on an x-z
//! height map): a lake at rest over uneven terrain stays at rest, the CSR solvers and the
//! tall-cell multigrid agree with the direct solve on 3D tall-cell problems, and the Flood
//! graph validates and runs.

use flip_core::tallcell::{advect, pressure, terrain, TallGrid, TallLiquid};
use flip_graph::{compile, ParamValue};
use flip_host::ProblemRef;
use flip_nodes::stats::LiquidVolume;
use flipgraph_tests::{graph, registry, set, simulation, solve as solve_of, stats};

#[path = "tallcell_support.rs"]
mod support;
use support::{max_diff, solver, step, Route, G, RHO};

/// A lake over hills on `n × n` columns, 0.75 m deep on average (`regular: None` = the
/// regular grid).
fn lake(n: usize, regular: Option<usize>) -> TallLiquid {
    let (height, dx) = (n * 5 / 4, 1.0 / n as f32);
    let t = terrain::from_map([n, n], dx, height, |x, z| {
        0.08 + 0.05 * (7.0 * x).sin() * (5.0 * z).cos() + 0.03 * (13.0 * z).cos()
    });
    let grid = TallGrid::new(height, dx, t, regular, 2).expect("grid");
    TallLiquid::below(grid, |_| 0.85 + 0.3 * dx)
}

#[test]
fn a_3d_lake_over_uneven_terrain_stays_at_rest() {
    let mut liquid = lake(24, Some(8));
    let tallest = liquid.grid.tall.iter().copied().max().unwrap_or(0);
    assert!(tallest > 10, "tall cells {tallest}");
    let tight = [("rel_tolerance".to_string(), 1e-10)];
    let mut mg = solver("multigrid/tall-mg", &tight);
    let v0 = liquid.volume();
    let (mut speed, mut div) = (0.0f32, 0.0f32);
    for _ in 0..500 {
        div = div.max(step(&mut liquid, &mut mg, 1.0 / 120.0, Route::TallCell));
        speed = speed.max(liquid.max_speed());
    }
    let drift = (liquid.volume() - v0) / v0;
    println!(
        "3D lake at rest, 24×24 columns (tallest tall cell {tallest}), 500 steps: max speed \
         {speed:.3e} m/s, volume drift {drift:+.3e}, max |div| {div:.3e} 1/s"
    );
    assert!(speed < 1e-3, "max speed {speed}");
    assert!(drift.abs() < 0.01, "volume drift {drift}");
}

/// One step's problem of a 3D lake whose velocity is stirred, after gravity.
fn stirred_problem(regular: Option<usize>) -> pressure::TallPressure {
    let mut liquid = lake(16, regular);
    for (n, v) in liquid.v.iter_mut().enumerate() {
        *v = 0.05 * ((n as f32) * 0.37).sin();
    }
    for (n, w) in liquid.w.iter_mut().enumerate() {
        *w = 0.04 * ((n as f32) * 0.23).cos();
    }
    advect::enforce_walls(&mut liquid);
    advect::add_gravity(&mut liquid, G, 0.01);
    pressure::assemble(&liquid, RHO, 0.01)
}

/// Solves `problem` with `name`, as the tall-cell kind when `tallcell`.
fn solve(
    name: &str,
    problem: &pressure::TallPressure,
    params: &[(String, f64)],
    tallcell: bool,
) -> Vec<f64> {
    let mut s = solver(name, params);
    let mut p = problem.clone();
    let solved = if tallcell {
        s.solve_any(ProblemRef::TallCell(&mut p.tallcell()))
    } else {
        s.solve_csr(&mut p.csr.view())
    };
    solved.unwrap_or_else(|e| panic!("{name}: {e}"));
    p.csr.pressure
}

#[test]
fn solvers_agree_with_the_direct_solve_on_3d_tall_cell_problems() {
    let tight = |extra: Option<(&str, f64)>| {
        let mut p = vec![("rel_tolerance".to_string(), 1e-10)];
        p.extend(extra.map(|(n, v)| (n.to_string(), v)));
        p
    };
    for regular in [Some(6), None] {
        let problem = stirred_problem(regular);
        assert_eq!(problem.geometry.dimension, 3);
        assert_eq!(problem.csr.symmetric, regular.is_none());
        let exact = solve("direct/cholesky", &problem, &[], false);
        let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let krylov = if regular.is_some() {
            "pcg/bicgstab"
        } else {
            "pcg/ic0-pcg"
        };
        let runs = [
            (krylov, tight(None), false),
            ("multigrid/tall-mg", tight(Some(("cycle", 0.0))), true),
            ("multigrid/tall-mg", tight(Some(("cycle", 1.0))), true),
        ];
        for (name, params, tallcell) in runs {
            let err = max_diff(&solve(name, &problem, &params, tallcell), &exact);
            println!(
                "3D {regular:?}, {} unknowns: {name} {params:?} vs direct: {err:.2e} (max |p| {scale:.2e})",
                exact.len()
            );
            assert!(err < 1e-7 * scale, "{name}: {err}");
        }
    }
}

#[test]
fn the_flood_graph_validates_and_runs_a_few_steps() {
    let registry = registry();
    let mut doc = graph("tallcell_flood_3d.ron");
    compile(&doc, &registry).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(doc.settings.grid, [128, 32, 128]);
    // the same 4 m × 4 m × 1 m scene on 32×8×32 cells
    doc.settings.grid = [32, 8, 32];
    doc.settings.cell_size = 0.125;
    doc.settings.frames = 3;
    set(
        &mut doc,
        "source",
        "regular_layers",
        ParamValue::Number(4.0),
    );
    let (mut sim, out) = simulation(&doc, &registry);
    let (mut steps, mut volumes) = (0, Vec::new());
    for _ in 0..3 {
        let reports = sim.advance_frame().expect("a frame");
        for r in &reports {
            assert!(solve_of(&sim, r, "pressure").converged);
            let div = solve_of(&sim, r, "pressure").max_divergence;
            assert!(div < 1e-2, "divergence left {div}");
        }
        steps += reports.len();
        let last = reports.last().expect("a step");
        volumes.push(
            stats::<LiquidVolume>(&sim, last, "export")
                .expect("volume")
                .0,
        );
    }
    println!("Flood at 32×8×32 cells, 3 frames, {steps} steps: volumes {volumes:?} m³");
    assert!(steps > 3, "the released water speeds up: {steps} steps");
    // the block: 1.2 m × 1.2 m up to 0.75 m over terrain about 0.4 m high
    assert!((0.2..0.8).contains(&volumes[0]), "volume {volumes:?} m³");
    let drift = volumes[2] / volumes[0] - 1.0;
    assert!(drift.abs() < 0.05, "volume drift {drift}");
    let frame = out.path().join("frames/tallcell_0001.png");
    let png = std::fs::read(&frame).expect("the map preview");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().expect("IHDR"));
    assert_eq!(
        (size(16), size(20)),
        (128, 128),
        "4 pixels per column, top-down"
    );
}
