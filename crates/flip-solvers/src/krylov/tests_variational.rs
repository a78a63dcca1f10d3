//! The PCG family and the direct solver on variational problems (fractional faces, ghost-fluid
//! diagonal): agreement with the reference Cholesky solve.

use super::tests::solvers;
use super::*;
use crate::direct::{self, DirectConfig, DirectSolver};
use crate::fixtures_variational::{build_variational, Boundary, ALL_VAR_SCENES};
use flip_abi::CELL_FLUID;

fn max_abs(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn pcg_family_and_direct_match_the_reference_on_variational_scenes() {
    for dims in [[32, 28, 1], [13, 12, 11]] {
        for scene in ALL_VAR_SCENES {
            let mut p = build_variational(scene, dims, Boundary::Variational, 5);
            let reference = direct::solve_reference(&p.view()).expect("SPD");
            let scale = max_abs(reference.iter().copied());
            assert!(scale > 1e-3, "{scene:?}: non-trivial solution");
            let config = PcgConfig {
                tolerance: Tolerance {
                    rel: 1e-9,
                    abs: 1e-14,
                },
                max_iterations: 5000,
            };
            let mut all = solvers(config);
            all.push((
                "direct",
                Box::new(DirectSolver::new(DirectConfig::default())),
            ));
            for (name, mut solver) in all {
                p.pressure.iter_mut().for_each(|v| *v = 0.0);
                let stats = solver.solve(&mut p.view()).expect("linear solve");
                let what = format!("{name} {scene:?} {dims:?}: {stats:?}");
                assert_eq!(stats.converged, 1, "{what}");
                let bound = 1e-9 * max_abs(p.rhs.iter().copied()) * 1.01;
                assert!(stats.residual <= bound, "{what}");
                let err = max_abs(p.pressure.iter().zip(&reference).map(|(a, b)| a - b));
                assert!(err <= 1e-6 * scale, "{what}: max error {err:e}");
                let off = (0..p.cell_count()).filter(|&c| p.cell_kind[c] != CELL_FLUID);
                assert!(off.into_iter().all(|c| p.pressure[c] == 0.0), "{what}");
            }
        }
    }
}
