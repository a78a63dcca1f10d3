//! Level 0's face data from the problem's variational faces (Batty, Bertails & Bridson 2007):
//! the open fraction of every face, which rediscretised coarse levels average (Chentanez &
//! Müller 2011), and the face weight behind each ghost-fluid Dirichlet term (Gibou et al.
//! 2002), whose ratio to the diagonal excess is the mean distance θ to the free surface.

use super::level::Level;
use flip_abi::{CELL_AIR, CELL_SOLID};
use flip_sdk::Problem;
use rayon::prelude::*;
use std::ops::Range;

/// Open fraction of the face between natural padded cell `c` of `level` and its `+a`
/// neighbour: the problem's `face_open` when both cells are non-solid, else 0 (ghosts are solid).
#[inline]
fn open_face(level: &Level, p: &Problem<'_>, c: usize, a: usize, pc: usize) -> f32 {
    let nb = c + level.stride[a];
    if nb < level.len() && level.kind[c] != CELL_SOLID && level.kind[nb] != CELL_SOLID {
        p.face_open[a][pc].clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Sets level 0's `dweight` (and `open` when allocated) from `p`. A ghost-fluid term of face
/// `w` adds `w/θ` to the diagonal (Gibou eq. 8 with p = 0 at the surface), so `Σ w` over the
/// faces to air is the weight behind the excess, `excess / Σ w` its harmonic-mean `1/θ`. An
/// excess with no air face behind it (a penalty term) keeps distance 1; a sum above the excess
/// (faces `face_open` claims open that the matrix did not use) is capped at it (θ ≤ 1).
/// Returns whether any of them differs from what the level held (the coarse levels read
/// them, so a change needs a rebuild even when the matrix is the same).
///
/// Only the padded rows `rows` are set; the problem's cell `c` is the grid's `c + offset`.
pub(crate) fn load_fine_faces(
    level: &mut Level,
    p: &Problem<'_>,
    rows: Range<usize>,
    offset: usize,
) -> bool {
    let [ni, nj, nk] = level.dims; // the grid's; `p` may hold a slab of it
    let pi = level.pdims[0];
    let axes = if nk > 1 { 3 } else { 2 };
    let mut dweight = std::mem::take(&mut level.dweight);
    let lv = &*level;
    let weight = |c: usize, pc: usize| {
        let e = lv.excess[c];
        if lv.unk[c] == 0 || e <= 0.0 {
            return 0.0;
        }
        let mut w = 0.0f32;
        for a in 0..axes {
            let up = c + lv.stride[a];
            if lv.kind[up] == CELL_AIR {
                w += open_face(lv, p, c, a, pc);
            }
            let (down, pdown) = (c - lv.stride[a], pc.wrapping_sub([1, ni, ni * nj][a]));
            if lv.kind[down] == CELL_AIR {
                w += open_face(lv, p, down, a, pdown);
            }
        }
        if w > 0.0 {
            w.min(e)
        } else {
            e
        }
    };
    let mut changed = dweight
        .par_chunks_mut(pi)
        .enumerate()
        .map(|(pr, row)| {
            if !rows.contains(&pr) {
                return false;
            }
            let jk = lv.row_jk(pr);
            let mut changed = false;
            for (ip, d) in row.iter_mut().enumerate() {
                let w = match jk {
                    Some((j, k)) if (1..=ni).contains(&ip) => {
                        let i = ip - 1;
                        weight(lv.at(i, j, k), i + ni * (j + nj * k) - offset)
                    }
                    _ => 0.0,
                };
                changed |= d.to_bits() != w.to_bits();
                *d = w;
            }
            changed
        })
        .reduce(|| false, |a, b| a | b);
    level.dweight = dweight;
    if level.open[0].is_empty() {
        return changed;
    }
    let mut open = std::mem::take(&mut level.open);
    let lv = &*level;
    for (a, open) in open.iter_mut().enumerate() {
        changed |= open
            .par_chunks_mut(pi)
            .enumerate()
            .map(|(pr, row)| {
                if !rows.contains(&pr) {
                    return false;
                }
                let jk = lv.row_jk(pr).filter(|_| a < axes);
                let mut changed = false;
                for (ip, o) in row.iter_mut().enumerate() {
                    let v = match jk {
                        Some((j, k)) if (1..=ni).contains(&ip) => {
                            let i = ip - 1;
                            open_face(lv, p, lv.at(i, j, k), a, i + ni * (j + nj * k) - offset)
                        }
                        _ => 0.0,
                    };
                    changed |= o.to_bits() != v.to_bits();
                    *o = v;
                }
                changed
            })
            .reduce(|| false, |a, b| a | b);
    }
    level.open = open;
    changed
}
