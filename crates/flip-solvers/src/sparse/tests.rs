use super::*;
use crate::direct::{solve_reference, DirectConfig};
use crate::fixtures::{self, Scene};
use crate::krylov::PcgConfig;
use crate::tolerance::Tolerance;
use flip_sdk::OwnedCsr;

fn tight() -> PcgConfig {
    PcgConfig {
        tolerance: Tolerance {
            rel: 1e-12,
            abs: 1e-14,
        },
        max_iterations: 5000,
    }
}

#[test]
fn cg_and_direct_agree_on_csr_forms_of_structured_problems() {
    for (scene, dims) in [
        (Scene::DamBreak, [20, 16, 1]),
        (Scene::AirBubbles, [10, 8, 6]),
        (Scene::ClosedBox, [12, 10, 1]),
    ] {
        let mut grid = fixtures::build(scene, dims, 3);
        grid.lcp = false;
        let exact = solve_reference(&grid.view()).expect("SPD");
        let csr = OwnedCsr::from_structured(&grid.view());
        let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut answers = Vec::new();
        for precond in [CsrPreconditioner::Jacobi, CsrPreconditioner::Ic0] {
            let mut c = csr.clone();
            let stats = CsrPcg::new(tight(), precond)
                .solve_csr(&mut c.view())
                .expect("solves");
            assert_eq!(stats.converged, 1, "{scene:?} {precond:?}: {stats:?}");
            answers.push((format!("{precond:?}"), c, stats.iterations));
        }
        let mut c = csr.clone();
        CsrDirect::new(DirectConfig::default())
            .solve_csr(&mut c.view())
            .expect("direct");
        answers.push(("direct".into(), c, 1));
        for (name, c, _) in &answers {
            let mut grid_p = vec![0.0; grid.cell_count()];
            c.scatter(&mut grid_p);
            let err = grid_p
                .iter()
                .zip(&exact)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(
                err <= 1e-8 * scale.max(1.0),
                "{scene:?} {name}: error {err:e}"
            );
        }
        assert!(
            answers[1].2 < answers[0].2,
            "IC(0) beats Jacobi: {} vs {}",
            answers[1].2,
            answers[0].2
        );
    }
}

#[test]
fn lu_solves_a_non_symmetric_system_and_cg_refuses_it() {
    // A = [[4, -1, 0], [-2, 4, -1], [0, -2, 4]] (an upwinded operator), x = [1, 2, 3].
    let mut c = OwnedCsr {
        symmetric: false,
        row_ptr: vec![0, 2, 5, 7],
        col_idx: vec![0, 1, 0, 1, 2, 1, 2],
        values: vec![4.0, -1.0, -2.0, 4.0, -1.0, -2.0, 4.0],
        rhs: vec![2.0, 3.0, 8.0],
        pressure: vec![0.0; 3],
        ..OwnedCsr::default()
    };
    let refused = CsrPcg::new(tight(), CsrPreconditioner::Ic0).solve_csr(&mut c.view());
    assert!(matches!(refused, Err(SolveError::Unsupported(_))));
    let stats = CsrDirect::default().solve_csr(&mut c.view()).expect("LU");
    assert!(stats.residual < 1e-14, "{stats:?}");
    for (x, want) in c.pressure.iter().zip([1.0, 2.0, 3.0]) {
        assert!((x - want).abs() < 1e-14, "{:?}", c.pressure);
    }
}

#[test]
fn csr_cg_gives_the_same_bits_on_one_and_two_threads() {
    // more rows than two blocks of the parallel kernels
    let mut grid = fixtures::build(Scene::DamBreak, [34, 30, 26], 5);
    grid.lcp = false;
    let csr = OwnedCsr::from_structured(&grid.view());
    assert!(csr.rhs.len() > 2 * super::BLOCK, "{} rows", csr.rhs.len());
    for precond in [CsrPreconditioner::Jacobi, CsrPreconditioner::Amg] {
        let solve = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let mut c = csr.clone();
            let stats = pool.install(|| {
                CsrPcg::new(tight(), precond)
                    .solve_csr(&mut c.view())
                    .expect("solves")
            });
            (c.pressure, stats.iterations)
        };
        let (one, iterations) = solve(1);
        let (two, again) = solve(2);
        assert_eq!(iterations, again, "{precond:?}");
        let same = one
            .iter()
            .zip(&two)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{precond:?}: the thread count changed the answer");
    }
}
