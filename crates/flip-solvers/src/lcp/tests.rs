//! Tests of the LCP solvers on Lai's container scene (`fixtures::Scene::LcpContainer`).

mod accuracy;
mod behaviour;
mod distributed;
mod profile;
mod variational;

use super::*;
use crate::direct::solve_reference;
use crate::fixtures::{self, Scene};
use crate::owned::OwnedProblem;
use crate::tolerance::Tolerance;
use flip_sdk::PressureSolver;

/// Grids every accuracy test runs on: 2D and 3D, even and odd sizes.
const GRIDS: [[usize; 3]; 4] = [[32, 32, 1], [40, 36, 1], [16, 16, 16], [17, 15, 13]];

/// An absolute tolerance.
fn abs(tol: f64) -> Tolerance {
    Tolerance { rel: 0.0, abs: tol }
}

/// Every algorithm, named as in the plugin, converging to `tol`.
fn all_solvers(tol: f64) -> Vec<(&'static str, Box<dyn PressureSolver>)> {
    let t = abs(tol);
    let pi = |inner| {
        Box::new(PolicyIteration::new(PolicyConfig {
            tolerance: t,
            inner,
            ..PolicyConfig::default()
        })) as Box<dyn PressureSolver>
    };
    let pe = |inner| {
        Box::new(PenaltyMethod::new(PenaltyConfig {
            outer: PolicyConfig {
                tolerance: t,
                inner,
                ..PolicyConfig::default()
            },
            ..PenaltyConfig::default()
        })) as Box<dyn PressureSolver>
    };
    vec![
        (
            "pgs",
            Box::new(PgsSolver::new(PgsConfig {
                tolerance: t,
                max_iterations: 200_000,
            })),
        ),
        ("pi-pcg", pi(InnerSolver::Ic0Pcg)),
        ("pi-mg", pi(InnerSolver::Multigrid)),
        ("pe-pcg", pe(InnerSolver::Ic0Pcg)),
        ("pe-mg", pe(InnerSolver::Multigrid)),
        (
            "fas-mg",
            Box::new(FasMgSolver::new(FasConfig {
                tolerance: t,
                ..FasConfig::default()
            })),
        ),
        (
            "fmg",
            Box::new(FmgSolver::new(FmgConfig {
                tolerance: t,
                ..FmgConfig::default()
            })),
        ),
    ]
}

/// The LCP solution by policy iteration with exact (Cholesky) inner solves: finitely many
/// outer iterations for an M-matrix (Lai §4.1), checked here to 1e-11.
fn reference(p: &OwnedProblem) -> Vec<f64> {
    let mut q = p.clone();
    q.pressure.iter_mut().for_each(|x| *x = 0.0);
    let mut solver = PolicyIteration::new(PolicyConfig {
        tolerance: abs(1e-11),
        inner: InnerSolver::Direct,
        max_outer_iterations: 200,
        inner_tolerance: 1.0,
        ..PolicyConfig::default()
    });
    let st = solver.solve(&mut q.view()).expect("reference solve");
    assert_eq!(st.converged, 1, "reference LCP solve: {st:?}");
    q.pressure
}

/// The linear solution (`lcp` ignored).
fn linear(p: &OwnedProblem) -> Vec<f64> {
    let mut q = p.clone();
    q.lcp = false;
    solve_reference(&q.view()).expect("direct solve")
}

/// The container scene with its S set.
fn container(dims: [usize; 3], seed: u64) -> OwnedProblem {
    fixtures::build(Scene::LcpContainer, dims, seed)
}

/// `max |a − b|`.
fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// Solves a copy of `p` from a zero initial guess; returns the solution and the stats.
fn run(solver: &mut dyn PressureSolver, p: &OwnedProblem) -> (Vec<f64>, SolveStats) {
    let mut q = p.clone();
    q.pressure.iter_mut().for_each(|x| *x = 0.0);
    let st = solver.solve(&mut q.view()).expect("solve");
    (q.pressure, st)
}

/// Asserts the complementarity conditions of `x` up to `eps` and returns the report.
fn assert_complementary(p: &mut OwnedProblem, x: &[f64], eps: f64, what: &str) -> Complementarity {
    let c = complementarity(&p.view(), x);
    assert!(c.min_pressure >= -eps, "{what}: p < 0 on S: {c:?}");
    assert!(c.min_slack >= -eps, "{what}: A p − rhs < 0 on S: {c:?}");
    assert!(
        c.max_product <= eps,
        "{what}: p ⊥ A p − rhs violated: {c:?}"
    );
    assert!(c.linear_residual <= eps, "{what}: linear rows: {c:?}");
    c
}
