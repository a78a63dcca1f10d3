//! Still water stays still (issue 38): a tank filled by the ordinary emitter with its default
//! jitter, wired as the shipped graphs are (particle level set, ghost-fluid surface,
//! variational walls, volume correction, FLIP 0.95), settles and stays hydrostatic over 1000
//! steps of one CFL step each, wherever its surface lies within a cell.
//!
//! The volume and pressure bounds hold and are checked; the speed bounds do not hold yet and
//! their tests are ignored (run them with `--ignored`). For experiments,
//! `STILL_SET="node:param:value,…"` overrides parameters of every tank, `STILL_STEPS` sets the
//! number of steps, `STILL_CASE="2d 0.37"` picks the tank of `still_experiment`, and
//! `FLIP_TRACE=1` prints where the motion is at powers of two and every 100 steps.

use flip_core::measure::level_set_volume;
use flip_core::{CellGrid, Grid3, GridSpec};
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::CarriedParticles;
use flip_nodes::stats::VolumeCorrectionStats;
use flipgraph_tests::{
    graph, hydrostatic_error, probed_grid, registry, set, simulation, stats, surface_height,
};

/// A tank of `n` cells per axis filled to `depth_cells` cells above the floor's inner face by
/// the shipped graph's own emitter (default jitter and count), one CFL step per frame.
fn tank(three_d: bool, n: usize, depth_cells: f64) -> GraphDoc {
    let (file, source) = if three_d {
        ("bench_dam_break_3d.ron", "column")
    } else {
        ("dam_break_2d.ron", "source")
    };
    let mut doc = graph(file);
    for export in ["export", "fields"] {
        doc.nodes.retain(|node| node.id != export);
        doc.edges.retain(|e| e.to.node != export);
    }
    let dx = 1.0 / n as f64;
    doc.settings.grid = [n, n, if three_d { n } else { 1 }];
    doc.settings.cell_size = dx as f32;
    // the CFL step of water at rest: cfl·dx / √(5·dx·|g|) (the runner's rule at v = 0)
    let dt = f64::from(doc.settings.cfl) * dx / (5.0 * dx * 9.81f64).sqrt();
    doc.settings.fixed_dt = dt as f32;
    doc.settings.fps = (1.0 / dt) as f32;
    let top = (1.0 + depth_cells) * dx;
    let depth_axis = if three_d { 1.0 } else { 0.0 };
    set(
        &mut doc,
        source,
        "center",
        Vector(vec![0.5, 0.5 * top, 0.5 * depth_axis]),
    );
    set(&mut doc, source, "size", Vector(vec![1.0, top, depth_axis]));
    if let Ok(overrides) = std::env::var("STILL_SET") {
        for o in overrides.split(',').filter(|o| !o.is_empty()) {
            let [node, param, value] = o.splitn(3, ':').collect::<Vec<_>>()[..] else {
                panic!("STILL_SET entry `{o}` is not node:param:value");
            };
            let value = match value {
                "true" | "false" => Bool(value == "true"),
                v => v.parse().map_or(Text(v.into()), Number),
            };
            set(&mut doc, node, param, value);
        }
    }
    doc
}

/// What a still tank did over its run.
#[derive(Debug)]
struct Stillness {
    /// Largest particle speed seen over the run (m/s).
    max_over_run: f32,
    /// Largest and RMS particle speed at the end (m/s).
    max_end: f32,
    rms_end: f64,
    /// RMS speed of the particles in the top two cells at the end (m/s).
    rms_top: f64,
    /// Relative change of the level set's volume over the run.
    volume: f64,
    /// RMS relative deviation of the pressure from ρ·g·depth at the end.
    hydrostatic: f64,
}

/// RMS deviation (m) of the zero crossings from the mean surface height of the interior
/// columns (two cells or more from the sides), over the interior columns and over the columns
/// next to a side wall: the surface's bumps away from and at the walls.
fn surface_roughness(spec: &GridSpec, phi: &Grid3<f32>) -> (f64, f64) {
    let mean = surface_height(spec, phi);
    let (mut inner, mut wall) = ((0.0, 0.0), (0.0, 0.0));
    let last = |n: usize| n - 2;
    let ks = if spec.is_2d() { 0..1 } else { 1..spec.nk - 1 };
    for k in ks {
        for i in 1..spec.ni - 1 {
            let at_wall =
                i == 1 || i == last(spec.ni) || (!spec.is_2d() && (k == 1 || k == last(spec.nk)));
            let crossing =
                (0..spec.nj - 1).find(|&j| phi[(i, j, k)] < 0.0 && phi[(i, j + 1, k)] >= 0.0);
            let Some(j) = crossing else { continue };
            let (a, b) = (phi[(i, j, k)], phi[(i, j + 1, k)]);
            let h = (j as f64 + 0.5 + f64::from(a / (a - b))) * f64::from(spec.dx);
            let interior =
                (2..spec.ni - 2).contains(&i) && (spec.is_2d() || (2..spec.nk - 2).contains(&k));
            let sum = match (at_wall, interior) {
                (true, _) => &mut wall,
                (false, true) => &mut inner,
                _ => continue,
            };
            sum.0 += (h - mean).powi(2);
            sum.1 += 1.0;
        }
    }
    let rms = |(s, n): (f64, f64)| (s / f64::max(n, 1.0)).sqrt();
    (rms(inner), rms(wall))
}

/// Runs `steps` steps of `doc` and measures its stillness.
fn still_run(doc: &GraphDoc, steps: u32) -> Stillness {
    let registry = registry();
    let (mut sim, _out) = simulation(doc, &registry);
    sim.set_probes(&[
        ("level_set", "level_set"),
        ("pressure", "pressure"),
        ("pressure", "cells"),
    ]);
    let [ni, nj, nk] = doc.settings.grid;
    let spec = GridSpec::new(ni, nj, nk, doc.settings.cell_size);
    let trace = std::env::var_os("FLIP_TRACE").is_some();
    let (mut max_over_run, mut v0) = (0.0f32, None);
    let speeds = |sim: &Simulation, surface: f64| {
        let ps = sim.particles().expect("particles carried");
        let (mut sum, mut top, mut n_top) = (0.0f64, 0.0f64, 0.0f64);
        for (x, v) in ps.pos.iter().zip(&ps.vel) {
            let s2 = f64::from(v.length_squared());
            sum += s2;
            if f64::from(x.y) > surface - 2.0 * f64::from(spec.dx) {
                top += s2;
                n_top += 1.0;
            }
        }
        let n = ps.pos.len() as f64;
        let rms_top = (top / n_top.max(1.0)).sqrt();
        (ps.max_speed(), (sum / n).sqrt(), rms_top)
    };
    for _ in 0..steps {
        let reports = sim.advance_frame().expect("step");
        assert_eq!(reports.len(), 1, "one CFL step per frame");
        let phi = probed_grid(&sim, 0);
        v0.get_or_insert_with(|| level_set_volume(&spec, &phi, None));
        let (max, rms, top) = speeds(&sim, surface_height(&spec, &phi));
        max_over_run = max_over_run.max(max);
        let f = sim.frame();
        if trace && (f % 100 == 0 || f.is_power_of_two()) {
            let correction = stats::<VolumeCorrectionStats>(&sim, &reports[0], "volume")
                .and_then(|c| c.solve.as_ref())
                .map(|c| (c.density_error, c.max_shift_cells));
            eprintln!(
                "  step {f}: max {max:.2e}, RMS {rms:.2e}, top two cells RMS {top:.2e} m/s; \
                 volume correction (mean density error, largest shift in cells) {correction:.2?}"
            );
            trace_step(&spec, &sim.particles().expect("particles"), &phi);
        }
    }
    let phi = probed_grid(&sim, 0);
    let (max_end, rms_end, rms_top) = speeds(&sim, surface_height(&spec, &phi));
    let cells = sim.probed()[2].as_ref().and_then(|v| v.get::<CellGrid>());
    let cells = cells.expect("cells probe");
    Stillness {
        max_over_run,
        max_end,
        rms_end,
        rms_top,
        volume: level_set_volume(&spec, &phi, None) / v0.expect("a step ran") - 1.0,
        hydrostatic: hydrostatic_error(&spec, &probed_grid(&sim, 1), &phi, cells),
    }
}

/// Prints where the motion is: the fastest particle, the RMS speed by depth below the surface
/// (one-cell layers) and the surface's bumps.
fn trace_step(spec: &GridSpec, ps: &flip_core::Particles, phi: &Grid3<f32>) {
    let dx = f64::from(spec.dx);
    let h = surface_height(spec, phi);
    let fastest = (ps.pos.iter().zip(&ps.vel)).max_by(|a, b| a.1.length().total_cmp(&b.1.length()));
    let mut layers = [(0.0f64, 0.0f64); 8];
    for (x, v) in ps.pos.iter().zip(&ps.vel) {
        let below = ((h - f64::from(x.y)) / dx).floor();
        if (0.0..8.0).contains(&below) {
            layers[below as usize].0 += f64::from(v.length_squared());
            layers[below as usize].1 += 1.0;
        }
    }
    let profile: Vec<String> = layers
        .iter()
        .map(|(sum, n)| format!("{:.1e}", (sum / n.max(1.0)).sqrt()))
        .collect();
    let (inner, wall) = surface_roughness(spec, phi);
    eprintln!(
        "    fastest at {:.1?} cells, surface at {:.2} cells, bumps (RMS) {:.2e} dx inside, \
         {:.2e} dx next to the walls, RMS speed by layer below the surface {}",
        fastest.map(|(x, _)| *x / spec.dx),
        h / dx,
        inner / dx,
        wall / dx,
        profile.join(" ")
    );
}

/// The number of steps (`STILL_STEPS`, default 1000).
fn steps() -> u32 {
    std::env::var("STILL_STEPS").map_or(1000, |s| s.parse().expect("STILL_STEPS"))
}

/// Fills tanks to `base + frac` cells for each `frac`, runs [`steps`] steps and checks the
/// issue's bounds: volume within 0.5 % and pressure within 0.5 % RMS of hydrostatic, and with
/// `speeds` also max speed < 1e-2 m/s over the run and RMS < 5e-4 m/s at the end.
fn assert_settled(three_d: bool, fracs: &[f64], speeds: bool) {
    let (n, base) = if three_d { (32, 12.0) } else { (128, 40.0) };
    let mut failures = Vec::new();
    for &frac in fracs {
        let s = still_run(&tank(three_d, n, base + frac), steps());
        let at = format!("{}D {n} surface +{frac:.2} dx", if three_d { 3 } else { 2 });
        eprintln!(
            "{at}: max {:.2e} over the run, {:.2e} at the end, RMS {:.2e} (top two cells \
             {:.2e}) m/s, volume {:+.2e}, hydrostatic RMS {:.2e}",
            s.max_over_run, s.max_end, s.rms_end, s.rms_top, s.volume, s.hydrostatic
        );
        if speeds && !(s.max_over_run < 1e-2 && s.rms_end < 5e-4) {
            failures.push(format!("{at}: still water moved: {s:?}"));
        }
        if !(s.volume.abs() < 5e-3 && s.hydrostatic < 5e-3) {
            failures.push(format!("{at}: volume or pressure off: {s:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Surfaces on a cell face and at fractions of a cell above one.
const FRACTIONS_2D: [f64; 3] = [0.0, 0.37, 0.9];
const FRACTIONS_3D: [f64; 2] = [0.0, 0.37];

#[test]
fn jittered_tank_keeps_its_volume_and_hydrostatic_pressure_2d() {
    assert_settled(false, &FRACTIONS_2D, false);
}

#[test]
fn jittered_tank_keeps_its_volume_and_hydrostatic_pressure_3d() {
    assert_settled(true, &FRACTIONS_3D, false);
}

// The speed bounds of issue 38 item 3 are not met yet (max 3-11e-2 m/s over the run, RMS up
// to 1.6e-3 m/s at the end): see the guide's note on jittered seeding in boundaries.md.
#[test]
#[ignore = "issue 38 item 3 open: a jittered tank still moves (cause measured, no fix yet)"]
fn jittered_tank_stays_still_2d() {
    assert_settled(false, &FRACTIONS_2D, true);
}

#[test]
#[ignore = "issue 38 item 3 open: a jittered tank still moves (cause measured, no fix yet)"]
fn jittered_tank_stays_still_3d() {
    assert_settled(true, &FRACTIONS_3D, true);
}

/// One tank for experiments: `STILL_CASE="2d 0.37"` (dimension, fraction of a cell).
#[test]
#[ignore = "experiment: run with --ignored and STILL_CASE"]
fn still_experiment() {
    let case = std::env::var("STILL_CASE").unwrap_or_else(|_| "2d 0.37".into());
    let [dim, frac] = case.split(' ').collect::<Vec<_>>()[..] else {
        panic!("STILL_CASE is `2d|3d fraction`");
    };
    let three_d = dim == "3d";
    let (n, base) = if three_d { (32, 12.0) } else { (128, 40.0) };
    let frac: f64 = frac.parse().expect("fraction");
    let s = still_run(&tank(three_d, n, base + frac), steps());
    eprintln!("{case}: {s:?}");
}
