//! Transfers between a fine level and the next coarser one.
//!
//! Prolongation `P` is Lai et al.'s barycentric interpolation (§4.3): a fine cell takes weight
//! `1 - n/4` from its parent and `1/4` from the parent's face neighbour on its side along each
//! of the `n` halved axes (2D: ½, ¼, ¼; 3D: ¼ each, second order like Karlsson's bilinear eq. 57
//! but sparser). It is one-sided: a neighbour across a wall (no coupling to the parent, or
//! outside the grid, or solid) is dropped and the remaining weights renormalised; an air
//! neighbour keeps its weight with value 0 (Dirichlet). Restriction is `R = Pᵀ / 2ⁿ`, the
//! weighted average that generalises Karlsson's eq. 56, so the V-cycle is symmetric.

use super::level::Level;
use flip_plugin::abi::{CELL_AIR, CELL_FLUID};
use rayon::prelude::*;

/// Weights of the parent and of each neighbour, and the restriction scale, for `coarse`.
fn weights(coarse: &Level) -> (f32, f32, f32) {
    let n = coarse.active.iter().filter(|&&a| a).count();
    (1.0 - 0.25 * n as f32, 0.25, 1.0 / (1u32 << n) as f32)
}

/// Parent coordinate of fine coordinate `f` along an axis.
#[inline(always)]
fn parent(f: usize, active: bool) -> usize {
    if active {
        f >> 1
    } else {
        f
    }
}

/// Padded index of the neighbour of coarse cell `pc` (unpadded coordinate `cc` on `axis`) in
/// direction `up`, if inside the grid.
#[inline(always)]
fn neighbour(coarse: &Level, pc: usize, cc: usize, axis: usize, up: bool) -> Option<usize> {
    if up {
        (cc + 1 < coarse.dims[axis]).then(|| pc + coarse.stride[axis])
    } else {
        (cc > 0).then(|| pc - coarse.stride[axis])
    }
}

/// Whether coarse cells `pc` and its neighbour `nb` (along `axis`, `up` from `pc`) are coupled.
#[inline(always)]
fn coupled(coarse: &Level, pc: usize, nb: usize, axis: usize, up: bool) -> bool {
    let owner = if up { pc } else { nb };
    coarse.coef[owner].off[axis] != 0.0
}

/// Whether the interpolation to a child of `pc` uses neighbour `nb`'s value: always when the
/// parent is not an unknown (air parent, rediscretisation), else only through a coupling.
#[inline(always)]
fn uses(coarse: &Level, pc: usize, nb: usize, axis: usize, up: bool) -> bool {
    coarse.kind[pc] != CELL_FLUID || coupled(coarse, pc, nb, axis, up)
}

/// Fills `fine.inv_norm`: 1 / (sum of kept weights) per fine unknown (all 1 if `!normalise`).
pub(crate) fn compute_inv_norm(fine: &mut Level, coarse: &Level, normalise: bool) {
    let (wp, wn, _) = weights(coarse);
    let pi = fine.pdims[0];
    let (fdims, kind) = (fine.dims, &fine.kind);
    let row_of = |pr: usize| {
        let (jp, kp) = (pr % fine.pdims[1], pr / fine.pdims[1]);
        let j = jp.checked_sub(1).filter(|&j| j < fdims[1])?;
        let k = kp.checked_sub(fine.pz).filter(|&k| k < fdims[2])?;
        Some((j, k))
    };
    fine.inv_norm
        .par_chunks_mut(pi)
        .enumerate()
        .for_each(|(pr, row)| {
            row.fill(1.0);
            let Some((j, k)) = row_of(pr) else { return };
            if !normalise {
                return;
            }
            for i in 0..fdims[0] {
                if kind[pr * pi + i + 1] != CELL_FLUID {
                    continue;
                }
                let f = [i, j, k];
                let cc = [0, 1, 2].map(|a| parent(f[a], coarse.active[a]));
                let pc = coarse.at(cc[0], cc[1], cc[2]);
                let mut norm = wp;
                for a in 0..3 {
                    if !coarse.active[a] {
                        continue;
                    }
                    let up = f[a] & 1 == 1;
                    let Some(nb) = neighbour(coarse, pc, cc[a], a, up) else {
                        continue;
                    };
                    let kept = match coarse.kind[nb] {
                        CELL_FLUID => uses(coarse, pc, nb, a, up),
                        CELL_AIR => true,
                        _ => false,
                    };
                    if kept {
                        norm += wn;
                    }
                }
                row[i + 1] = 1.0 / norm;
            }
        });
}

/// `fine.x (+)= P coarse.x` on fine unknowns (`add`: add, else overwrite).
pub(crate) fn prolong(coarse: &Level, fine: &Level, add: bool) {
    let (wp, wn, _) = weights(coarse);
    let pi = fine.pdims[0];
    let kernel = |pr: usize| {
        let (lo, hi) = fine.spans[pr];
        let Some((j, k)) = fine.row_jk(pr) else {
            return;
        };
        for i in lo as usize..hi as usize {
            let c = pr * pi + i + 1;
            if fine.coef[c].inv_diag == 0.0 {
                continue;
            }
            let f = [i, j, k];
            let cc = [0, 1, 2].map(|a| parent(f[a], coarse.active[a]));
            let pc = coarse.at(cc[0], cc[1], cc[2]);
            let mut v = wp * coarse.x.get(pc);
            for a in 0..3 {
                if !coarse.active[a] {
                    continue;
                }
                let up = f[a] & 1 == 1;
                if let Some(nb) = neighbour(coarse, pc, cc[a], a, up) {
                    if uses(coarse, pc, nb, a, up) {
                        v += wn * coarse.x.get(nb);
                    }
                }
            }
            v *= fine.inv_norm[c];
            fine.x.set(c, if add { fine.x.get(c) + v } else { v });
        }
    };
    if fine.parallel() {
        (0..fine.rows()).into_par_iter().for_each(kernel);
    } else {
        (0..fine.rows()).for_each(kernel);
    }
}

/// `coarse.b = R fine.r = Pᵀ fine.r / 2ⁿ` (`fine.r` already carries the `inv_norm` factor).
pub(crate) fn restrict(fine: &Level, coarse: &mut Level) {
    let mut b = std::mem::take(&mut coarse.b);
    restrict_into(fine, coarse, &mut b);
    coarse.b = b;
}

fn restrict_into(fine: &Level, c_ref: &Level, b: &mut [f32]) {
    let (wp, wn, scale) = weights(c_ref);
    let pi = c_ref.pdims[0];
    let fdims = fine.dims;
    // Range of fine coordinates that are children of coarse coordinate `cc` along `a`.
    let children = |cc: usize, a: usize| -> (usize, usize) {
        if c_ref.active[a] {
            (2 * cc, (2 * cc + 2).min(fdims[a]))
        } else {
            (cc, cc + 1)
        }
    };
    let sum_box = |lo: [usize; 3], hi: [usize; 3]| -> f32 {
        let mut s = 0.0f32;
        for k in lo[2]..hi[2] {
            for j in lo[1]..hi[1] {
                let row = fine.at(0, j, k);
                for i in lo[0]..hi[0] {
                    s += fine.r[row + i];
                }
            }
        }
        s
    };
    let kernel = |pr: usize, out: &mut [f32]| {
        out.fill(0.0);
        let Some((cj, ck)) = c_ref.row_jk(pr) else {
            return;
        };
        let (lo, hi) = c_ref.spans[pr];
        for ci in lo as usize..hi as usize {
            let pc = pr * pi + ci + 1;
            if c_ref.coef[pc].inv_diag == 0.0 {
                continue;
            }
            let cc = [ci, cj, ck];
            let ranges = [0, 1, 2].map(|a| children(cc[a], a));
            let lo3 = ranges.map(|r| r.0);
            let hi3 = ranges.map(|r| r.1);
            let mut v = wp * sum_box(lo3, hi3);
            for a in 0..3 {
                if !c_ref.active[a] {
                    continue;
                }
                for up in [false, true] {
                    let Some(nb) = neighbour(c_ref, pc, cc[a], a, up) else {
                        continue;
                    };
                    // The neighbour's children adjacent to this cell interpolate from it.
                    if !uses(c_ref, nb, pc, a, !up) {
                        continue;
                    }
                    let (mut l, mut h) = (lo3, hi3);
                    let f = if up { 2 * cc[a] + 2 } else { 2 * cc[a] - 1 };
                    if f >= fdims[a] {
                        continue;
                    }
                    l[a] = f;
                    h[a] = f + 1;
                    v += wn * sum_box(l, h);
                }
            }
            out[ci + 1] = scale * v;
        }
    };
    if c_ref.parallel() {
        b.par_chunks_mut(pi)
            .enumerate()
            .for_each(|(pr, out)| kernel(pr, out));
    } else {
        b.chunks_mut(pi)
            .enumerate()
            .for_each(|(pr, out)| kernel(pr, out));
    }
}
