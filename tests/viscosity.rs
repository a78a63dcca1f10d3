//! Physics of the viscosity node in whole graphs, set up as the shipped viscous dam break is
//! wired (emitter with its default jitter, particle level set, variational walls): gravity-
//! driven Poiseuille flow between two no-slip walls, a spinning disc that keeps its angular
//! momentum, and a very viscous block that stays stable at CFL-sized steps.

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
    set(&mut doc, "fields", "every", Number(1e6));
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

/// RMS of (measured − parabola) over the channel, relative to the parabola's peak, after
/// `time` s of a column of liquid falling between the walls of a channel `n` cells wide.
fn poiseuille_error(n: usize, nu: f64, time: f32) -> f64 {
    let width = 0.1f32;
    let dx = width / n as f32;
    let height = 4 * n;
    let mut doc = viscous([n + 2, height, 1], dx, nu);
    doc.settings.fps = 50.0;
    // walls one cell thick: the channel is [dx, (n + 1)·dx]
    set(&mut doc, "source", "center", Vector(vec![f64::from(dx + 0.5 * width), f64::from(height as f32 * dx * 0.55), 0.0]));
    set(&mut doc, "source", "size", Vector(vec![f64::from(width), f64::from(height as f32 * dx * 0.7), 0.0]));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("pressure", "velocity")]);
    let frames = (time * doc.settings.fps).round() as u32;
    for _ in 0..frames {
        for r in sim.advance_frame().expect("step") {
            assert!(solve(&sim, &r, "viscosity").converged, "viscosity solve converged");
        }
    }
    let particles = sim.particles().expect("particles");
    let mid = particles.pos.iter().map(|p| p.y).sum::<f32>() / particles.pos.len() as f32;
    let field = probed_velocity(&sim);
    let g = 9.81f64;
    let (a, b) = (f64::from(dx), f64::from(dx) * (n + 1) as f64);
    let exact = |x: f64| -g / (2.0 * nu) * (x - a) * (b - x);
    let peak = exact(0.5 * (a + b)).abs();
    // rows within half a width of the column's middle
    let rows: Vec<usize> = (0..height)
        .filter(|&j| ((j as f32 + 0.5) * dx - mid).abs() < 0.5 * width)
        .collect();
    let mut sum = 0.0;
    for i in 1..=n {
        let v = rows.iter().map(|&j| f64::from(field.vel.v[(i, j, 0)])).sum::<f64>() / rows.len() as f64;
        let x = (i as f64 + 0.5) * f64::from(dx);
        sum += (v - exact(x)).powi(2);
    }
    let rms = (sum / n as f64).sqrt() / peak;
    eprintln!("Poiseuille n = {n}: RMS error {:.3} % of the peak {peak:.3} m/s", 100.0 * rms);
    rms
}

#[test]
fn gravity_driven_flow_between_no_slip_walls_is_the_poiseuille_parabola() {
    // ν = 0.05 m²/s, 0.1 m wide: steady peak g W²/8ν = 0.245 m/s, reached within 0.1 %
    // after 7 W²/(π² ν) = 0.14 s.
    let rms = poiseuille_error(64, 0.05, 0.16);
    assert!(rms < 0.01, "RMS error {:.3} % of the peak", 100.0 * rms);
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

#[test]
fn a_very_viscous_spinning_disc_keeps_its_angular_momentum() {
    let n = 64;
    let mut doc = viscous([n, n, 1], 1.0 / n as f32, 1.0);
    doc.settings.fps = 24.0;
    set(&mut doc, "gravity", "gravity", Vector(vec![0.0, 0.0, 0.0]));
    set(&mut doc, "source", "shape", Text("sphere".into()));
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.5, 0.0]));
    set(&mut doc, "source", "radius", Number(0.25));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.advance_frame().expect("the emitting frame");
    // Spin the disc at 2 rad/s about its centroid.
    let mut p = (*sim.particles().expect("emitted")).clone();
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
    let (l1, _) = angular_momentum(&p.pos, &p.vel);
    eprintln!("spinning disc: L(1 s)/L(0) = {:.4}", l1 / l0);
    assert!(l1 / l0 >= 0.99, "angular momentum kept {:.4} of its start", l1 / l0);
    assert!(l1 / l0 <= 1.01, "angular momentum grew to {:.4}", l1 / l0);
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
    assert!(explicit > 10.0, "steps too small to test: ν Δt / dx² = {explicit}");
    let p = sim.particles().expect("particles");
    let speed = p.max_speed();
    eprintln!("ν = 1 at 128²: ν Δt/dx² up to {explicit:.0}, max particle speed {speed:.3} m/s");
    assert!(speed.is_finite() && speed < 1.0, "max speed {speed} m/s");
    assert!(p.pos.iter().all(|x| x.is_finite()));
}
