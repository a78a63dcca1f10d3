//! The transfers' set-up, when the hierarchy is built: which neighbours each coarse cell's
//! children interpolate from (`mask`) and the fine cells' renormalisation (`inv_norm`).

use super::{bit, parent, weights};
use crate::multigrid::level::Level;
use flip_abi::{CELL_AIR, CELL_FLUID};
use rayon::prelude::*;

/// Fills `coarse.mask`: for each coarse cell, the neighbours its children interpolate from.
/// A neighbour is kept when it is inside the grid and either air (value 0, Dirichlet) or a
/// fluid cell that is coupled to the parent (any fluid neighbour when the parent itself is not
/// an unknown).
pub(crate) fn compute_mask(coarse: &mut Level) {
    let pi = coarse.pdims[0];
    let mut mask = std::mem::take(&mut coarse.mask);
    let c = &*coarse;
    mask.par_chunks_mut(pi).enumerate().for_each(|(pr, row)| {
        row.fill(0);
        let Some((j, k)) = c.row_jk(pr) else { return };
        for i in 0..c.dims[0] {
            let pc = c.at(i, j, k);
            let pos = [i, j, k];
            let mut m = 0u8;
            for (a, &p) in pos.iter().enumerate() {
                if !c.active[a] {
                    continue;
                }
                for up in [false, true] {
                    let nb = if up {
                        if p + 1 >= c.dims[a] {
                            continue;
                        }
                        pc + c.stride[a]
                    } else {
                        if p == 0 {
                            continue;
                        }
                        pc - c.stride[a]
                    };
                    let coupled = {
                        let owner = if up { pc } else { nb };
                        c.off[owner][a] != 0.0
                    };
                    let kept = match c.kind[nb] {
                        CELL_AIR => true,
                        CELL_FLUID => c.kind[pc] != CELL_FLUID || coupled,
                        _ => false,
                    };
                    if kept {
                        m |= bit(a, up);
                    }
                }
            }
            row[i + 1] = m;
        }
    });
    coarse.mask = mask;
}

/// Fills the fine level's `inv_norm` from the coarse mask: 1 / (sum of kept weights) on fine
/// unknowns, 0 elsewhere.
pub(crate) fn compute_inv_norm(fine: &mut Level, coarse: &Level) {
    let (wp, wn, _) = weights(coarse);
    let lut = [0, 1, 2, 3].map(|n| 1.0 / (wp + wn * n as f32));
    let half = fine.half;
    let (fpj, fpz, cpi, cpj, cpz) = (
        fine.pdims[1],
        fine.pz,
        coarse.pdims[0],
        coarse.pdims[1],
        coarse.pz,
    );
    let active = coarse.active;
    let min = fine.min_rows();
    let mut cs = std::mem::take(&mut fine.cs);
    let spans = &fine.spans;
    for (colour, col) in cs.iter_mut().enumerate() {
        let inv_diag = &col.inv_diag;
        col.inv_norm
            .par_chunks_mut(half)
            .enumerate()
            .with_min_len(min)
            .for_each(|(pr, row)| {
                let (lo, hi) = spans[colour][pr];
                if lo >= hi {
                    return;
                }
                let (lo, hi) = (lo as usize, hi as usize);
                let (fj, fk) = (pr % fpj - 1, pr / fpj - fpz);
                let e = (colour + pr % fpj + pr / fpj) & 1;
                let (cj, ck) = (parent(fj, active[1]), parent(fk, active[2]));
                let prow = (cj + 1) + cpj * (ck + cpz);
                // This row's sides along y and z (constant), x from the entry's parity.
                let side = |f: usize, a: usize| if active[a] { bit(a, f & 1 == 1) } else { 0 };
                let yz = side(fj, 1) | side(fk, 2);
                let inv = &inv_diag[pr * half..][..half];
                if active[0] {
                    // Entry h: i = 2h + e - 1, parent at natural coarse index h + e, on its
                    // upper side when e = 0.
                    let sides = yz | bit(0, e == 0);
                    let m = &coarse.mask[prow * cpi + lo + e..][..hi - lo];
                    for (t, w) in row[lo..hi].iter_mut().enumerate() {
                        let n = (m[t] & sides).count_ones() as usize;
                        *w = if inv[lo + t] != 0.0 { lut[n] } else { 0.0 };
                    }
                } else {
                    for h in lo..hi {
                        let ip = 2 * h + e;
                        let n = (coarse.mask[prow * cpi + ip] & yz).count_ones() as usize;
                        row[h] = if inv[h] != 0.0 { lut[n] } else { 0.0 };
                    }
                }
            });
    }
    fine.cs = cs;
}
