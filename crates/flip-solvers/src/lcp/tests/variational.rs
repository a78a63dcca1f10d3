//! Every LCP algorithm on variational LCP problems (fractional faces, ghost-fluid diagonal,
//! S = fluid cells at a partly closed face) against the policy-iteration reference.

use super::*;
use crate::fixtures_variational::{build_variational_lcp, Boundary, VarScene, ALL_VAR_SCENES};

#[test]
fn every_algorithm_solves_variational_lcps() {
    for dims in [[32, 32, 1], [37, 29, 1], [16, 16, 16]] {
        for scene in ALL_VAR_SCENES {
            if scene == VarScene::StraddlingPlate && dims[2] > 1 {
                continue; // the 2D plates cover it; keeps the test short
            }
            let mut p = build_variational_lcp(scene, dims, Boundary::Variational, 3);
            let reference = reference(&p);
            let scale = reference.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for (name, mut solver) in all_solvers(1e-9) {
                let (x, st) = run(solver.as_mut(), &p);
                let what = format!("{name} on {scene:?} {dims:?}");
                assert_eq!(st.converged, 1, "{what}: {st:?}");
                assert!(st.residual <= 1e-9, "{what}: {st:?}");
                assert_complementary(&mut p, &x, 1e-8, &what);
                let err = max_diff(&x, &reference);
                assert!(err <= 1e-6 * scale, "{what}: |p − p_ref| = {err:.3e}");
            }
        }
    }
}

#[test]
fn variational_container_separates() {
    // The LCP differs from the linear solve: the set S is active somewhere.
    for dims in [[32, 32, 1], [16, 16, 16]] {
        let p = build_variational_lcp(VarScene::Container, dims, Boundary::Variational, 3);
        let (lin, lcp) = (linear(&p), reference(&p));
        assert!(max_diff(&lin, &lcp) > 1e-3, "{dims:?}");
        let on_s = (0..p.cell_count()).filter(|&c| p.complementarity[c] != 0);
        let suction = on_s.clone().filter(|&c| lin[c] < -1e-3).count();
        assert!(suction > 0, "{dims:?}: the linear solve sucks on S");
        assert!(on_s.into_iter().all(|c| lcp[c] >= -1e-9), "{dims:?}");
    }
}
