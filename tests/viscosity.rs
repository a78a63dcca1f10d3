//! Physics of the viscosity node in whole graphs, set up as the shipped viscous dam break is
//! wired (emitter with its default jitter, particle level set, variational walls): gravity-
//! driven flow between two no-slip walls, a spinning disc that keeps its angular momentum, and
//! a very viscous block that stays stable at CFL-sized steps.

use flip_core::Particles;
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::{CarriedParticles, VelocityField, VELOCITY};
use flipgraph_tests::{graph, registry, set, simulation, solve};
use glam::Vec3;

/// The shipped viscous dam break on `grid` cells of `dx`, viscosity `nu`, no file output,
/// tight solver tolerances.
fn viscous(grid: [usize; 3], dx: f32, nu: f64) -> GraphDoc {
    let mut doc = graph("viscous_dam_break_2d.ron");
    doc.settings.grid = grid;
    doc.settings.cell_size = dx;
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "fields", "every", Number(1e5));
    set(&mut doc, "viscosity", "viscosity", Number(nu));
    set(&mut doc, "viscosity", "rel_tolerance", Number(1e-9));
    set(&mut doc, "pressure", "rel_tolerance", Number(1e-9));
    doc
}

/// The grid velocity leaving the step (after the pressure solve).
fn probed_velocity(sim: &Simulation) -> VelocityField {
    sim.probed()[0]
        .as_ref()
        .filter(|v| v.kind() == VELOCITY)
        .and_then(|v| v.get::<VelocityField>())
        .expect("velocity probe")
        .clone()
}

/// A column of liquid `n` cells wide falling for `time` s between the no-slip walls of a
/// channel 0.1 m wide: the mean vertical velocity across the channel, over the rows within
/// half a width of the column's middle, and the parabola `−g/2ν (x − a)(b − x)` there.
fn channel_profile(n: usize, nu: f64, time: f32) -> (Vec<f64>, Vec<f64>) {
    let width = 0.1f32;
    let dx = width / n as f32;
    let height = 4 * n;
    let mut doc = viscous([n + 2, height, 1], dx, nu);
    doc.settings.fps = 50.0;
    // the walls are one cell thick: the channel is [dx, (n + 1)·dx]
    let h = height as f32 * dx;
    let center = vec![f64::from(dx + 0.5 * width), f64::from(0.55 * h), 0.0];
    set(&mut doc, "source", "center", Vector(center));
    let size = vec![f64::from(width), f64::from(0.7 * h), 0.0];
    set(&mut doc, "source", "size", Vector(size));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("pressure", "velocity")]);
    for _ in 0..(time * doc.settings.fps).round() as u32 {
        for r in sim.advance_frame().expect("step") {
            assert!(solve(&sim, &r, "viscosity").converged, "viscosity solve");
        }
    }
    let particles = sim.particles().expect("particles");
    let mid = particles.pos.iter().map(|p| p.y).sum::<f32>() / particles.pos.len() as f32;
    let field = probed_velocity(&sim);
    let rows: Vec<usize> = (0..height)
        .filter(|&j| ((j as f32 + 0.5) * dx - mid).abs() < 0.5 * width)
        .collect();
    let (a, b) = (f64::from(dx), f64::from(dx) * (n + 1) as f64);
    let mut measured = Vec::new();
    let mut exact = Vec::new();
    for i in 1..=n {
        let sum: f64 = rows
            .iter()
            .map(|&j| f64::from(field.vel.v[(i, j, 0)]))
            .sum();
        measured.push(sum / rows.len() as f64);
        let x = (i as f64 + 0.5) * f64::from(dx);
        exact.push(-9.81 / (2.0 * nu) * (x - a) * (b - x));
    }
    (measured, exact)
}

#[test]
fn gravity_driven_flow_between_no_slip_walls_has_the_poiseuille_profile() {
    // ν = 0.05 m²/s, 0.1 m wide: the steady peak g W²/8ν = 0.245 m/s is reached within 0.1 %
    // after 7 W²/(π² ν) = 0.14 s.
    let (measured, exact) = channel_profile(64, 0.05, 0.16);
    let peak = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let rms = |scale: f64| {
        let sum: f64 = measured
            .iter()
            .zip(&exact)
            .map(|(m, e)| (m - scale * e).powi(2))
            .sum();
        (sum / exact.len() as f64).sqrt() / (scale * peak)
    };
    // the shape: the measured profile against the best multiple of the parabola
    let scale = measured.iter().zip(&exact).map(|(m, e)| m * e).sum::<f64>()
        / exact.iter().map(|e| e * e).sum::<f64>();
    eprintln!(
        "channel at 64 cells: RMS {:.2} % of the peak against the parabola, {:.2} % against \
         its best multiple ({scale:.4} of it)",
        100.0 * rms(1.0),
        100.0 * rms(scale)
    );
    assert!(rms(scale) < 0.01, "shape: RMS {:.2} %", 100.0 * rms(scale));
    // The column's middle runs a few per cent fast in the FLIP graph (the grid alone reaches
    // the parabola: `viscosity_solvers::the_discrete_steady_channel_flow_is_the_parabola`).
    assert!(
        (scale - 1.0).abs() < 0.1,
        "magnitude {scale:.4} of the parabola"
    );
}

/// Angular momentum about the centroid (unit mass per particle) and the centroid.
fn angular_momentum(pos: &[Vec3], vel: &[Vec3]) -> (f64, Vec3) {
    let c = pos.iter().copied().sum::<Vec3>() / pos.len() as f32;
    let l = pos
        .iter()
        .zip(vel)
        .map(|(p, v)| f64::from((*p - c).x * v.y - (*p - c).y * v.x))
        .sum();
    (l, c)
}

/// A disc of radius 0.25 m in a 1 m box at 64², no gravity, spun at 2 rad/s after the
/// emitting frame: the share of its angular momentum left after 1 s.
fn spinning_disc(nu: f64) -> f64 {
    let n = 64;
    let mut doc = viscous([n, n, 1], 1.0 / n as f32, nu);
    doc.settings.fps = 24.0;
    set(&mut doc, "gravity", "gravity", Vector(vec![0.0, 0.0, 0.0]));
    set(&mut doc, "source", "shape", Text("sphere".into()));
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.5, 0.0]));
    set(&mut doc, "source", "radius", Number(0.25));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.advance_frame().expect("the emitting frame");
    let mut p: Particles = (*sim.particles().expect("emitted")).clone();
    let (_, c) = angular_momentum(&p.pos, &p.vel);
    for (x, v) in p.pos.iter().zip(p.vel.iter_mut()) {
        let r = *x - c;
        *v = 2.0 * Vec3::new(-r.y, r.x, 0.0);
    }
    let (l0, _) = angular_momentum(&p.pos, &p.vel);
    sim.set_particles(p);
    let mut time = 0.0f32;
    while time < 1.0 {
        for r in sim.advance_frame().expect("step") {
            time += r.dt;
        }
    }
    let p = sim.particles().expect("particles");
    angular_momentum(&p.pos, &p.vel).0 / l0
}

#[test]
fn a_very_viscous_spinning_disc_keeps_its_angular_momentum() {
    // ν = 1 m²/s damps every motion but the rigid rotation within a few steps; what the
    // viscous step itself costs is measured against the same disc without viscosity (the
    // transfers, advection and surface of the FLIP step lose some angular momentum anyway).
    let inviscid = spinning_disc(0.0);
    let viscous = spinning_disc(1.0);
    eprintln!(
        "spinning disc after 1 s: ν = 1 keeps {viscous:.4} of L, ν = 0 keeps {inviscid:.4}, \
         ratio {:.4}",
        viscous / inviscid
    );
    assert!(
        viscous / inviscid >= 0.99,
        "the viscous step took {:.2} % of the angular momentum",
        100.0 * (1.0 - viscous / inviscid)
    );
    assert!(viscous <= 1.01, "angular momentum grew to {viscous:.4}");
}

#[test]
fn a_high_viscosity_is_stable_at_cfl_sized_steps() {
    let n = 128;
    let doc = viscous([n, n, 1], 1.0 / n as f32, 1.0);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    let dx = 1.0 / n as f32;
    let mut largest_dt = 0.0f32;
    for _ in 0..12 {
        for r in sim.advance_frame().expect("step") {
            largest_dt = largest_dt.max(r.dt);
            assert!(solve(&sim, &r, "viscosity").converged);
        }
    }
    // explicit diffusion would need ν Δt / dx² ≤ 1/4 (2D): here it is far above
    let explicit = f64::from(largest_dt) / f64::from(dx * dx);
    assert!(
        explicit > 10.0,
        "steps too small to test: ν Δt / dx² = {explicit}"
    );
    let p = sim.particles().expect("particles");
    let speed = p.max_speed();
    eprintln!("ν = 1 at 128²: ν Δt/dx² up to {explicit:.0}, max particle speed {speed:.3} m/s");
    assert!(speed.is_finite() && speed < 1.0, "max speed {speed} m/s");
    assert!(p.pos.iter().all(|x| x.is_finite()));
}
