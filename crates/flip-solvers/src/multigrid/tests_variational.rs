//! Multigrid on variational problems (fractional faces, ghost-fluid surface): agreement with
//! the direct reference, and iteration counts against the voxelized twin of each scene.

use super::tests::{config, solver, true_residual, Algo, ALGOS};
use super::*;
use crate::direct::solve_reference;
use crate::fixtures_variational::{build_variational, Boundary, VarScene, ALL_VAR_SCENES};
use crate::stencil::norm_inf;
use flip_abi::CELL_FLUID;

const COARSENINGS: [Coarsening; 2] = [Coarsening::Galerkin, Coarsening::Rediscretise];

#[test]
fn every_algorithm_matches_the_direct_reference_on_variational_scenes() {
    for dims in [[32, 32, 1], [37, 29, 1], [16, 16, 16], [13, 15, 11]] {
        for scene in ALL_VAR_SCENES {
            let base = build_variational(scene, dims, Boundary::Variational, 7);
            let mut view_src = base.clone();
            let reference = solve_reference(&view_src.view()).expect("reference solve");
            let scale = norm_inf(&reference).max(1e-3);
            for coarsening in COARSENINGS {
                for algo in ALGOS {
                    let what = format!("{algo:?} {coarsening:?} {scene:?} {dims:?}");
                    let mut p = base.clone();
                    let stats = solver(algo, config(coarsening, 1e-9))
                        .solve(&mut p.view())
                        .expect(&what);
                    let (res, bnorm) = true_residual(&mut p);
                    assert_eq!(stats.converged, 1, "{what}: {stats:?}");
                    assert!(res <= 1e-9 * bnorm + 1e-12, "{what}: residual {res:e}");
                    // a plate straddling coarse blocks slows cycles (see `check_series`)
                    assert!(stats.iterations <= 80, "{what}: {stats:?}");
                    let err = p
                        .pressure
                        .iter()
                        .zip(&reference)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    assert!(err <= 1e-6 * scale, "{what}: ‖p − p_ref‖∞ = {err:e}");
                    let off = (0..p.cell_count()).filter(|&c| p.cell_kind[c] != CELL_FLUID);
                    assert!(off.into_iter().all(|c| p.pressure[c] == 0.0), "{what}");
                }
            }
        }
    }
}

/// Iterations to the default tolerance (relative 10⁻⁶, at most 100).
pub(super) fn count(
    algo: Algo,
    coarsening: Coarsening,
    scene: VarScene,
    boundary: Boundary,
    dims: [usize; 3],
) -> u32 {
    let mut p = build_variational(scene, dims, boundary, 1);
    let cfg = MultigridConfig {
        coarsening,
        ..Default::default()
    };
    let stats = solver(algo, cfg).solve(&mut p.view()).unwrap();
    // a solve that does not converge shows as `max_iterations` (100), far over any bound
    stats.iterations
}

/// The bounds of issue 11 on one size series: variational ≤ 1.25 × voxelized + 1 at every size
/// (the +1 absorbs integer rounding at counts of 3-5), and growth ≤ 1.5× from first to last.
/// Not asserted for [`VarScene::StraddlingPlate`] (printed with `*`): a face closed between two
/// children of one coarse cell makes that coarse unknown couple both sides of the plate. With
/// `strict` false nothing is asserted and a violated bound is marked `!` instead.
fn check_series(scene: VarScene, sizes: &[[usize; 3]], strict: bool) -> Vec<String> {
    let mut rows = Vec::new();
    for coarsening in COARSENINGS {
        for algo in [Algo::MgPcg, Algo::V] {
            let mut line = format!("{scene:?} {algo:?} {coarsening:?}:");
            let mut var = Vec::new();
            for &dims in sizes {
                let v = count(algo, coarsening, scene, Boundary::Voxelized, dims);
                let f = count(algo, coarsening, scene, Boundary::Variational, dims);
                line += &format!(" {}: {v}/{f}", dims[0]);
                if scene == VarScene::StraddlingPlate {
                    continue;
                }
                if !strict && 4 * f > 5 * v + 4 {
                    line += "!";
                }
                assert!(
                    !strict || 4 * f <= 5 * v + 4,
                    "{line}: variational {f} vs voxelized {v} at {dims:?}"
                );
                var.push(f);
            }
            if scene == VarScene::StraddlingPlate {
                rows.push(line + " *");
                continue;
            }
            let (first, last) = (var[0], *var.last().unwrap());
            if !strict && 2 * last > 3 * first {
                line += " growth!";
            }
            assert!(
                !strict || 2 * last <= 3 * first,
                "{line}: growth {first} → {last}"
            );
            rows.push(line);
        }
    }
    rows
}

#[test]
fn variational_iteration_counts_stay_near_the_voxelized_ones() {
    const STRICT: bool = true;
    let two_d = [[32, 32, 1], [64, 64, 1], [128, 128, 1]];
    let three_d = [[16, 16, 16], [32, 32, 32], [64, 64, 64]];
    for scene in ALL_VAR_SCENES {
        for line in check_series(scene, &two_d, STRICT)
            .iter()
            .chain(&check_series(scene, &three_d, STRICT))
        {
            println!("{line}");
        }
    }
}

#[test]
fn levels_take_the_problems_fractions_and_ghost_fluid_distances() {
    use super::hierarchy::Hierarchy;
    use flip_abi::{CELL_AIR, CELL_SOLID};
    use flip_sdk::stencil::ghost_theta;
    let mut p = build_variational(VarScene::Container, [32, 32, 1], Boundary::Variational, 1);
    let cfg = MultigridConfig {
        coarsening: Coarsening::Rediscretise,
        ..Default::default()
    };
    let mut h = Hierarchy::new(&cfg);
    h.update(&p.view());
    let (fine, coarse) = (&h.levels[0], &h.levels[1]);
    let (mut fractional, mut ghost) = (0, 0);
    for j in 0..32 {
        for i in 0..31 {
            let c = p.index(i, j, 0);
            let solid = p.cell_kind[c] == CELL_SOLID || p.cell_kind[c + 1] == CELL_SOLID;
            let want = if solid { 0.0 } else { p.face_open[0][c] };
            assert_eq!(
                fine.open[0][fine.at(i, j, 0)],
                want,
                "level 0 face ({i}, {j})"
            );
            // one air face above, none elsewhere: dweight = open, excess / dweight = 1/θ
            let up = c + 32;
            let only_up = p.cell_kind[c] == CELL_FLUID
                && p.cell_kind[up] == CELL_AIR
                && [c - 1, c + 1, c - 32]
                    .iter()
                    .all(|&n| p.cell_kind[n] != CELL_AIR);
            let f = fine.at(i, j, 0);
            if only_up && fine.unk[f] != 0 && p.face_open[1][c] > 0.0 {
                let theta = ghost_theta(p.liquid_phi[c], p.liquid_phi[up]);
                assert!(
                    (fine.dweight[f] - p.face_open[1][c]).abs() < 1e-5,
                    "({i}, {j})"
                );
                let ratio = fine.excess[f] / fine.dweight[f];
                assert!((ratio * theta - 1.0).abs() < 1e-3, "({i}, {j}): θ {theta}");
                ghost += usize::from(theta < 0.99);
            }
        }
    }
    // rediscretised level 1: the mean of the two fine x-faces under each coarse x-face
    for cj in 0..coarse.dims[1] {
        for ci in 0..coarse.dims[0] - 1 {
            let under = |j: usize| fine.open[0][fine.at(2 * ci + 1, j, 0)];
            let mean = 0.5 * (under(2 * cj) + under(2 * cj + 1));
            let got = coarse.open[0][coarse.at(ci, cj, 0)];
            assert!(
                (got - mean).abs() < 1e-6,
                "coarse face ({ci}, {cj}): {got} vs {mean}"
            );
            fractional += usize::from(mean > 0.0 && mean < 1.0);
        }
    }
    assert!(fractional > 0 && ghost > 0, "{fractional} {ghost}");
}

#[test]
fn the_sphere_with_slivers_keeps_its_counts_at_128() {
    // The cut sphere's slivers (fractions to 10⁻⁴) cost 3× the iterations at 128³ before
    // coarse slivers were made solid (`slivers`): MGPCG 24 instead of 8, V-cycles 62 instead of 11.
    let dims = [128, 128, 128];
    for algo in [Algo::MgPcg, Algo::V] {
        let v = count(
            algo,
            Coarsening::Galerkin,
            VarScene::Container,
            Boundary::Voxelized,
            dims,
        );
        let f = count(
            algo,
            Coarsening::Galerkin,
            VarScene::Container,
            Boundary::Variational,
            dims,
        );
        assert!(
            4 * f <= 5 * v + 4,
            "{algo:?}: variational {f} vs voxelized {v}"
        );
    }
}
