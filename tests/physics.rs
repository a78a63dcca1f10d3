//! Physics of whole graphs: a still tank stays still with hydrostatic pressure, projection
//! leaves divergence under tolerance, the dam break keeps particles and volume.

use flip_core::measure::{particles_in_solid, particles_outside_domain};
use flip_core::Solids;
use flip_graph::{GraphDoc, ParamValue::*};
use flip_nodes::kinds::{CarriedParticles, CELLS, SCALAR};
use flipgraph_tests::{graph, registry, set, simulation, solve};

/// The dam-break graph at `n`² with one substep per frame of `dt`, no file output.
fn small_dam_break(n: usize, dt: f32) -> GraphDoc {
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [n, n, 1];
    doc.settings.cell_size = 1.0 / n as f32;
    doc.settings.fps = 1.0 / dt;
    doc.settings.fixed_dt = dt;
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "pressure", "rel_tolerance", Number(1e-12));
    set(&mut doc, "pressure", "abs_tolerance", Number(1e-6));
    doc
}

#[test]
fn still_tank_stays_still_and_is_hydrostatic() {
    let n = 48;
    let mut doc = small_dam_break(n, 1.0 / 240.0);
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.25, 0.0]));
    set(&mut doc, "source", "size", Vector(vec![1.0, 0.5, 0.0]));
    set(&mut doc, "source", "jitter", Number(0.0));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("pressure", "pressure"), ("marker", "cells")]);
    for _ in 0..100 {
        sim.advance_frame().expect("step");
    }
    let speed = sim.particles().unwrap().max_speed();
    assert!(
        speed < 0.02,
        "still tank moves: max speed {speed} m/s after 100 steps"
    );
    let probe = |i: usize, kind| sim.probed()[i].as_ref().filter(|v| v.kind() == kind);
    let (Some(p), Some(cells)) = (
        probe(0, SCALAR).and_then(|v| v.get::<flip_core::Grid3<f32>>()),
        probe(1, CELLS).and_then(|v| v.get::<flip_core::CellGrid>()),
    ) else {
        panic!("probes")
    };
    let dx = 1.0 / n as f32;
    let i = n / 2;
    let top = (0..n)
        .rev()
        .find(|&j| cells[(i, j, 0)].is_fluid())
        .expect("fluid column");
    let mut checked = 0;
    for j in 1..top.saturating_sub(3) {
        // ghost fluid: p = 0 at the surface, the top face of the last fluid cell
        let expected = 1000.0 * 9.81 * ((top + 1) as f32 - (j as f32 + 0.5)) * dx;
        let rel = (p[(i, j, 0)] - expected).abs() / expected;
        assert!(
            rel < 0.03,
            "cell {j}: pressure {} Pa, hydrostatic {expected} Pa",
            p[(i, j, 0)]
        );
        checked += 1;
    }
    assert!(checked > 10);
}

#[test]
fn projection_leaves_divergence_under_tolerance_every_step() {
    let n = 64;
    let doc = small_dam_break(n, 1.0 / 120.0);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    for _ in 0..40 {
        let reports = sim.advance_frame().expect("step");
        for r in &reports {
            assert!(solve(&sim, r, "pressure").converged);
            let div = f64::from(solve(&sim, r, "pressure").max_divergence);
            // residual ≤ 1e-6 in solver units (m/s) → |div| ≤ 1e-6 / dx, plus f32 rounding
            assert!(
                div < 1.5e-6 * n as f64 + 5e-5,
                "max |div| {div} 1/s at frame {}",
                r.frame
            );
        }
    }
}

#[test]
fn dam_break_conserves_particles_and_volume() {
    // CFL-limited substeps (as a real run), 100 of them.
    let n = 128;
    let mut doc = small_dam_break(n, 1.0 / 24.0);
    doc.settings.fixed_dt = 0.0;
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    let first = sim.advance_frame().expect("step");
    let count = sim.particles().unwrap().len();
    let volume0 = fluid_cells(&sim, &first[0]);
    let (mut volume, mut steps) = (volume0, first.len());
    while steps < 100 {
        let r = sim.advance_frame().expect("step");
        steps += r.len();
        volume = fluid_cells(&sim, r.last().unwrap());
    }
    let p = sim.particles().unwrap();
    assert_eq!(p.len(), count, "particle count changed");
    let change = (volume - volume0).abs() / volume0;
    assert!(
        change < 0.05,
        "liquid area changed by {:.1}% ({volume0} → {volume} cells) after {steps} steps",
        100.0 * change
    );
    let spec = doc.settings.grid_spec();
    let solids = Solids::walls(spec);
    assert_eq!(particles_in_solid(&p, &solids), 0);
    assert_eq!(particles_outside_domain(&spec, &p), 0);
    assert!(
        p.pos.iter().any(|x| x.x > 0.6),
        "the column should have collapsed past x = 0.6"
    );
}

#[test]
fn same_seed_gives_identical_runs() {
    let doc = small_dam_break(32, 1.0 / 120.0);
    let registry = registry();
    let run = || {
        let (mut sim, _out) = simulation(&doc, &registry);
        for _ in 0..10 {
            sim.advance_frame().expect("step");
        }
        sim.particles().unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a.pos, b.pos, "runs with one seed must be bit-identical");
}

/// Particles in the upper half within 1.5 cells of the circle's wall, summed over frames
/// `from..to` of the Lai et al. circle scene.
fn clinging_to_top(boundary: &str, solver: &str, n: usize, from: u32, to: u32) -> usize {
    let mut doc = graph("lcp_circle_2d.ron");
    doc.settings.grid = [n, n, 1];
    doc.settings.cell_size = 1.0 / n as f32;
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "pressure", "boundary", Text(boundary.into()));
    set(&mut doc, "pressure", "solver", Text(solver.into()));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    let dx = 1.0 / n as f32;
    let mut count = 0;
    for frame in 0..to {
        sim.advance_frame().expect("frame");
        if frame >= from {
            let p = sim.particles().unwrap();
            count += p
                .pos
                .iter()
                .filter(|x| {
                    let r = ((x.x - 0.5).powi(2) + (x.y - 0.5).powi(2)).sqrt();
                    x.y > 0.6 && r > 0.45 - 1.5 * dx
                })
                .count();
        }
    }
    count
}

#[test]
fn separating_walls_let_liquid_fall_from_the_top_of_the_circle() {
    let standard = clinging_to_top("standard", "pcg/mic0-pcg", 64, 14, 30);
    let separating = clinging_to_top("separating", "lcp/fas-mg", 64, 14, 30);
    eprintln!(
        "particle-frames at the top of the circle: standard {standard}, separating {separating}"
    );
    assert!(
        standard > 200,
        "the slosh reaches the top in standard mode ({standard})"
    );
    assert!((separating as f64) < 0.5 * standard as f64,
        "separating walls: {separating} particle-frames at the top vs {standard} with standard walls");
}

/// Fluid cells of the pressure node's solve in a step.
fn fluid_cells(sim: &flip_graph::Simulation, r: &flip_graph::StepReport) -> f64 {
    let cells = solve(sim, r, "pressure").fluid_cells();
    cells.expect("a regular-grid solve") as f64
}
