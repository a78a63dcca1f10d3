//! Level 0 from the problem: which rows a load covers ([`FineCover`]) and the load itself.

use super::super::level::{cs_rows, pack_row, Level};
use super::EXCESS_EPS;
use flip_abi::CELL_FLUID;
use flip_sdk::Problem;
use rayon::prelude::*;
use std::ops::Range;

/// Copies the problem's matrix into level 0's natural arrays (couplings kept only between two
/// unknowns, i.e. fluid cells with a positive diagonal; the Dirichlet excess of each diagonal;
/// `unk`) and, in the same pass, into its colour-split arrays ([`Level::pack`]), then its
/// face data ([`super::super::faces::load_fine_faces`]). Returns whether anything differs
/// from what the level held, and the level's uniform coupling (see
/// [`Level::uniform`]), which the caller stores.
///
/// Only the rows of `cover` are loaded (all of them but on a distributed rank, which loads its
/// slab and ghost layers); the others keep what they held.
pub(crate) fn load_fine(
    level: &mut Level,
    p: &Problem<'_>,
    cover: &FineCover,
) -> (bool, Option<f32>) {
    let FineCover {
        rows,
        inner,
        offset,
    } = cover.clone();
    let [ni, nj, nk] = level.dims; // the grid's; `p` may hold a slab of it (see `FineCover`)
    let pi = level.pdims[0];
    let (pkind, pdiag, poff) = (p.cell_kind, p.diag, p.off);
    let (pj, pz, half) = (level.pdims[1], level.pz, level.half);
    let row_of = move |pr: usize| level_row(pr, pj, pz, [nj, nk]);
    let min = level.min_rows();
    // Pass 1: kinds, diagonals and unknowns (the padded `unk` then answers every neighbour
    // query of pass 2 without bounds tests: ghosts are not unknowns).
    let changed_1 = level
        .kind
        .par_chunks_mut(pi)
        .zip(level.diag.par_chunks_mut(pi))
        .zip(level.unk.par_chunks_mut(pi))
        .enumerate()
        .with_min_len(min)
        .map(|(pr, ((kind, diag), unk))| {
            let Some((j, k)) = row_of(pr).filter(|_| rows.contains(&pr)) else {
                return false;
            };
            let base = ni * (j + nj * k) - offset;
            let (pk, pd) = (&pkind[base..base + ni], &pdiag[base..base + ni]);
            let (kind, diag, unk) = (&mut kind[1..=ni], &mut diag[1..=ni], &mut unk[1..=ni]);
            let mut changed = false;
            for i in 0..ni {
                let fluid = pk[i] == CELL_FLUID;
                let d = if fluid { pd[i] } else { 0.0 };
                changed |= kind[i] != pk[i] || diag[i] != d;
                kind[i] = pk[i];
                diag[i] = d;
                unk[i] = u8::from(fluid && pd[i] > 0.0);
            }
            changed
        })
        .reduce(|| false, |a, b| a | b);
    // Pass 2: couplings between unknowns, Dirichlet excess, the uniform coupling, and the
    // colour-split rows (from the natural row just written, in cache).
    type RowStat = (bool, bool, f32, f32, usize);
    let ls = level.stride;
    let ps = [1, ni, ni * nj];
    let axes = if nk > 1 { 3 } else { 2 };
    let unk_all = &level.unk;
    let (changed_2, any, lo, hi, count) = level
        .excess
        .par_chunks_mut(pi)
        .zip(level.off.par_chunks_mut(pi))
        .zip(level.diag.par_chunks(pi))
        .zip(cs_rows(&mut level.cs, &mut level.spans, half))
        .enumerate()
        .with_min_len(min)
        .map(|(pr, (((excess, off), diag), cs))| -> RowStat {
            let unk = &unk_all[pr * pi..][..pi];
            let q = (pr % pj + pr / pj) & 1;
            let mut st: RowStat = (false, false, f32::INFINITY, f32::NEG_INFINITY, 0);
            if !inner.contains(&pr) {
                return st;
            }
            if let Some((j, k)) = row_of(pr) {
                let base = ni * (j + nj * k) - offset;
                for i in 0..ni {
                    let ip = i + 1;
                    let mut o = [0.0f32; 3];
                    let mut e = 0.0f32;
                    if unk[ip] != 0 {
                        let (c, lc) = (base + i, pr * pi + ip);
                        let mut coupled = 0.0f64;
                        for a in 0..axes {
                            if unk_all[lc + ls[a]] != 0 {
                                o[a] = poff[a][c];
                                coupled += f64::from(o[a].abs());
                                st.1 = true;
                                st.2 = st.2.min(o[a]);
                                st.3 = st.3.max(o[a]);
                            }
                            if unk_all[lc - ls[a]] != 0 {
                                coupled += f64::from(poff[a][c - ps[a]].abs());
                            }
                        }
                        let surplus = f64::from(diag[ip]) - coupled;
                        e = if surplus.abs() <= EXCESS_EPS {
                            0.0
                        } else {
                            surplus as f32
                        };
                    }
                    st.0 |= off[ip] != o;
                    excess[ip] = e;
                    off[ip] = o;
                }
            }
            st.4 = pack_row(q, half, (unk, diag, off), cs);
            st
        })
        .reduce(
            || (false, false, f32::INFINITY, f32::NEG_INFINITY, 0),
            |a, b| (a.0 | b.0, a.1 | b.1, a.2.min(b.2), a.3.max(b.3), a.4 + b.4),
        );
    level.unknowns = count;
    // Ghost-fluid face weights behind the Dirichlet terms, face fractions for rediscretising.
    let changed_faces = super::super::faces::load_fine_faces(level, p, inner, offset);
    let uniform = if !any {
        Some(0.0)
    } else if lo == hi {
        Some(lo)
    } else {
        None
    };
    (changed_1 || changed_2 || changed_faces, uniform)
}

/// The rows of level 0 a load covers, and where the problem's cells sit in the grid.
#[derive(Clone, Debug)]
pub(crate) struct FineCover {
    /// Rows whose kinds, diagonals and unknowns are loaded.
    pub rows: Range<usize>,
    /// Rows whose couplings, Dirichlet terms and colour-split arrays are loaded: `rows` less a
    /// layer at each end whose neighbour layer is not loaded (those terms read both).
    pub inner: Range<usize>,
    /// Global linear index of the problem's first cell.
    pub offset: usize,
}

impl FineCover {
    /// The whole of `level`, from a problem of the whole grid.
    pub fn whole(level: &Level) -> Self {
        Self {
            rows: 0..level.rows(),
            inner: 0..level.rows(),
            offset: 0,
        }
    }
}

/// Unpadded `(j, k)` of padded row `pr` for a level with `pj` padded rows per plane.
fn level_row(pr: usize, pj: usize, pz: usize, njk: [usize; 2]) -> Option<(usize, usize)> {
    let j = (pr % pj).checked_sub(1).filter(|&j| j < njk[0])?;
    let k = (pr / pj).checked_sub(pz).filter(|&k| k < njk[1])?;
    Some((j, k))
}
