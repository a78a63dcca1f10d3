//! Building levels: the finest from the problem, coarser ones by Galerkin aggregation or by
//! rediscretisation. Every coarse cell is computed independently from its children (stencil
//! arithmetic, rows in parallel): no sparse-matrix product.

use super::level::{Coef, Level};
use flip_plugin::abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
use flip_plugin::sdk::Problem;
use rayon::prelude::*;

/// Below this, a diagonal surplus over the couplings is round-off, not a Dirichlet term (the
/// threshold of `neumann::Regions`).
const EXCESS_EPS: f64 = 1e-6;

/// Copies the problem's matrix into level 0 (coupling to non-fluid or outside cells dropped),
/// returning whether anything differs from what the level held.
pub(crate) fn load_fine(level: &mut Level, p: &Problem<'_>) -> bool {
    let [ni, nj, nk] = p.dims;
    let pi = level.pdims[0];
    let s = [1, ni, ni * nj];
    let dims = p.dims;
    let fluid = |c: usize| p.cell_kind[c] == CELL_FLUID;
    let row_of = |pr: usize| level_row(pr, level.pdims[1], level.pz, [nj, nk]);
    let changed = level
        .kind
        .par_chunks_mut(pi)
        .zip(level.diag.par_chunks_mut(pi))
        .zip(level.excess.par_chunks_mut(pi))
        .zip(level.coef.par_chunks_mut(pi))
        .enumerate()
        .map(|(pr, (((kind, diag), excess), coef))| {
            let Some((j, k)) = row_of(pr) else {
                return false;
            };
            let mut changed = false;
            for i in 0..ni {
                let c = i + ni * (j + nj * k);
                let pos = [i, j, k];
                let (mut d, mut e, mut off) = (0.0f32, 0.0f32, [0.0f32; 3]);
                if fluid(c) {
                    d = p.diag[c];
                    let mut coupled = 0.0f64;
                    for a in 0..3 {
                        if pos[a] + 1 < dims[a] && fluid(c + s[a]) {
                            off[a] = p.off[a][c];
                            coupled += (p.off[a][c] as f64).abs();
                        }
                        if pos[a] > 0 && fluid(c - s[a]) {
                            coupled += (p.off[a][c - s[a]] as f64).abs();
                        }
                    }
                    let surplus = d as f64 - coupled;
                    e = if surplus.abs() <= EXCESS_EPS {
                        0.0
                    } else {
                        surplus as f32
                    };
                }
                let new = Coef {
                    inv_diag: coef[i + 1].inv_diag,
                    off,
                };
                changed |= kind[i + 1] != p.cell_kind[c] || diag[i + 1] != d || coef[i + 1] != new;
                kind[i + 1] = p.cell_kind[c];
                diag[i + 1] = d;
                excess[i + 1] = e;
                coef[i + 1] = new;
            }
            changed
        })
        .reduce(|| false, |a, b| a | b);
    if !level.open[0].is_empty() {
        fine_open_faces(level);
    }
    changed
}

/// Unpadded `(j, k)` of padded row `pr` for a level with `pj` padded rows per plane.
fn level_row(pr: usize, pj: usize, pz: usize, njk: [usize; 2]) -> Option<(usize, usize)> {
    let j = (pr % pj).checked_sub(1).filter(|&j| j < njk[0])?;
    let k = (pr / pj).checked_sub(pz).filter(|&k| k < njk[1])?;
    Some((j, k))
}

/// Level 0 face openness: 1 between two non-solid cells, else 0.
fn fine_open_faces(level: &mut Level) {
    let n = level.len();
    let (kind, stride, dims) = (&level.kind, level.stride, level.dims);
    for (a, open) in level.open.iter_mut().enumerate() {
        if dims[a] == 1 {
            open.fill(0.0);
            continue;
        }
        open.par_iter_mut().enumerate().for_each(|(c, o)| {
            let nb = c + stride[a];
            *o = if nb < n && kind[c] != CELL_SOLID && kind[nb] != CELL_SOLID {
                1.0
            } else {
                0.0
            };
        });
    }
}

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

/// Sets the kinds of every coarse cell (see [`coarse_kind`]).
fn coarse_kinds(fine: &Level, coarse: &mut Level, bubbles: bool, majority: bool) {
    let pi = coarse.pdims[0];
    let mut kind = std::mem::take(&mut coarse.kind);
    let c_ref = &*coarse;
    kind.par_chunks_mut(pi).enumerate().for_each(|(pr, row)| {
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
/// surface inside a block never makes the coarse operator too soft. Dirichlet terms are
/// rescaled to keep the distance to the fine Dirichlet point ([`theta`]).
pub(crate) fn galerkin(fine: &Level, coarse: &mut Level, depth: usize, bubble_levels: usize) {
    coarse_kinds(fine, coarse, depth <= bubble_levels, false);
    let n_act = coarse.active.iter().filter(|&&a| a).count();
    let g = 1.0 / f64::from(1u32 << (n_act + 1));
    let kappa = theta(depth - 1) / theta(depth);
    // A coupling into a dropped block: its Dirichlet point is at least one finer cell further.
    let kappa_c = 1.0 / (1.0 + 0.5f64.powi(depth as i32 + 1));
    let pi = coarse.pdims[0];
    let (cdims, fdims) = (coarse.dims, fine.dims);
    let c_ref = &*coarse;
    let rows: Vec<_> = (0..coarse.rows())
        .into_par_iter()
        .map(|pr| {
            let mut out = vec![(CELL_SOLID, 0.0f32, 0.0f32, Coef::default()); pi];
            let Some((cj, ck)) = c_ref.row_jk(pr) else {
                return out;
            };
            for ci in 0..cdims[0] {
                let pc = pr * pi + ci + 1;
                out[ci + 1].0 = c_ref.kind[pc];
                if c_ref.kind[pc] != CELL_FLUID {
                    continue;
                }
                let cc = [ci, cj, ck];
                let r = [0, 1, 2].map(|a| children(c_ref, fdims, cc[a], a));
                let (mut sd, mut se, mut internal, mut conv) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                let mut ext = [0.0f64; 3];
                for k in r[2][0]..r[2][1] {
                    for j in r[1][0]..r[1][1] {
                        for i in r[0][0]..r[0][1] {
                            let f = fine.at(i, j, k);
                            sd += fine.diag[f] as f64;
                            se += fine.excess[f] as f64;
                            let pos = [i, j, k];
                            for a in 0..3 {
                                let o = fine.coef[f].off[a] as f64;
                                if pos[a] + 1 < r[a][1] {
                                    internal += o;
                                } else if c_ref.active[a] && cc[a] + 1 < cdims[a] {
                                    if c_ref.kind[pc + c_ref.stride[a]] == CELL_FLUID {
                                        ext[a] += o;
                                    } else {
                                        conv -= o;
                                    }
                                }
                                if pos[a] == r[a][0] && c_ref.active[a] && cc[a] > 0 {
                                    let o = fine.coef[f - fine.stride[a]].off[a] as f64;
                                    if c_ref.kind[pc - c_ref.stride[a]] != CELL_FLUID {
                                        conv -= o;
                                    }
                                }
                            }
                        }
                    }
                }
                let cell = &mut out[ci + 1];
                let extra = (kappa - 1.0) * se + (kappa_c - 1.0) * conv;
                cell.1 = (g * (sd + 2.0 * internal + extra)) as f32;
                cell.2 = (g * (kappa * se + kappa_c * conv)) as f32;
                cell.3.off = ext.map(|e| (g * e) as f32);
            }
            out
        })
        .collect();
    scatter_rows(coarse, rows);
}

/// Distance, in cells of level `depth`, from a cell centre next to the free surface to the
/// Dirichlet point of the fine grid (half a fine cell beyond the face): `1/2 + 2^-(depth+1)`.
pub(crate) fn theta(depth: usize) -> f64 {
    0.5 + 0.5f64.powi(depth as i32 + 1)
}

/// Writes per-row `(kind, diag, excess, coef)` results into the level and finishes it.
fn scatter_rows(level: &mut Level, rows: Vec<Vec<(u8, f32, f32, Coef)>>) {
    let pi = level.pdims[0];
    level
        .kind
        .par_chunks_mut(pi)
        .zip(level.diag.par_chunks_mut(pi))
        .zip(level.excess.par_chunks_mut(pi))
        .zip(level.coef.par_chunks_mut(pi))
        .zip(rows.par_iter())
        .for_each(|((((kind, diag), excess), coef), row)| {
            for (i, &(k, d, e, cf)) in row.iter().enumerate() {
                kind[i] = k;
                diag[i] = d;
                excess[i] = e;
                coef[i] = cf;
            }
        });
    level.finish();
}

/// Rediscretisation (Chentanez & Müller): coarse kinds by the bubble-preserving rule, face
/// openness as the mean over the fine faces, and the unit stencil on open faces scaled by
/// `(h/H)² = 1/4` per level. `depth` is the coarse level's index (1 = first coarse level).
pub(crate) fn rediscretise(fine: &Level, coarse: &mut Level, depth: usize, bubble_levels: usize) {
    let (cdims, fdims) = (coarse.dims, fine.dims);
    let pi = coarse.pdims[0];
    let sigma = 0.25f32.powi(depth as i32);
    let dirichlet = (1.0 / theta(depth)) as f32;
    // Pass 1: kinds (air if any child is air on the finest levels, "preserve air bubbles";
    // majority below) and face openness.
    let c_ref = &*coarse;
    let rows: Vec<(Vec<u8>, [Vec<f32>; 3])> = (0..coarse.rows())
        .into_par_iter()
        .map(|pr| {
            let mut kinds = vec![CELL_SOLID; pi];
            let mut open = [vec![0.0f32; pi], vec![0.0f32; pi], vec![0.0f32; pi]];
            let Some((cj, ck)) = c_ref.row_jk(pr) else {
                return (kinds, open);
            };
            for ci in 0..cdims[0] {
                let cc = [ci, cj, ck];
                let r = [0, 1, 2].map(|a| children(c_ref, fdims, cc[a], a));
                let (mut nf, mut na) = (0, 0);
                let mut face = [(0.0f32, 0u32); 3];
                for k in r[2][0]..r[2][1] {
                    for j in r[1][0]..r[1][1] {
                        for i in r[0][0]..r[0][1] {
                            let f = fine.at(i, j, k);
                            match fine.kind[f] {
                                CELL_FLUID => nf += 1,
                                CELL_AIR => na += 1,
                                _ => {}
                            }
                            let pos = [i, j, k];
                            for a in 0..3 {
                                let last = pos[a] + 1 == r[a][1];
                                if last && c_ref.active[a] && cc[a] + 1 < cdims[a] {
                                    face[a].0 += fine.open[a][f];
                                    face[a].1 += 1;
                                }
                            }
                        }
                    }
                }
                kinds[ci + 1] = coarse_kind(nf, na, depth <= bubble_levels, true);
                for a in 0..3 {
                    if face[a].1 > 0 {
                        open[a][ci + 1] = face[a].0 / face[a].1 as f32;
                    }
                }
            }
            (kinds, open)
        })
        .collect();
    for (pr, (kinds, open)) in rows.into_iter().enumerate() {
        let span = pr * pi..(pr + 1) * pi;
        coarse.kind[span.clone()].copy_from_slice(&kinds);
        for (dst, src) in coarse.open.iter_mut().zip(&open) {
            dst[span.clone()].copy_from_slice(src);
        }
    }
    // Pass 2: unit stencil on open faces; air neighbours are Dirichlet.
    let c_ref = &*coarse;
    let rows: Vec<_> = (0..coarse.rows())
        .into_par_iter()
        .map(|pr| {
            let mut out = vec![(CELL_SOLID, 0.0f32, 0.0f32, Coef::default()); pi];
            let Some((cj, ck)) = c_ref.row_jk(pr) else {
                return out;
            };
            for ci in 0..cdims[0] {
                let pc = pr * pi + ci + 1;
                let cell = &mut out[ci + 1];
                cell.0 = c_ref.kind[pc];
                if cell.0 != CELL_FLUID {
                    continue;
                }
                let cc = [ci, cj, ck];
                for a in 0..3 {
                    for up in [false, true] {
                        let nb = if up {
                            (cc[a] + 1 < cdims[a]).then(|| pc + c_ref.stride[a])
                        } else {
                            (cc[a] > 0).then(|| pc - c_ref.stride[a])
                        };
                        let Some(nb) = nb else { continue };
                        let w = sigma * c_ref.open[a][if up { pc } else { nb }];
                        if w == 0.0 {
                            continue;
                        }
                        match c_ref.kind[nb] {
                            CELL_FLUID => {
                                cell.1 += w;
                                if up {
                                    cell.3.off[a] = -w;
                                }
                            }
                            CELL_AIR => {
                                let w = w * dirichlet;
                                cell.1 += w;
                                cell.2 += w;
                            }
                            _ => {}
                        }
                    }
                }
            }
            out
        })
        .collect();
    scatter_rows(coarse, rows);
}
