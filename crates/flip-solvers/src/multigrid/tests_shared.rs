//! Sharing hierarchies between solver instances: a borrowed hierarchy gives the same pressure
//! bit for bit, a matrix that differs anywhere is not solved on another's hierarchy, and
//! concurrent solves of one matrix neither deadlock nor disagree.

use super::tests::config;
use super::*;
use crate::fixtures::{self, Scene};
use crate::OwnedProblem;
use flip_abi::CELL_FLUID;
use flip_sdk::PressureSolver;

fn mgpcg(sharing: bool) -> MgPcgSolver {
    let s = MgPcgSolver::new(config(Coarsening::Galerkin, 1e-6)).unwrap();
    if sharing {
        s.sharing()
    } else {
        s
    }
}

/// `p`'s pressure solved from zero by `s` (prepared first, as the SDK does).
fn solve(s: &mut MgPcgSolver, p: &OwnedProblem) -> Vec<f64> {
    let mut q = p.clone();
    q.pressure.fill(0.0);
    s.prepare(&q.view());
    s.solve(&mut q.view()).unwrap();
    q.pressure
}

/// The scene with another right-hand side (the volume correction's role).
fn other_rhs(p: &OwnedProblem) -> OwnedProblem {
    let mut q = p.clone();
    for (c, r) in q.rhs.iter_mut().enumerate() {
        if q.cell_kind[c] == CELL_FLUID {
            *r = ((c * 7919) % 13) as f64 / 13.0 - 0.4;
        }
    }
    q
}

#[test]
fn a_borrowed_hierarchy_solves_bit_for_bit_and_a_changed_matrix_is_not_borrowed() {
    let p = fixtures::build(Scene::AirBubbles, [23, 19, 14], 3);
    let q = other_rhs(&p);
    let (mut a, mut b) = (mgpcg(true), mgpcg(true));
    let mut alone = mgpcg(false);
    solve(&mut a, &p);
    let shared = solve(&mut b, &q);
    assert!(
        !b.built_own(),
        "the second instance built its own hierarchy"
    );
    assert_eq!(
        shared,
        solve(&mut alone, &q),
        "borrowed hierarchy changed the result"
    );
    assert_eq!(b.rebuilds(), 1);

    // One coefficient differs: `b` must not solve on `a`'s hierarchy.
    let mut changed = q.clone();
    let c = changed
        .cell_kind
        .iter()
        .rposition(|&k| k == CELL_FLUID)
        .unwrap();
    changed.diag[c] += 0.5;
    let own = solve(&mut b, &changed);
    assert!(
        b.built_own(),
        "a different matrix was solved on another's hierarchy"
    );
    assert_eq!(own, solve(&mut alone, &changed));
    assert_eq!(b.rebuilds(), 2);
}

#[test]
fn concurrent_solves_of_one_matrix_agree() {
    let p = fixtures::build(Scene::DamBreak, [29, 22, 17], 5);
    let q = other_rhs(&p);
    let reference = [solve(&mut mgpcg(false), &p), solve(&mut mgpcg(false), &q)];
    let mut solvers = [mgpcg(true), mgpcg(true)];
    for round in 0..6 {
        let problems = [&p, &q];
        std::thread::scope(|s| {
            for (i, solver) in solvers.iter_mut().enumerate() {
                let (problem, expected) = (problems[(i + round) % 2], &reference[(i + round) % 2]);
                s.spawn(move || assert_eq!(&solve(solver, problem), expected, "round {round}"));
            }
        });
    }
}

/// A variational problem with one ghost-fluid face narrowed: the same matrix (kinds, diagonal,
/// couplings), another face weight behind a Dirichlet term, which the coarse levels read.
fn narrowed_surface_face(p: &OwnedProblem) -> OwnedProblem {
    let mut q = p.clone();
    let [ni, nj, _] = q.dims;
    let up = ni; // the +y neighbour: the surface is about level
    let c = (0..q.cell_count() - up)
        .find(|&c| {
            (c / ni) % nj + 1 < nj
                && q.cell_kind[c] == CELL_FLUID
                && q.cell_kind[c + up] == flip_abi::CELL_AIR
                && q.face_open[1][c] > 0.5
        })
        .expect("a fluid cell with an open face to air above it");
    q.face_open[1][c] *= 0.5;
    q
}

#[test]
fn a_changed_face_weight_behind_the_surface_rebuilds_the_hierarchy() {
    use crate::fixtures_variational::{build_variational, Boundary, VarScene};
    let p = build_variational(VarScene::Container, [17, 15, 13], Boundary::Variational, 3);
    let q = narrowed_surface_face(&p);
    assert_eq!(
        (&p.diag, &p.off, &p.cell_kind),
        (&q.diag, &q.off, &q.cell_kind)
    );
    let fresh = solve(&mut mgpcg(false), &q);
    // the instance's own hierarchy, built for `p`
    let mut own = mgpcg(false);
    solve(&mut own, &p);
    assert_eq!(solve(&mut own, &q), fresh, "solved on the hierarchy of `p`");
    assert_eq!(own.rebuilds(), 2);
    // another instance's hierarchy, built for `p`
    let (mut a, mut b) = (mgpcg(true), mgpcg(true));
    solve(&mut a, &p);
    assert_eq!(solve(&mut b, &q), fresh, "solved on the hierarchy of `p`");
    assert!(
        b.built_own(),
        "borrowed the hierarchy of another face weight"
    );
}

#[test]
fn a_solve_of_another_problem_than_the_prepared_one_is_verified() {
    // The solve right after `prepare` built the hierarchy skips verifying it only for the very
    // problem it was built from; another one (here a changed diagonal) is verified and rebuilt.
    let p = fixtures::build(Scene::DamBreak, [29, 22, 17], 5);
    let mut changed = p.clone();
    let c = changed
        .cell_kind
        .iter()
        .position(|&k| k == CELL_FLUID)
        .unwrap();
    changed.diag[c] += 0.5;
    let fresh = solve(&mut mgpcg(false), &changed);
    let mut s = mgpcg(true);
    let mut prepared = p.clone();
    s.prepare(&prepared.view());
    let mut q = changed.clone();
    q.pressure.fill(0.0);
    s.solve(&mut q.view()).unwrap();
    assert_eq!(
        q.pressure, fresh,
        "solved on the hierarchy of the prepared problem"
    );
    // and the prepared problem itself, solved right after its build, is bit-identical
    let mut alone = mgpcg(false);
    assert_eq!(solve(&mut s, &p), solve(&mut alone, &p));
}
