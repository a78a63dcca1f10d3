//! Correctness tests: every algorithm × coarsening × scene × size against the sparse direct
//! reference, warm starts, hierarchy reuse, arbitrary SPD matrices, honest non-convergence.

use super::*;
use crate::direct::solve_reference;
use crate::fixtures::{self, Scene, ALL_SCENES};
use crate::stencil::{norm_inf, Stencil};
use crate::OwnedProblem;
use flip_abi::{CELL_AIR, CELL_FLUID};
use flip_sdk::regions::Regions;
use flip_sdk::{PressureSolver, SolveError};

/// The three algorithms of the plugin.
#[derive(Clone, Copy, Debug)]
pub(super) enum Algo {
    V,
    Full,
    MgPcg,
}

pub(super) const ALGOS: [Algo; 3] = [Algo::V, Algo::Full, Algo::MgPcg];

pub(super) fn solver(algo: Algo, config: MultigridConfig) -> Box<dyn PressureSolver> {
    match algo {
        Algo::V => Box::new(
            MultigridSolver::new(MultigridConfig {
                cycle: Cycle::V,
                ..config
            })
            .unwrap(),
        ),
        Algo::Full => Box::new(
            MultigridSolver::new(MultigridConfig {
                cycle: Cycle::Full,
                n_vcycle: 0,
                ..config
            })
            .unwrap(),
        ),
        Algo::MgPcg => Box::new(MgPcgSolver::new(config).unwrap()),
    }
}

/// `‖b̂ − A p‖∞` and `‖b̂‖∞`, `b̂` the projected right-hand side, recomputed independently.
pub(super) fn true_residual(p: &mut OwnedProblem) -> (f64, f64) {
    let x = p.pressure.clone();
    let view = p.view();
    let a = Stencil::of(&view);
    let regions = Regions::of(&a.couplings());
    let mut b: Vec<f64> = (0..a.len())
        .map(|c| {
            if a.kind[c] == CELL_FLUID {
                view.rhs[c]
            } else {
                0.0
            }
        })
        .collect();
    regions.remove_mean(&mut b);
    let mut r = vec![0.0; a.len()];
    (a.residual(&b, &x, &mut r), norm_inf(&b))
}

pub(super) fn config(coarsening: Coarsening, rel: f64) -> MultigridConfig {
    MultigridConfig {
        coarsening,
        tolerance: Tolerance { rel, abs: 1e-12 },
        ..Default::default()
    }
}

const SIZES: [[usize; 3]; 4] = [[24, 20, 1], [33, 31, 1], [12, 10, 9], [17, 17, 17]];

#[test]
fn every_algorithm_scene_and_size_matches_the_direct_reference() {
    for dims in SIZES {
        for scene in ALL_SCENES {
            let mut base = fixtures::build(scene, dims, 3);
            base.lcp = false;
            let reference = solve_reference(&base.view()).expect("reference solve");
            let scale = norm_inf(&reference).max(1e-3);
            for coarsening in [Coarsening::Galerkin, Coarsening::Rediscretise] {
                for algo in ALGOS {
                    let what = format!("{algo:?} {coarsening:?} {scene:?} {dims:?}");
                    let mut p = base.clone();
                    let mut s = solver(algo, config(coarsening, 1e-9));
                    let stats = s.solve(&mut p.view()).expect(&what);
                    let (res, bnorm) = true_residual(&mut p);
                    assert_eq!(stats.converged, 1, "{what}: {stats:?}");
                    assert!(res <= 1e-9 * bnorm + 1e-12, "{what}: residual {res:e}");
                    assert!(
                        (stats.residual - res).abs() <= 1e-9 * bnorm,
                        "{what}: reported"
                    );
                    assert_eq!(stats.outer_iterations, 0);
                    assert!(
                        stats.iterations <= 40,
                        "{what}: {} iterations",
                        stats.iterations
                    );
                    let err = p
                        .pressure
                        .iter()
                        .zip(&reference)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    assert!(
                        err <= 1e-6 * scale,
                        "{what}: ‖p − p_ref‖∞ = {err:e} (‖p_ref‖ {scale:e})"
                    );
                    for c in 0..p.cell_count() {
                        if p.cell_kind[c] != CELL_FLUID {
                            assert_eq!(p.pressure[c], 0.0, "{what}: non-fluid cell {c}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn default_tolerance_is_met_and_warm_start_from_the_solution_needs_at_most_one_cycle() {
    for dims in [[33, 31, 1], [17, 17, 17]] {
        for scene in ALL_SCENES {
            for algo in ALGOS {
                for coarsening in [Coarsening::Galerkin, Coarsening::Rediscretise] {
                    let what = format!("{algo:?} {coarsening:?} {scene:?} {dims:?}");
                    let mut p = fixtures::build(scene, dims, 5);
                    p.lcp = false;
                    let mut s = solver(algo, config(coarsening, 1e-6));
                    let first = s.solve(&mut p.view()).unwrap();
                    let (res, bnorm) = true_residual(&mut p);
                    assert_eq!(first.converged, 1, "{what}");
                    assert!(res <= 1e-6 * bnorm, "{what}: {res:e} vs {bnorm:e}");
                    assert!(first.initial_residual >= first.residual, "{what}");
                    // Same instance, same matrix, previous pressure as the guess.
                    let again = s.solve(&mut p.view()).unwrap();
                    assert!(again.iterations <= 1, "{what}: {again:?}");
                    assert_eq!(again.converged, 1, "{what}");
                    // A fresh instance warm-started from the exact solution.
                    p.pressure = solve_reference(&p.view()).unwrap();
                    let mut fresh = solver(algo, config(coarsening, 1e-6));
                    let warm = fresh.solve(&mut p.view()).unwrap();
                    assert!(warm.iterations <= 1, "{what}: {warm:?}");
                    assert_eq!(warm.converged, 1, "{what}");
                }
            }
        }
    }
}

#[test]
fn hierarchy_is_reused_and_rebuilt_only_when_the_matrix_changes() {
    let mut p = fixtures::build(Scene::DamBreak, [40, 24, 1], 2);
    let mut s = MultigridSolver::new(MultigridConfig::default()).unwrap();
    s.solve(&mut p.view()).unwrap();
    assert_eq!(s.rebuilds(), 1);
    assert!(s.levels() >= 4);
    p.rhs.iter_mut().for_each(|r| *r *= 0.5);
    p.pressure.fill(0.0);
    let stats = s.solve(&mut p.view()).unwrap();
    assert_eq!(s.rebuilds(), 1, "rhs change must not rebuild");
    assert_eq!(stats.converged, 1);
    // Geometry change: the column collapses by one cell.
    for j in 1..23 {
        let c = p.index(19, j, 0);
        if p.cell_kind[c] == CELL_FLUID {
            p.cell_kind[c] = CELL_AIR;
            p.rhs[c] = 0.0;
        }
    }
    p.assemble_matrix();
    let stats = s.solve(&mut p.view()).unwrap();
    assert_eq!(s.rebuilds(), 2);
    assert_eq!(stats.converged, 1);
    let reference = solve_reference(&p.view()).unwrap();
    let err = p
        .pressure
        .iter()
        .zip(&reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(err <= 1e-4 * norm_inf(&reference), "{err:e}");
}

#[test]
fn galerkin_handles_an_arbitrary_spd_matrix() {
    // Penalty terms on the diagonal (as a penalty LCP method adds) and scaled coefficients.
    for dims in [[33, 31, 1], [17, 17, 17]] {
        let mut p = fixtures::build(Scene::LcpContainer, dims, 9);
        p.lcp = false;
        for c in 0..p.cell_count() {
            if p.complementarity[c] != 0 && c % 3 == 0 {
                p.diag[c] += 1e4;
            }
            p.diag[c] *= 2.5;
            for a in 0..3 {
                p.off[a][c] *= 2.5;
            }
        }
        let reference = solve_reference(&p.view()).unwrap();
        for algo in ALGOS {
            let mut q = p.clone();
            let mut s = solver(algo, config(Coarsening::Galerkin, 1e-9));
            let stats = s.solve(&mut q.view()).unwrap();
            assert_eq!(stats.converged, 1, "{algo:?} {dims:?} {stats:?}");
            assert!(stats.iterations <= 30, "{algo:?} {dims:?} {stats:?}");
            let err = q
                .pressure
                .iter()
                .zip(&reference)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                err <= 1e-6 * norm_inf(&reference),
                "{algo:?} {dims:?}: {err:e}"
            );
        }
    }
}

#[test]
fn non_convergence_is_reported_not_an_error() {
    let mut p = fixtures::build(Scene::AirBubbles, [64, 64, 1], 1);
    for algo in ALGOS {
        let cfg = MultigridConfig {
            max_iterations: 1,
            tolerance: Tolerance {
                rel: 1e-14,
                abs: 0.0,
            },
            ..Default::default()
        };
        p.pressure.fill(0.0);
        let stats = solver(algo, cfg).solve(&mut p.view()).unwrap();
        assert_eq!(stats.converged, 0, "{algo:?}");
        assert_eq!(stats.iterations, 1, "{algo:?}");
        assert!(
            stats.residual < stats.initial_residual,
            "{algo:?}: {stats:?}"
        );
    }
}

#[test]
fn lcp_problems_and_bad_configurations_are_refused() {
    let mut p = fixtures::build(Scene::LcpContainer, [16, 16, 1], 1);
    assert!(p.lcp);
    for algo in ALGOS {
        let err = solver(algo, MultigridConfig::default()).solve(&mut p.view());
        assert!(matches!(err, Err(SolveError::Unsupported(_))), "{algo:?}");
    }
    let bad = [
        MultigridConfig {
            n_sweep: 0,
            ..Default::default()
        },
        MultigridConfig {
            n_vcycle: 0,
            ..Default::default()
        },
        MultigridConfig {
            coarsest_size: 1,
            ..Default::default()
        },
        MultigridConfig {
            tolerance: Tolerance { rel: 0.0, abs: 0.0 },
            ..Default::default()
        },
    ];
    for cfg in bad {
        assert!(
            matches!(MultigridSolver::new(cfg), Err(SolveError::BadValue(_))),
            "{cfg:?}"
        );
        assert!(
            matches!(MgPcgSolver::new(cfg), Err(SolveError::BadValue(_))),
            "{cfg:?}"
        );
    }
}

#[test]
fn tiny_and_degenerate_grids() {
    // A single level (grid no larger than the coarsest size), a 1-cell-wide channel, empty.
    for dims in [[4, 4, 1], [3, 3, 3], [40, 3, 1], [5, 40, 4]] {
        for scene in [Scene::DamBreak, Scene::ClosedBox] {
            let mut p = fixtures::build(scene, dims, 4);
            let reference = solve_reference(&p.view()).unwrap();
            for algo in ALGOS {
                p.pressure.fill(0.0);
                let stats = solver(algo, config(Coarsening::Galerkin, 1e-9))
                    .solve(&mut p.view())
                    .unwrap();
                assert_eq!(stats.converged, 1, "{algo:?} {dims:?} {scene:?} {stats:?}");
                let err = p
                    .pressure
                    .iter()
                    .zip(&reference)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(
                    err <= 1e-6 * norm_inf(&reference).max(1e-3),
                    "{algo:?} {dims:?}: {err:e}"
                );
            }
        }
    }
    let mut empty = OwnedProblem::empty([8, 8, 1], 0.125);
    let stats = MgPcgSolver::new(MultigridConfig::default())
        .unwrap()
        .solve(&mut empty.view())
        .unwrap();
    assert_eq!((stats.iterations, stats.converged), (0, 1));
}
