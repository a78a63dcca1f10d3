//! Building levels: the finest from the problem, coarser ones by Galerkin aggregation or by
//! rediscretisation. Every coarse cell is computed independently from its children (stencil
//! arithmetic, rows in parallel): no sparse-matrix product.

use super::level::Level;
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;
use std::ops::Range;

mod fine;
mod rediscretise;
pub(crate) use fine::{load_fine, FineCover};
pub(crate) use rediscretise::rediscretise;

/// Below this, a diagonal surplus over the couplings is round-off, not a Dirichlet term (the
/// threshold of `flip_sdk::regions`).
pub(crate) const EXCESS_EPS: f64 = 1e-6;

/// Fine-coordinate range of the children of coarse coordinate `cc` along axis `a`.
#[inline(always)]
pub(crate) fn children(coarse: &Level, fine_dims: [usize; 3], cc: usize, a: usize) -> [usize; 2] {
    if coarse.active[a] {
        [2 * cc, (2 * cc + 2).min(fine_dims[a])]
    } else {
        [cc, cc + 1]
    }
}

/// Kind of a coarse cell from its children's counts of fluid and air cells: with `bubbles`
/// (Chentanez & Müller, finest levels) air if any child is air; otherwise air by majority when
/// `majority`, else fluid if any child is fluid (plain aggregation).
fn coarse_kind(nf: usize, na: usize, bubbles: bool, majority: bool) -> u8 {
    if nf == 0 && na == 0 {
        CELL_SOLID
    } else if (bubbles && na > 0) || (!bubbles && majority && na > nf) || nf == 0 {
        CELL_AIR
    } else {
        CELL_FLUID
    }
}

/// Counts of fluid and air children of coarse cell `cc`.
fn count_children(fine: &Level, coarse: &Level, cc: [usize; 3]) -> (usize, usize) {
    let r = [0, 1, 2].map(|a| children(coarse, fine.dims, cc[a], a));
    let (mut nf, mut na) = (0, 0);
    for k in r[2][0]..r[2][1] {
        for j in r[1][0]..r[1][1] {
            for i in r[0][0]..r[0][1] {
                match fine.kind[fine.at(i, j, k)] {
                    CELL_FLUID => nf += 1,
                    CELL_AIR => na += 1,
                    _ => {}
                }
            }
        }
    }
    (nf, na)
}

/// Sets the kinds of the coarse cells of padded rows `rows` (see [`coarse_kind`]).
fn coarse_kinds(
    fine: &Level,
    coarse: &mut Level,
    bubbles: bool,
    majority: bool,
    rows: Range<usize>,
) {
    let pi = coarse.pdims[0];
    let mut kind = std::mem::take(&mut coarse.kind);
    let c_ref = &*coarse;
    kind.par_chunks_mut(pi).enumerate().for_each(|(pr, row)| {
        if !rows.contains(&pr) {
            return;
        }
        row.fill(CELL_SOLID);
        let Some((cj, ck)) = c_ref.row_jk(pr) else {
            return;
        };
        for ci in 0..c_ref.dims[0] {
            let (nf, na) = count_children(fine, c_ref, [ci, cj, ck]);
            row[ci + 1] = coarse_kind(nf, na, bubbles, majority);
        }
    });
    coarse.kind = kind;
}

/// Galerkin aggregation: `A^H = P₀ᵀ A P₀ / 2^{n+1}` (Lai et al. §4.3, `A^H = R A P`, with
/// piecewise-constant transfers; the ½ offsets aggregation's factor-2 stiffness). Keeps the
/// 5/7-point form: couplings are sums over the fine faces between two blocks, the diagonal is
/// the block sum minus twice the internal couplings. On the finest `bubble_levels` a block with
/// an air child is air (Chentanez & Müller) and couplings into it become Dirichlet terms, so a
/// surface inside a block never makes the coarse operator too soft.
///
/// Dirichlet terms keep the fine Dirichlet point where it is: a term `w / t` of a child (`t` its
/// distance in child cells, from [`Level::dweight`]) lies `1/4 + t/2` coarse cells from the
/// coarse centre, and a coupling into a dropped block reaches the first Dirichlet point along
/// its axis behind the cell it couples to (a short walk; 2 cells more when a wall comes
/// first). Rescaling by a fixed per-level factor instead, which assumes the surface on a
/// coarse face, misplaces surfaces that cross blocks by up to a coarse cell on every level:
/// on a 2D tank whose surface lies on an odd row, V-cycles then grow from 6 (32²) to 13 (512²)
/// instead of staying at 7, and MGPCG on the bench dam break from 3.8 to 6.4 (32² to 256²)
/// instead of 5.6.
pub(crate) fn galerkin(fine: &Level, coarse: &mut Level, depth: usize, bubble_levels: usize) {
    galerkin_rows(fine, coarse, depth, bubble_levels, 0..coarse.rows());
    coarse.compute_unk();
}

/// [`galerkin`] on the coarse padded rows `rows` only (their kinds and one layer's beside),
/// without the final [`Level::compute_unk`]: a distributed rank builds its layers, and the
/// level is completed by gathering every rank's.
pub(crate) fn galerkin_rows(
    fine: &Level,
    coarse: &mut Level,
    depth: usize,
    bubble_levels: usize,
    rows: Range<usize>,
) {
    let layer = if coarse.three_d() { coarse.pdims[1] } else { 1 };
    let kinds = rows.start.saturating_sub(layer)..rows.end + layer;
    coarse_kinds(fine, coarse, depth <= bubble_levels, false, kinds);
    let n_act = coarse.active.iter().filter(|&&a| a).count();
    let g = 1.0 / f64::from(1u32 << (n_act + 1));
    let (cpi, cpj, cpz) = (coarse.pdims[0], coarse.pdims[1], coarse.pz);
    let (cdims, fdims, active, cstride) = (coarse.dims, fine.dims, coarse.active, coarse.stride);
    let fs = fine.stride;
    let kind = &coarse.kind;
    let min = coarse.min_rows();
    coarse
        .diag
        .par_chunks_mut(cpi)
        .zip(coarse.excess.par_chunks_mut(cpi))
        .zip(coarse.dweight.par_chunks_mut(cpi))
        .zip(coarse.off.par_chunks_mut(cpi))
        .enumerate()
        .with_min_len(min)
        .for_each(|(pr, (((diag, excess), dweight), off))| {
            if !rows.contains(&pr) {
                return;
            }
            diag.fill(0.0);
            excess.fill(0.0);
            dweight.fill(0.0);
            off.fill([0.0; 3]);
            let (jp, kp) = (pr % cpj, pr / cpj);
            let (Some(cj), Some(ck)) = (
                jp.checked_sub(1).filter(|&j| j < cdims[1]),
                kp.checked_sub(cpz).filter(|&k| k < cdims[2]),
            ) else {
                return;
            };
            // Child rows: (fine natural row start, first along y, last along y, first along
            // z, last along z).
            let ys = child_range(cj, active[1], fdims[1]);
            let zs = child_range(ck, active[2], fdims[2]);
            let mut rows = [(0usize, [false; 4]); 4];
            let mut nrows = 0;
            for j in ys.0..ys.1 {
                for k in zs.0..zs.1 {
                    let f0 = fine.at(0, j, k) - 1;
                    rows[nrows] = (f0, [j == ys.0, j + 1 == ys.1, k == zs.0, k + 1 == zs.1]);
                    nrows += 1;
                }
            }
            let up = [
                false,
                active[1] && cj + 1 < cdims[1],
                active[2] && ck + 1 < cdims[2],
            ];
            let down = [false, active[1] && cj > 0, active[2] && ck > 0];
            for ci in 0..cdims[0] {
                let pc = pr * cpi + ci + 1;
                if kind[pc] != CELL_FLUID {
                    continue;
                }
                let xs = child_range(ci, active[0], fdims[0]);
                let x_up = active[0] && ci + 1 < cdims[0];
                let x_down = active[0] && ci > 0;
                let has_up = [x_up, up[1], up[2]];
                let has_down = [x_down, down[1], down[2]];
                let fluid_up = [0, 1, 2].map(|a| has_up[a] && kind[pc + cstride[a]] == CELL_FLUID);
                let fluid_down =
                    [0, 1, 2].map(|a| has_down[a] && kind[pc - cstride[a]] == CELL_FLUID);
                let (mut sd, mut internal) = (0.0f64, 0.0f64);
                // Dirichlet terms: as the fine diagonals hold them, rescaled, face weights.
                let (mut d_fine, mut d_coarse, mut d_weight) = (0.0f64, 0.0f64, 0.0f64);
                let mut ext = [0.0f64; 3];
                // A Dirichlet term of face weight `w` at `t` child cells from a child, held
                // as `held` in the child's diagonal.
                let mut dirichlet = |held: f64, w: f64, t: f64| {
                    d_fine += held;
                    d_coarse += w / coarse_distance(t);
                    d_weight += w;
                };
                for &(f0, [yfirst, ylast, zfirst, zlast]) in &rows[..nrows] {
                    for i in xs.0..xs.1 {
                        let f = f0 + i + 1;
                        sd += f64::from(fine.diag[f]);
                        if fine.excess[f] > 0.0 {
                            dirichlet(
                                f64::from(fine.excess[f]),
                                f64::from(fine.dweight[f]),
                                dirichlet_distance(fine, f),
                            );
                        }
                        let o = fine.off[f].map(f64::from);
                        let last = [i + 1 == xs.1, ylast, zlast];
                        let first = [i == xs.0, yfirst, zfirst];
                        for a in 0..3 {
                            if !last[a] {
                                internal += o[a];
                            } else if has_up[a] {
                                if fluid_up[a] {
                                    ext[a] += o[a];
                                } else if o[a] != 0.0 {
                                    dirichlet(
                                        -o[a],
                                        -o[a],
                                        1.0 + distance_beyond(fine, f + fs[a], fs[a] as isize),
                                    );
                                }
                            }
                            if first[a] && has_down[a] && !fluid_down[a] {
                                let o = f64::from(fine.off[f - fs[a]][a]);
                                if o != 0.0 {
                                    dirichlet(
                                        -o,
                                        -o,
                                        1.0 + distance_beyond(fine, f - fs[a], -(fs[a] as isize)),
                                    );
                                }
                            }
                        }
                    }
                }
                diag[ci + 1] = (g * (sd + 2.0 * internal - d_fine + d_coarse)) as f32;
                excess[ci + 1] = (g * d_coarse) as f32;
                dweight[ci + 1] = (g * d_weight) as f32;
                off[ci + 1] = ext.map(|e| (g * e) as f32);
            }
        });
}

/// Mean distance, in the level's cells, from cell `f`'s centre to its Dirichlet points (1 when
/// it has none).
fn dirichlet_distance(level: &Level, f: usize) -> f64 {
    let e = level.excess[f];
    if e > 0.0 {
        f64::from(level.dweight[f] / e)
    } else {
        1.0
    }
}

/// Distance, in the level's cells, from unknown `n` onwards along `step` (a signed stride) to
/// the first Dirichlet point: a short walk through unknowns; 2 cells more when a wall or the
/// walk's end comes first.
fn distance_beyond(level: &Level, n: usize, step: isize) -> f64 {
    let (mut n, mut d) = (n, 0.0);
    for _ in 0..3 {
        let m = n.wrapping_add_signed(step);
        match level.kind[m] {
            CELL_AIR => return d + dirichlet_distance(level, n),
            CELL_FLUID if level.unk[m] != 0 => {
                d += 1.0;
                n = m;
            }
            _ => break,
        }
    }
    d + 2.0
}

/// Coarse-level distance of a Dirichlet point `t` cells of the finer level from a child: the
/// child's centre is a quarter of a coarse cell from its parent's.
#[inline(always)]
fn coarse_distance(t: f64) -> f64 {
    0.25 + 0.5 * t
}

/// Fine coordinates `[lo, hi)` of the children of coarse coordinate `c` along an axis.
#[inline(always)]
fn child_range(c: usize, active: bool, fine_n: usize) -> (usize, usize) {
    if active {
        (2 * c, (2 * c + 2).min(fine_n))
    } else {
        (c, c + 1)
    }
}
