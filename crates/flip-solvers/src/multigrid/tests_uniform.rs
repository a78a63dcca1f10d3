//! The rows whose kernels skip the couplings (`level::uniform`): every coupling a flagged row's
//! cells use (also the −y and −z ones that neighbour rows store) is the level's `w`, checked
//! cell by cell on every level; a few odd faces in a dam break (a body's fractional faces)
//! leave the other rows flagged.

use super::hierarchy::Hierarchy;
use super::*;
use crate::fixtures::{build, Scene};
use crate::fixtures_variational::{build_variational, Boundary, ALL_VAR_SCENES};
use flip_abi::CELL_FLUID;
use flip_sdk::OwnedProblem;

/// The couplings `A[c][n]` of cell `c` to its unknown face neighbours.
fn couplings(level: &level::Level, c: usize) -> Vec<f32> {
    let axes = if level.three_d() { 3 } else { 2 };
    let mut out = Vec::new();
    for a in 0..axes {
        let s = level.stride[a];
        if level.unk[c + s] != 0 {
            out.push(level.off[c][a]);
        }
        if level.unk[c - s] != 0 {
            out.push(level.off[c - s][a]);
        }
    }
    out
}

/// Checks every level's flagged rows against the oracle; returns level 0's flagged rows and
/// rows with unknowns.
fn check(p: &mut OwnedProblem, what: &str) -> (usize, usize) {
    let mut h = Hierarchy::new(&MultigridConfig::default());
    h.update(&p.view());
    let mut fine = (0, 0);
    for (l, level) in h.levels.iter().enumerate() {
        let w = level.uniform.unwrap_or(f32::NAN);
        let pi = level.pdims[0];
        let (mut flagged, mut with_unknowns) = (0, 0);
        for pr in 0..level.rows() {
            let cells: Vec<usize> = (1..pi - 1)
                .map(|ip| pr * pi + ip)
                .filter(|&c| level.unk[c] != 0)
                .collect();
            with_unknowns += usize::from(!cells.is_empty());
            if cells.is_empty() || !level.row_uniform(pr) {
                continue;
            }
            flagged += 1;
            for c in cells {
                let odd = couplings(level, c).into_iter().find(|&v| v != w);
                assert_eq!(odd, None, "{what} level {l}: row {pr}, cell {c}: w = {w}");
            }
        }
        if l == 0 {
            fine = (flagged, with_unknowns);
        }
    }
    fine
}

#[test]
fn flagged_rows_use_only_the_uniform_coupling_on_variational_scenes() {
    for dims in [[37, 29, 1], [16, 16, 16], [13, 15, 11]] {
        for scene in ALL_VAR_SCENES {
            let mut p = build_variational(scene, dims, Boundary::Variational, 7);
            check(&mut p, &format!("{scene:?} {dims:?}"));
        }
    }
}

#[test]
fn a_few_odd_faces_unflag_only_the_rows_that_use_them() {
    for dims in [[40, 33, 1], [26, 23, 19]] {
        let mut p = build(Scene::DamBreak, dims, 1);
        let [ni, nj, _] = dims;
        // a body's fractional faces: two liquid cells' couplings to +x, +y (and +z) halved
        let cells = [(3, 9, dims[2] / 2), (5, 15, dims[2] / 3)];
        for &(i, j, k) in &cells {
            let c = i + ni * (j + nj * k);
            assert_eq!(p.cell_kind[c], CELL_FLUID);
            for a in 0..p.dimension {
                p.off[a][c] *= 0.5;
            }
        }
        let (flagged, rows) = check(&mut p, &format!("dam break {dims:?}"));
        // each odd cell unflags its own row and the rows above it along y and z
        let most = rows - cells.len() * (1 + p.dimension - 1);
        assert!(
            flagged >= most,
            "{dims:?}: {flagged} of {rows} rows flagged"
        );
    }
}
