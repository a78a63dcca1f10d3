//! Accurate boundaries (issue 11): variational solid faces, the ghost-fluid free surface and the
//! particle level set. Still water is still wherever its surface lies, its pressure is
//! hydrostatic, and curved containers hold water at rest.

use flip_core::measure::level_set_volume;
use flip_core::{Grid3, GridSpec};
use flip_graph::{GraphDoc, ParamValue::*};
use flip_nodes::kinds::CarriedParticles;
use flipgraph_tests::{graph, hydrostatic_error, probed_grid, registry, set, simulation};

/// One substep per frame of `dt`, `n` cells per axis, no file output, MGPCG pressure.
fn configure(doc: &mut GraphDoc, n: usize, dt: f32) {
    let nk = if doc.settings.grid[2] == 1 { 1 } else { n };
    doc.settings.grid = [n, n, nk];
    doc.settings.cell_size = 1.0 / n as f32;
    doc.settings.fps = 1.0 / dt;
    doc.settings.fixed_dt = dt;
    if doc.node_mut("export").is_some() {
        set(doc, "export", "ply", Bool(false));
        set(doc, "export", "png", Bool(false));
    }
    set(doc, "pressure", "solver", Text("multigrid/mgpcg".into()));
}

/// A tank filled to `depth` (m) above the floor's inner face with a regular lattice of
/// `per_cell` particles per cell (jitter 0), whose top row ends exactly at the surface when
/// `depth` is a multiple of the lattice spacing.
fn tank(three_d: bool, n: usize, depth: f64, per_cell: f64) -> GraphDoc {
    let mut doc = graph(if three_d {
        "bench_dam_break_3d.ron"
    } else {
        "dam_break_2d.ron"
    });
    configure(&mut doc, n, 1.0 / 240.0);
    let source = if three_d { "column" } else { "source" };
    let top = 1.0 / n as f64 + depth;
    set(&mut doc, source, "shape", Text("box".into()));
    set(
        &mut doc,
        source,
        "center",
        Vector(vec![0.5, 0.5 * top, 0.5]),
    );
    set(&mut doc, source, "size", Vector(vec![1.0, top, 1.0]));
    set(&mut doc, source, "jitter", Number(0.0));
    set(&mut doc, source, "per_cell", Number(per_cell));
    doc
}

/// Runs `steps` steps; returns (largest particle speed, relative volume change, RMS
/// hydrostatic error at the end).
fn still_run(doc: &GraphDoc, steps: u32) -> (f32, f64, f64) {
    let registry = registry();
    let (mut sim, _out) = simulation(doc, &registry);
    sim.set_probes(&[
        ("level_set", "level_set"),
        ("pressure", "pressure"),
        ("pressure", "cells"),
    ]);
    let spec = GridSpec::new(
        doc.settings.grid[0],
        doc.settings.grid[1],
        doc.settings.grid[2],
        doc.settings.cell_size,
    );
    let mut fastest = 0.0f32;
    let mut v0 = None;
    for _ in 0..steps {
        sim.advance_frame().expect("step");
        let ps = sim.particles().unwrap();
        let s = ps.max_speed();
        if std::env::var_os("FLIP_TRACE").is_some() && sim.frame() % 100 == 0 {
            let at = ps.vel.iter().position(|v| v.length() >= s).unwrap();
            eprintln!(
                "  frame {}: {s:.2e} at {:?}",
                sim.frame(),
                ps.pos[at] / doc.settings.cell_size
            );
        }
        fastest = fastest.max(s);
        let volume = level_set_volume(&spec, &probed_grid(&sim, 0), None);
        v0.get_or_insert(volume);
    }
    let phi = probed_grid(&sim, 0);
    let drift = level_set_volume(&spec, &phi, None) / v0.unwrap() - 1.0;
    let cells = sim.probed()[2]
        .as_ref()
        .and_then(|v| v.get::<flip_core::CellGrid>());
    let err = hydrostatic_error(
        &spec,
        &probed_grid(&sim, 1),
        &phi,
        cells.expect("cells probe"),
    );
    (fastest, drift, err)
}

/// Fills tanks to `base + frac` cells for each `(frac, per_cell)` and checks 1000 steps of
/// still water: speed < 1e-3 m/s, volume within 0.5 %, pressure within 0.5 % RMS of hydrostatic.
fn assert_still_tanks(three_d: bool, n: usize, base: f64, cases: &[(f64, f64)]) {
    let dx = 1.0 / n as f64;
    for &(frac, per_cell) in cases {
        let doc = tank(three_d, n, (base + frac) * dx, per_cell);
        let (speed, drift, err) = still_run(&doc, 1000);
        let d = if three_d { 3 } else { 2 };
        eprintln!(
            "{d}D {n} surface +{frac:.2} dx: max speed {speed:.2e} m/s, volume {drift:+.2e}, \
             hydrostatic RMS {err:.2e}"
        );
        let at = format!("{d}D surface +{frac:.2} dx");
        assert!(speed < 1e-3, "{at}: still water moved at {speed} m/s");
        assert!(drift.abs() < 5e-3, "{at}: volume changed by {drift}");
        assert!(err < 5e-3, "{at}: hydrostatic RMS error {err}");
    }
}

#[test]
fn still_tanks_stay_still_and_hydrostatic_wherever_the_surface_lies_2d() {
    // the lattice of 4 per cell ends on half cells, 16 per cell on quarter cells
    let cases = [(0.0, 4.0), (0.25, 16.0), (0.5, 4.0), (0.75, 16.0)];
    assert_still_tanks(false, 128, 40.0, &cases);
}

#[test]
fn still_tanks_stay_still_and_hydrostatic_wherever_the_surface_lies_3d() {
    assert_still_tanks(true, 32, 12.0, &[(0.0, 8.0), (1.0 / 3.0, 27.0), (0.5, 8.0)]);
}

#[test]
fn voxelized_pressure_is_half_a_cell_off() {
    // the method of the seeds puts p = 0 at the first air cell's centre: detectably wrong
    let mut doc = tank(true, 32, 12.0 / 32.0, 8.0);
    set(&mut doc, "pressure", "geometry", Text("voxelized".into()));
    let (_, _, err) = still_run(&doc, 5);
    eprintln!("3D 32³ voxelized hydrostatic RMS {err:.2e}");
    assert!(err > 1e-2, "voxelized hydrostatic RMS error {err}");
}

/// Still water filling the lower half of the solid circle (2D, `lcp_circle_2d.ron`) or sphere
/// (3D, `lcp_sphere_3d.ron`) up to the lattice row at the centre height.
fn round_container(three_d: bool, n: usize, boundary: &str, solver: &str) -> GraphDoc {
    let mut doc = graph(if three_d {
        "lcp_sphere_3d.ron"
    } else {
        "lcp_circle_2d.ron"
    });
    configure(&mut doc, n, 1.0 / 240.0);
    set(&mut doc, "source", "shape", Text("box".into()));
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.25, 0.5]));
    set(&mut doc, "source", "size", Vector(vec![1.0, 0.5, 1.0]));
    set(&mut doc, "source", "jitter", Number(0.0));
    set(&mut doc, "pressure", "boundary", Text(boundary.into()));
    set(&mut doc, "pressure", "solver", Text(solver.into()));
    doc
}

/// Curved containers hold still water at rest (< 1e-3 m/s over 1000 steps) in both wall modes:
/// near shapes the particle level set continues the surface from the cells away from them
/// (`levelset/contact.rs`) instead of bending it to meet the wall at a right angle.
#[test]
fn round_containers_hold_still_water_with_standard_and_separating_walls() {
    for (three_d, n) in [(false, 128), (true, 32)] {
        for (boundary, solver) in [
            ("standard", "multigrid/mgpcg"),
            ("separating", "lcp/fas-mg"),
        ] {
            let doc = round_container(three_d, n, boundary, solver);
            let (speed, drift, _) = still_run(&doc, 1000);
            let d = if three_d { 3 } else { 2 };
            eprintln!(
                "{d}D {n} {boundary} ({solver}): max speed {speed:.2e} m/s, volume {drift:+.2e}"
            );
            assert!(
                speed < 1e-3,
                "{d}D {boundary}: still water moved at {speed} m/s"
            );
            assert!(
                drift.abs() < 5e-3,
                "{d}D {boundary}: volume changed by {drift}"
            );
        }
    }
}

/// Period of the first sloshing mode of a tank (`n`², depth 0.25 m, amplitude 5 mm), measured
/// from the zero crossings of the surface height at the two end walls, against linear theory
/// `ω² = g k tanh(k h)` with `k = π / L`. Returns the relative error.
fn standing_wave_error(n: usize) -> f64 {
    let (dx, depth, amp) = (1.0 / n as f64, 0.25, 0.005);
    let width = 1.0 - 2.0 * dx;
    let k = std::f64::consts::PI / width;
    let omega = (9.81 * k * (k * depth).tanh()).sqrt();
    let period = 2.0 * std::f64::consts::PI / omega;
    let mut doc = graph("dam_break_2d.ron");
    configure(&mut doc, n, (period / (2.6 * n as f64)) as f32);
    set(&mut doc, "source", "start_frame", Number(1e6)); // the wave is seeded below instead
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_particles(sloshing_particles(n, depth, amp, k));
    sim.set_probes(&[("level_set", "level_set")]);
    let spec = GridSpec::new(n, n, 1, dx as f32);
    let steps = (2.3 * period / f64::from(doc.settings.fixed_dt)) as usize;
    let mut crossings = Vec::new();
    let mut last = None;
    for s in 0..steps {
        sim.advance_frame().expect("step");
        let phi = probed_grid(&sim, 0);
        let (l, r) = (
            column_surface(&spec, &phi, 2),
            column_surface(&spec, &phi, n - 3),
        );
        let signal = l - r; // the first mode: opposite signs at the two walls
        let t = (s + 1) as f64 * f64::from(doc.settings.fixed_dt);
        if let Some((t0, s0)) = last {
            if (s0 < 0.0) != (signal < 0.0) {
                crossings.push(t0 + (t - t0) * s0 / (s0 - signal));
            }
        }
        last = Some((t, signal));
    }
    assert!(
        crossings.len() >= 4,
        "{n}²: only {} zero crossings",
        crossings.len()
    );
    let measured =
        2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    (measured - period) / period
}

/// Surface height in column `i` (linear crossing of φ).
fn column_surface(spec: &GridSpec, phi: &Grid3<f32>, i: usize) -> f64 {
    (0..spec.nj - 1)
        .find_map(|j| {
            let (a, b) = (phi[(i, j, 0)], phi[(i, j + 1, 0)]);
            (a < 0.0 && b >= 0.0)
                .then(|| (j as f64 + 0.5 + f64::from(a / (a - b))) * f64::from(spec.dx))
        })
        .expect("a surface in the column")
}

/// A lattice of 2×2 particles per cell filling `y < dx + depth + amp·cos(k (x − dx))`, each
/// sub-column's rows stretched to end exactly at the surface.
fn sloshing_particles(n: usize, depth: f64, amp: f64, k: f64) -> flip_core::Particles {
    let dx = 1.0 / n as f64;
    let mut ps = flip_core::Particles::default();
    for col in 0..2 * (n - 2) {
        let x = dx + (col as f64 + 0.5) * 0.5 * dx;
        let top = depth + amp * (k * (x - dx)).cos();
        let rows = (top / (0.5 * dx)).round() as usize;
        let s = top / rows as f64;
        for r in 0..rows {
            let y = dx + (r as f64 + 0.5) * s;
            ps.push(
                glam::Vec3::new(x as f32, y as f32, 0.5 * dx as f32),
                glam::Vec3::ZERO,
            );
        }
    }
    ps
}

#[test]
fn a_standing_wave_has_the_period_of_linear_theory_and_converges() {
    let errors: Vec<f64> = [64, 128, 256]
        .into_iter()
        .map(standing_wave_error)
        .collect();
    eprintln!(
        "standing wave period error 64² {:+.3}%, 128² {:+.3}%, 256² {:+.3}%",
        100.0 * errors[0],
        100.0 * errors[1],
        100.0 * errors[2]
    );
    assert!(errors[1].abs() < 0.01, "128²: period error {}", errors[1]);
    // Converges: 256² beats both coarser grids. 128² against 64² is not compared: the
    // summation order alone (particles reordered by cell every 1, 4, 8 or 16 substeps, or
    // never) moves the 128² error between +0.53 % and +0.67 % around 64²'s +0.59 %.
    assert!(
        errors[2].abs() < errors[1].abs().min(errors[0].abs()),
        "{errors:?}"
    );
}
