//! What the 2D and 3D tall-cell tests share: solver instances, one step in the order of the
//! `tallcell_*` nodes, and the largest difference of two solutions.

use flip_core::tallcell::{advect, extrapolate, pressure, reinit, TallLiquid};
use flip_host::{ProblemRef, SolverInstance};
use flipgraph_tests::plugins;

pub const G: f32 = -9.81;
pub const RHO: f32 = 1000.0;

/// How a step hands its pressure problem to the solver.
#[allow(dead_code)] // each test binary takes the routes it needs
#[derive(Clone, Copy)]
pub enum Route {
    /// The general sparse (CSR) kind any CSR-capable algorithm takes.
    Csr,
    /// The tall-cell kind (`multigrid/tall-mg`).
    TallCell,
}

/// An instance of algorithm `name` with `params`.
pub fn solver(name: &str, params: &[(String, f64)]) -> SolverInstance {
    let set = plugins();
    let (plugin, info) = set.find(name).expect("solver plugin");
    SolverInstance::create(plugin, &info.name, params).expect("solver instance")
}

/// One step in the order of the `tallcell_*` nodes; returns the largest divergence left.
pub fn step(liquid: &mut TallLiquid, solver: &mut SolverInstance, dt: f32, route: Route) -> f32 {
    extrapolate::extrapolate_velocity(liquid, 4);
    advect::advect_level_set(liquid, dt);
    advect::advect_velocity(liquid, dt);
    reinit::reinitialise(liquid);
    liquid.refit();
    advect::add_gravity(liquid, G, dt);
    let mut p = pressure::assemble(liquid, RHO, dt);
    match route {
        Route::Csr => solver.solve_csr(&mut p.csr.view()).map(drop),
        Route::TallCell => solver
            .solve_any(ProblemRef::TallCell(&mut p.tallcell()))
            .map(drop),
    }
    .expect("solve");
    pressure::apply(liquid, &p)
}

/// Largest absolute difference of two solutions.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}
