use super::kernels::stencil_of;
use super::*;
use crate::direct;
use crate::fixtures::{self, Scene, ALL_SCENES};
use crate::OwnedProblem;
use flip_abi::CELL_FLUID;
use flip_sdk::{PressureSolver, SolveError};

/// Every algorithm, by its plugin name.
pub(super) fn solvers(config: PcgConfig) -> Vec<(&'static str, Box<dyn PressureSolver>)> {
    vec![
        ("cg", Box::new(Pcg::cg(config))),
        ("jacobi-pcg", Box::new(Pcg::jacobi(config))),
        ("ic0-pcg", Box::new(Pcg::ic0(config))),
        (
            "mic0-pcg",
            Box::new(Pcg::mic0(config, Mic0Config::default())),
        ),
        (
            "rbssor-pcg",
            Box::new(Pcg::rbssor(config, SsorConfig::default())),
        ),
    ]
}

fn config(rel: f64) -> PcgConfig {
    PcgConfig {
        tolerance: Tolerance { rel, abs: 1e-14 },
        max_iterations: 5000,
    }
}

/// The linear version of `scene` (LcpContainer with `lcp = false`).
fn linear(scene: Scene, dims: [usize; 3], seed: u64) -> OwnedProblem {
    let mut p = fixtures::build(scene, dims, seed);
    p.lcp = false;
    p
}

fn max_abs(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn every_algorithm_matches_the_direct_solve_on_every_scene() {
    for dims in [[24, 20, 1], [12, 10, 9]] {
        for scene in ALL_SCENES {
            let mut p = linear(scene, dims, 11);
            let reference = direct::solve_reference(&p.view()).expect("SPD");
            let scale = max_abs(reference.iter().copied());
            assert!(scale > 1e-3, "{scene:?}: non-trivial solution");
            for (name, mut solver) in solvers(config(1e-8)) {
                p.pressure.iter_mut().for_each(|v| *v = 0.0);
                let stats = solver.solve(&mut p.view()).expect("linear solve");
                let what = format!("{name} {scene:?} {dims:?}: {stats:?}");
                assert_eq!(stats.converged, 1, "{what}");
                assert!(
                    stats.iterations > 0 && stats.initial_residual > 0.0,
                    "{what}"
                );
                let bound = 1e-8 * max_abs(p.rhs.iter().copied()) * 1.01;
                assert!(stats.residual <= bound, "{what}");
                let err = max_abs(p.pressure.iter().zip(&reference).map(|(a, b)| a - b));
                assert!(
                    err <= 1e-4 * scale,
                    "{what}: max error {err:e}, scale {scale:e}"
                );
                let off = (0..p.cell_count()).filter(|&c| p.cell_kind[c] != CELL_FLUID);
                assert!(off.into_iter().all(|c| p.pressure[c] == 0.0), "{what}");
            }
        }
    }
}

#[test]
fn warm_start_from_the_exact_solution_converges_at_once() {
    for dims in [[24, 20, 1], [12, 10, 9]] {
        for scene in [Scene::DamBreak, Scene::ClosedBox, Scene::TwoPuddles] {
            let mut p = linear(scene, dims, 5);
            let reference = direct::solve_reference(&p.view()).expect("SPD");
            for (name, mut solver) in solvers(config(1e-8)) {
                p.pressure.copy_from_slice(&reference);
                let stats = solver.solve(&mut p.view()).expect("linear solve");
                assert_eq!(stats.converged, 1, "{name} {scene:?}: {stats:?}");
                assert!(stats.iterations <= 1, "{name} {scene:?}: {stats:?}");
            }
        }
    }
}

#[test]
fn incompatible_singular_rhs_is_projected() {
    let mut p = linear(Scene::ClosedBox, [12, 10, 9], 2);
    for c in 0..p.cell_count() {
        if p.cell_kind[c] == CELL_FLUID {
            p.rhs[c] += 0.3; // not in the range of A
        }
    }
    let reference = direct::solve_reference(&p.view()).expect("SPD");
    for (name, mut solver) in solvers(config(1e-8)) {
        p.pressure.iter_mut().for_each(|v| *v = 1.0); // not mean-free either
        let stats = solver.solve(&mut p.view()).expect("linear solve");
        assert_eq!(stats.converged, 1, "{name}: {stats:?}");
        let err = max_abs(p.pressure.iter().zip(&reference).map(|(a, b)| a - b));
        assert!(
            err < 1e-4 * max_abs(reference.iter().copied()),
            "{name}: {err:e}"
        );
        let fluid = (0..p.cell_count()).filter(|&c| p.cell_kind[c] == CELL_FLUID);
        let sum: f64 = fluid.map(|c| p.pressure[c]).sum();
        assert!(sum.abs() < 1e-9, "{name}: mean {sum:e}");
    }
}

#[test]
fn iteration_counts_grow_about_linearly_per_doubling() {
    let count = |mk: &dyn Fn() -> Box<dyn PressureSolver>, dims: [usize; 3]| {
        let mut p = linear(Scene::DamBreak, dims, 1);
        let stats = mk().solve(&mut p.view()).expect("linear solve");
        assert_eq!(stats.converged, 1, "{dims:?}: {stats:?}");
        stats.iterations as f64
    };
    let mic =
        || -> Box<dyn PressureSolver> { Box::new(Pcg::mic0(config(1e-6), Mic0Config::default())) };
    let cg = || -> Box<dyn PressureSolver> { Box::new(Pcg::cg(config(1e-6))) };
    for (label, sizes) in [("2D", [32usize, 64, 128]), ("3D", [12, 24, 48])] {
        let dims = |n: usize| if label == "2D" { [n, n, 1] } else { [n, n, n] };
        let m: Vec<f64> = sizes.iter().map(|&n| count(&mic, dims(n))).collect();
        let c: Vec<f64> = sizes.iter().map(|&n| count(&cg, dims(n))).collect();
        println!("{label} sizes {sizes:?}: mic0-pcg {m:?}, cg {c:?}");
        for w in 0..2 {
            let (rm, rc) = (m[w + 1] / m[w], c[w + 1] / c[w]);
            assert!((1.15..=2.6).contains(&rm), "{label}: MIC(0) growth {rm}");
            assert!((1.5..=2.8).contains(&rc), "{label}: CG growth {rc}");
            assert!(m[w + 1] < c[w + 1], "{label}: MIC(0) beats CG");
        }
    }
}

#[test]
fn matrix_changes_are_detected_and_buffers_reused() {
    let mut solver = Pcg::mic0(config(1e-8), Mic0Config::default());
    let mut fresh_iterations = Vec::new();
    let mut reused_iterations = Vec::new();
    for scene in [Scene::DamBreak, Scene::AirBubbles, Scene::DamBreak] {
        let mut p = linear(scene, [20, 16, 6], 4);
        let mut fresh = Pcg::mic0(config(1e-8), Mic0Config::default());
        fresh_iterations.push(fresh.solve(&mut p.view()).expect("solves").iterations);
        p.pressure.iter_mut().for_each(|v| *v = 0.0);
        let before = solver.b.as_ptr();
        reused_iterations.push(solver.solve(&mut p.view()).expect("solves").iterations);
        if reused_iterations.len() > 1 {
            assert_eq!(before, solver.b.as_ptr(), "same size: no reallocation");
        }
    }
    // A stale factor would change the iteration counts.
    assert_eq!(fresh_iterations, reused_iterations);
    let hash = solver.matrix_hash;
    let mut p = linear(Scene::DamBreak, [20, 16, 6], 9);
    solver.solve(&mut p.view()).expect("solves");
    assert_eq!(hash, solver.matrix_hash, "same matrix, new rhs");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut out = Vec::new();
            for (_, mut solver) in solvers(config(1e-8)) {
                let mut p = linear(Scene::AirBubbles, [33, 17, 5], 3);
                let stats = solver.solve(&mut p.view()).expect("solves");
                out.push((stats.iterations, stats.residual.to_bits(), p.pressure));
            }
            out
        })
    };
    let one = run(1);
    let (two, three) = (run(2), run(3));
    assert!(one == two && one == three);
}

#[test]
fn running_out_of_iterations_is_not_an_error() {
    let few = PcgConfig {
        max_iterations: 3,
        ..config(1e-10)
    };
    for (name, mut solver) in solvers(few) {
        let mut p = linear(Scene::FreeSurfaceBox, [24, 20, 1], 1);
        let stats = solver.solve(&mut p.view()).expect("not an error");
        assert_eq!((stats.converged, stats.iterations), (0, 3), "{name}");
        assert!(stats.residual < stats.initial_residual, "{name}: {stats:?}");
        let mut lcp = fixtures::build(Scene::LcpContainer, [16, 16, 1], 1);
        let refused = solver.solve(&mut lcp.view());
        assert!(matches!(refused, Err(SolveError::Unsupported(_))), "{name}");
    }
}

#[test]
fn a_non_finite_guess_is_replaced_and_a_non_finite_rhs_refused() {
    for (name, mut solver) in solvers(config(1e-8)) {
        let mut p = linear(Scene::DamBreak, [16, 12, 1], 2);
        p.pressure.iter_mut().for_each(|v| *v = f64::NAN);
        let stats = solver.solve(&mut p.view()).expect("solves");
        assert_eq!(stats.converged, 1, "{name}: {stats:?}");
        assert!(p.pressure.iter().all(|v| v.is_finite()), "{name}");
        let c = (0..p.cell_count()).find(|&c| p.cell_kind[c] == CELL_FLUID);
        p.rhs[c.expect("has fluid")] = f64::INFINITY;
        let refused = solver.solve(&mut p.view());
        assert!(matches!(refused, Err(SolveError::BadValue(_))), "{name}");
    }
}

#[test]
fn stats_report_the_true_residual() {
    for (name, mut solver) in solvers(config(1e-6)) {
        let mut p = linear(Scene::TwoPuddles, [12, 10, 9], 8);
        let stats = solver.solve(&mut p.view()).expect("solves");
        let view = p.view();
        let a = stencil_of(&view);
        let mut r = vec![0.0; a.len()];
        let true_residual = a.residual(view.rhs, view.pressure, &mut r);
        assert_eq!(
            stats.residual, true_residual,
            "{name}: no singular region here"
        );
    }
}

#[test]
fn preconditioners_are_symmetric_positive_definite() {
    let omega = SsorConfig { omega: 1.6 };
    let mut preconds: Vec<(&str, Box<dyn Preconditioner>)> = vec![
        ("jacobi", Box::new(Jacobi::default())),
        ("ic0", Box::new(IncompleteCholesky::ic0())),
        (
            "mic0",
            Box::new(IncompleteCholesky::mic0(Mic0Config::default())),
        ),
        ("rbssor", Box::new(RedBlackSsor::new(omega))),
    ];
    for dims in [[17, 13, 1], [9, 8, 7]] {
        let mut p = linear(Scene::AirBubbles, dims, 6);
        let view = p.view();
        let a = stencil_of(&view);
        let n = a.len();
        let fluid = |c: usize| a.kind[c] == CELL_FLUID;
        let wave = |k: usize| -> Vec<f64> {
            let v = |c: usize| ((c * k) % 23) as f64 - 11.0;
            (0..n).map(|c| if fluid(c) { v(c) } else { 0.0 }).collect()
        };
        let (x, y) = (wave(7), wave(13));
        for (name, m) in preconds.iter_mut() {
            m.setup(&a);
            let (mut mx, mut my) = (vec![0.0; n], vec![0.0; n]);
            m.apply(&a, &x, &mut mx);
            m.apply(&a, &y, &mut my);
            let (ymx, xmy) = (
                crate::stencil::dot(&y, &mx, 8),
                crate::stencil::dot(&x, &my, 8),
            );
            assert!(
                (ymx - xmy).abs() < 1e-9 * ymx.abs().max(1.0),
                "{name}: {ymx} vs {xmy}"
            );
            assert!(crate::stencil::dot(&x, &mx, 8) > 0.0, "{name}: positive");
        }
    }
}

#[test]
fn mic_with_full_modification_preserves_row_sums() {
    // With τ = 1 (no safety), L Lᵀ 1 = A 1, i.e. M⁻¹ (A 1) = 1 on the fluid.
    for dims in [[20, 14, 1], [10, 9, 8]] {
        let mut p = linear(Scene::FreeSurfaceBox, dims, 1);
        let view = p.view();
        let a = stencil_of(&view);
        let ones: Vec<f64> = (0..a.len())
            .map(|c| f64::from(u8::from(a.kind[c] == CELL_FLUID)))
            .collect();
        let mut a_ones = vec![0.0; a.len()];
        a.apply(&ones, &mut a_ones);
        let mut mic = IncompleteCholesky::mic0(Mic0Config {
            tau: 1.0,
            sigma: 0.0,
        });
        mic.setup(&a);
        let mut z = vec![0.0; a.len()];
        mic.apply(&a, &a_ones, &mut z);
        let err = max_abs(z.iter().zip(&ones).map(|(z, o)| z - o));
        assert!(err < 1e-5, "{dims:?}: {err:e} (f32 factor)");
    }
}
