//! Policy iteration on one rank's slab (`pi-mg` under `run --mpi`), on thread ranks: the
//! gathered solution solves the global LCP and agrees with the single-process one within the
//! tolerance, every rank reports the same iterations, and 2 and 3 ranks take the same ones.

use super::*;
use crate::thread_ranks::solve_on_thread_ranks;

fn pi_mg(tol: f64) -> PolicyIteration {
    PolicyIteration::new(PolicyConfig {
        tolerance: abs(tol),
        inner: InnerSolver::Multigrid,
        ..PolicyConfig::default()
    })
}

/// (iterations and outer iterations of every rank, the global pressure) of `pi-mg` on `ranks`
/// thread ranks.
fn on_ranks(p: &OwnedProblem, ranks: u32, tol: f64) -> (Vec<(u32, u32)>, Vec<f64>) {
    solve_on_thread_ranks(p, ranks, move |slab| {
        let stats = pi_mg(tol).solve(slab).expect("solved");
        (stats.iterations, stats.outer_iterations)
    })
}

#[test]
fn policy_iteration_on_slabs_solves_the_global_lcp() {
    let tol = 1e-8;
    for dims in [[48, 64, 1], [16, 14, 24]] {
        let p = fixtures::build(Scene::LcpContainer, dims, 5);
        let mut one = p.clone();
        pi_mg(tol).solve(&mut one.view()).expect("one process");
        let scale = one.pressure.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut first: Option<(u32, u32)> = None;
        for ranks in [2, 3] {
            let (counts, pressure) = on_ranks(&p, ranks, tol);
            let at = format!("{dims:?} on {ranks} ranks");
            assert!(counts.windows(2).all(|w| w[0] == w[1]), "{at}: {counts:?}");
            assert!(counts[0].1 >= 2, "{at}: the policy changed at least once");
            // The slab decisions are the global ones: the same policies on any rank count, so
            // the same outer iterations and inner MGPCG iterations (±1).
            let (n, outer) = counts[0];
            let (n0, outer0) = *first.get_or_insert((n, outer));
            assert!(
                outer == outer0 && n.abs_diff(n0) <= 1,
                "{at}: {n} iterations in {outer} solves, {n0} in {outer0} on 2 ranks"
            );
            let mut q = p.clone();
            q.pressure.copy_from_slice(&pressure);
            let c = complementarity(&q.view(), &pressure);
            assert!(c.residual <= tol, "{at}: LCP residual {:e}", c.residual);
            assert!(
                c.min_pressure >= -tol,
                "{at}: p < 0 on S: {:e}",
                c.min_pressure
            );
            let diff = pressure
                .iter()
                .zip(&one.pressure)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(
                diff <= 1e-5 * scale,
                "{at}: differs by {diff:e} of {scale:e}"
            );
        }
    }
}
