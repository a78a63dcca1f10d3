//! Linear fallback, warm starts, scaling and robustness.

use super::*;
use flip_abi::{CELL_FLUID, CELL_SOLID};

/// Marks the fluid cells touching a solid as S and turns the LCP on.
fn with_walls_in_s(mut p: OwnedProblem) -> OwnedProblem {
    let s = [1, p.dims[0], p.dims[0] * p.dims[1]];
    for c in 0..p.cell_count() {
        let touches = (0..p.dimension).any(|a| {
            let lo = c >= s[a] && p.cell_kind[c - s[a]] == CELL_SOLID;
            let hi = c + s[a] < p.cell_count() && p.cell_kind[c + s[a]] == CELL_SOLID;
            lo || hi
        });
        p.complementarity[c] = u8::from(p.cell_kind[c] == CELL_FLUID && touches);
    }
    p.lcp = true;
    p
}

#[test]
fn without_lcp_rows_every_algorithm_is_the_linear_solve() {
    for dims in [[32, 32, 1], [17, 15, 13]] {
        let mut p = container(dims, 5);
        p.lcp = false;
        let lin = linear(&p);
        let scale = lin.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (name, mut solver) in all_solvers(1e-9) {
            let (x, st) = run(solver.as_mut(), &p);
            assert_eq!(st.converged, 1, "{name}: {st:?}");
            let err = max_diff(&x, &lin);
            assert!(err <= 1e-6 * scale, "{name} on {dims:?}: {err:.3e}");
        }
    }
}

#[test]
fn a_resting_pool_gives_the_linear_solution() {
    // Hydrostatic pressure (positive everywhere): the LCP's constraints are all inactive, so
    // its solution is the linear one although S (the cells along the walls) is not empty.
    for dims in [[24, 20, 1], [12, 10, 9]] {
        let mut p = with_walls_in_s(fixtures::build(Scene::FreeSurfaceBox, dims, 2));
        let [ni, nj, _] = p.dims;
        let hydro: Vec<f64> = (0..p.cell_count())
            .map(|c| {
                let j = (c / ni) % nj;
                if p.cell_kind[c] == CELL_FLUID {
                    0.3 * (nj as f64 / 2.0 - j as f64) + 0.5
                } else {
                    0.0
                }
            })
            .collect();
        let mut rhs = vec![0.0; p.cell_count()];
        crate::stencil::Stencil::of(&p.view()).apply(&hydro, &mut rhs);
        p.rhs = rhs.into();
        assert!(p.complementarity.iter().any(|&s| s != 0));
        let lin = linear(&p);
        assert!(max_diff(&lin, &hydro) < 1e-9);
        for (name, mut solver) in all_solvers(1e-9) {
            let (x, st) = run(solver.as_mut(), &p);
            assert_eq!(st.converged, 1, "{name}: {st:?}");
            assert!(max_diff(&x, &lin) <= 1e-6, "{name} on {dims:?}");
        }
    }
}

#[test]
fn fas_mg_iterations_grow_slowly() {
    let cycles = |n: usize| {
        let p = container([n, n, 1], 3);
        let (_, st) = run(&mut FasMgSolver::new(FasConfig::default()), &p);
        assert_eq!(st.converged, 1, "{n}²: {st:?}");
        st.iterations
    };
    let (small, large) = (cycles(32), cycles(128));
    assert!(large <= 2 * small, "32²: {small} V-cycles, 128²: {large}");
}

#[test]
fn table_12_variants_solve_or_report_non_convergence() {
    let p = container([32, 32, 1], 3);
    let mut counts = Vec::new();
    for (interpolation, boundary, coarse) in [
        (
            Interpolation::Barycentric,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            Interpolation::Trilinear,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            Interpolation::PiecewiseConstant,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            Interpolation::Barycentric,
            Boundary::Simple,
            CoarseMatrix::Galerkin,
        ),
        (
            Interpolation::Barycentric,
            Boundary::OneSided,
            CoarseMatrix::DirectDiscretisation,
        ),
    ] {
        let config = FasConfig {
            interpolation,
            boundary,
            coarse,
            ..FasConfig::default()
        };
        let (x, st) = run(&mut FasMgSolver::new(config), &p);
        assert!(x.iter().all(|v| v.is_finite()), "{config:?}");
        assert_eq!(st.converged, 1, "{config:?}: {st:?}");
        counts.push(st.iterations);
    }
    // Piecewise-constant transfers (orders 1 + 1, not > 2) are the slowest (Table 12).
    assert!(counts[2] > counts[0], "{counts:?}");
}

#[test]
fn the_previous_policy_and_penalty_set_warm_start_the_next_solve() {
    let p = container([32, 32, 1], 3);
    for inner in [InnerSolver::Ic0Pcg, InnerSolver::Multigrid] {
        let mut solvers: Vec<Box<dyn PressureSolver>> = vec![
            Box::new(PolicyIteration::new(PolicyConfig {
                inner,
                ..PolicyConfig::default()
            })),
            Box::new(PenaltyMethod::new(PenaltyConfig {
                outer: PolicyConfig {
                    inner,
                    ..PolicyConfig::default()
                },
                ..PenaltyConfig::default()
            })),
        ];
        for s in &mut solvers {
            let (_, first) = run(s.as_mut(), &p);
            assert!(first.outer_iterations >= 2, "{first:?}");
            // Same problem, cold pressure, remembered control: one linear solve suffices.
            let (_, second) = run(s.as_mut(), &p);
            assert_eq!(second.converged, 1);
            assert_eq!(second.outer_iterations, 1, "{second:?}");
        }
    }
}

#[test]
fn pure_neumann_regions_terminate() {
    // A closed box: singular. With walls in S the LCP has (non-unique) solutions when
    // Σ rhs ≤ 0; with Σ rhs > 0 it has none. No solver may panic or loop forever.
    for shift in [0.0, -1e-2, 1e-2] {
        let mut p = with_walls_in_s(fixtures::build(Scene::ClosedBox, [16, 16, 1], 4));
        for c in 0..p.cell_count() {
            if p.cell_kind[c] == CELL_FLUID {
                p.rhs[c] += shift;
            }
        }
        for (name, mut solver) in all_solvers(1e-6) {
            let (x, st) = run(solver.as_mut(), &p);
            assert!(x.iter().all(|v| v.is_finite()), "{name}, shift {shift}");
            if shift <= 0.0 && st.converged == 1 {
                assert_complementary(&mut p, &x, 1e-5, name);
            }
            if shift > 0.0 {
                assert_eq!(st.converged, 0, "{name}: no solution exists");
            }
        }
    }
    // Linear mode: the zero-mean solution of the projected system.
    let mut p = fixtures::build(Scene::ClosedBox, [16, 16, 1], 4);
    let lin = linear(&p);
    for (name, mut solver) in all_solvers(1e-9) {
        let (x, st) = run(solver.as_mut(), &p);
        assert_eq!(st.converged, 1, "{name}: {st:?}");
        assert!(max_diff(&x, &lin) <= 1e-6, "{name}");
    }
    let _ = &mut p;
}
