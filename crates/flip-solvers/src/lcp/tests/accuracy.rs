//! Complementarity and agreement with the reference LCP solution, for every algorithm.

use super::*;

#[test]
fn every_algorithm_solves_the_container_lcp() {
    for dims in GRIDS {
        let mut p = container(dims, 3);
        let reference = reference(&p);
        let scale = reference.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (name, mut solver) in all_solvers(1e-9) {
            let (x, st) = run(solver.as_mut(), &p);
            let what = format!("{name} on {dims:?}");
            assert_eq!(st.converged, 1, "{what}: {st:?}");
            assert!(
                st.residual <= 1e-9 && st.initial_residual > 1e-3,
                "{what}: {st:?}"
            );
            let c = assert_complementary(&mut p, &x, 1e-8, &what);
            assert!(
                (c.residual - st.residual).abs() <= 1e-12,
                "{what}: {c:?} vs {st:?}"
            );
            let err = max_diff(&x, &reference);
            assert!(err <= 1e-6 * scale, "{what}: |p − p_ref| = {err:.3e}");
        }
    }
}

#[test]
fn the_constraint_is_active_and_enforced() {
    // Gravity pulls the liquid off the top of the container: the linear solution sucks
    // (p < 0 on S there), the LCP solution separates instead (p = 0, A p − rhs > 0).
    for dims in [[32, 32, 1], [16, 16, 16]] {
        let mut p = container(dims, 3);
        let lin = linear(&p);
        let lcp = reference(&p);
        let (mut suction, mut separated) = (0, 0);
        let w_lcp = {
            let view = p.view();
            let a = crate::stencil::Stencil::of(&view);
            (0..view.cell_count())
                .map(|c| a.row_dot(c, &lcp) - view.rhs[c])
                .collect::<Vec<_>>()
        };
        for c in 0..p.cell_count() {
            if p.complementarity[c] == 0 || p.cell_kind[c] != flip_abi::CELL_FLUID {
                continue;
            }
            if lin[c] < -1e-3 {
                suction += 1;
                if lcp[c].abs() <= 1e-12 && w_lcp[c] > 1e-6 {
                    separated += 1;
                }
            }
        }
        assert!(
            suction > 0,
            "{dims:?}: the linear solution must violate p ≥ 0 on S"
        );
        assert!(
            separated > 0,
            "{dims:?}: the LCP must separate where the linear solve sucks"
        );
        let lin_c = complementarity(&p.view(), &lin);
        assert!(
            lin_c.min_pressure < -0.1 && lin_c.residual > 0.1,
            "{lin_c:?}"
        );
        assert!(max_diff(&lin, &lcp) > 0.1);
        // Every algorithm reaches the separated solution, not the linear one.
        for (name, mut solver) in all_solvers(1e-6) {
            let (x, st) = run(solver.as_mut(), &p);
            assert_eq!(st.converged, 1, "{name}: {st:?}");
            let c = assert_complementary(&mut p, &x, 1e-5, name);
            assert!(c.min_pressure >= -1e-6, "{name}: {c:?}");
            assert!(
                max_diff(&x, &lin) > 0.1,
                "{name} returned the linear solution"
            );
        }
    }
}

#[test]
fn complementarity_report_measures_each_condition() {
    let mut p = container([12, 12, 1], 1);
    let n = p.cell_count();
    let view = p.view();
    let zero = complementarity(&view, &vec![0.0; n]);
    // p = 0: min(p, w) = min(0, −rhs) on S, |rhs| on the other fluid cells.
    let (mut lin, mut on_s) = (0.0f64, 0.0f64);
    for c in 0..n {
        if view.is_fluid(c) {
            if view.complementarity[c] != 0 {
                on_s = on_s.max(0.0f64.min(-view.rhs[c]).abs());
            } else {
                lin = lin.max(view.rhs[c].abs());
            }
        }
    }
    assert_eq!(zero.linear_residual, lin);
    assert_eq!(zero.residual, lin.max(on_s));
    assert_eq!(zero.min_pressure, 0.0);
    assert_eq!(zero.max_product, 0.0);
    assert_eq!(lcp_residual(&view, &vec![0.0; n]), zero.residual);
}
