//! Transfers between a fine level and the next coarser one.
//!
//! Prolongation `P` is Lai et al.'s barycentric interpolation (§4.3): a fine cell takes weight
//! `1 - n/4` from its parent and `1/4` from the parent's face neighbour on its side along each
//! of the `n` halved axes (2D: ½, ¼, ¼; 3D: ¼ each, second order like Karlsson's bilinear eq. 57
//! but sparser). It is one-sided: a neighbour across a wall (no coupling to the parent, or
//! outside the grid, or solid) is dropped and the remaining weights renormalised; an air
//! neighbour keeps its weight with value 0 (Dirichlet). Restriction is `R = Pᵀ / 2ⁿ`, the
//! weighted average that generalises Karlsson's eq. 56, so the V-cycle is symmetric.
//!
//! Which neighbours a coarse cell's children use is the coarse level's `mask`; the fine level's
//! `inv_norm` holds the renormalisation. Both are computed when the hierarchy is built. The
//! kernels work on whole rows: a fine colour row `e` reads the coarse natural row at `h + e`
//! (parent) and `h + 1 - e` (x neighbour), contiguous slices.

use super::level::Level;
use crate::hierarchy::Transfer;
use rayon::prelude::*;
use std::ops::Range;

mod masks;
pub(crate) use masks::{compute_inv_norm, compute_mask};

/// Lai et al.'s barycentric interpolation and its scaled transpose: the linear hierarchy's
/// transfers.
pub(crate) struct Barycentric;

impl Transfer<Level> for Barycentric {
    /// After a forward sweep, which ends with a black half-sweep, the black residual vanishes:
    /// only red cells are restricted.
    fn restrict(&self, fine: &Level, coarse: &mut Level, after_forward: bool) {
        restrict(fine, coarse, after_forward);
    }
    fn prolong(&self, coarse: &mut Level, fine: &mut Level, add: bool, only: Option<usize>) {
        prolong(coarse, fine, add, only);
    }
}

/// Weights of the parent and of each neighbour, and the restriction scale, for `coarse`.
fn weights(coarse: &Level) -> (f32, f32, f32) {
    let n = coarse.active.iter().filter(|&&a| a).count();
    (1.0 - 0.25 * n as f32, 0.25, 1.0 / (1u32 << n) as f32)
}

/// Mask bit for the neighbour along `axis`, above (`up`) or below.
#[inline(always)]
pub(crate) const fn bit(axis: usize, up: bool) -> u8 {
    1 << (2 * axis + up as usize)
}

/// A fine coordinate contributing to a coarse cell's restriction: `None` for a child, `Some((coarse
/// neighbour, bit))` for a cell of the adjacent layer, which interpolates from the coarse cell
/// when the neighbour's mask has `bit`.
type AxisRow = (usize, Option<(usize, u8)>);

/// Parent coordinate of fine coordinate `f` along an axis.
#[inline(always)]
fn parent(f: usize, active: bool) -> usize {
    if active {
        f >> 1
    } else {
        f
    }
}

/// One axis' contribution rows of the restriction for coarse coordinate `c` (see [`AxisRow`])
/// and their number.
fn axis_rows(
    c: usize,
    active: bool,
    fine_n: usize,
    coarse_n: usize,
    axis: usize,
) -> ([AxisRow; 4], usize) {
    let mut out = [(0, None); 4];
    let mut n = 0;
    if !active {
        out[0] = (c, None);
        return (out, 1);
    }
    for f in [2 * c, 2 * c + 1] {
        if f < fine_n {
            out[n] = (f, None);
            n += 1;
        }
    }
    if c > 0 {
        out[n] = (2 * c - 1, Some((c - 1, bit(axis, true))));
        n += 1;
    }
    if c + 1 < coarse_n && 2 * c + 2 < fine_n {
        out[n] = (2 * c + 2, Some((c + 1, bit(axis, false))));
        n += 1;
    }
    (out, n)
}

/// One coarse natural row of the restriction with x halved: `v[t]` (coarse `cip = lo + t`)
/// gathers from the fine colour rows `re0` (`e = 0`) and `re1` (`e = 1`), only those enabled
/// by `E0`, `E1` (a colour whose residual is known to vanish is skipped). Fine `ip = 2 cip - 1`
/// is entry `cip - 1` of `re1` and `ip = 2 cip` entry `cip` of `re0` (children); the adjacent
/// `ip = 2 cip - 2` and `2 cip + 1` are entries `cip - 1` of `re0` and `cip` of `re1`. `adj`:
/// for a row of the adjacent layer along y or z, the mask row of the parent of its cells and
/// the bit saying they interpolate from the coarse cell; `None` for a row of children.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn restrict_row<const E0: bool, const E1: bool>(
    (v, re0, re1, lo, m_self, adj, wp, wn): (
        &mut [f32],
        &[f32],
        &[f32],
        usize,
        &[u8],
        Option<(&[u8], u8)>,
        f32,
        f32,
    ),
) {
    let n = v.len();
    let a1 = if E1 { &re1[lo - 1..][..n] } else { &[][..] };
    let a0 = if E0 { &re0[lo..][..n] } else { &[][..] };
    let pair = |t: usize| -> f32 {
        match (E0, E1) {
            (true, true) => a1[t] + a0[t],
            (true, false) => a0[t],
            _ => a1[t],
        }
    };
    match adj {
        None => {
            let (ml, mh) = (&m_self[lo - 1..][..n], &m_self[lo + 1..][..n]);
            let x0 = if E0 { &re0[lo - 1..][..n] } else { &[][..] };
            let x1 = if E1 { &re1[lo..][..n] } else { &[][..] };
            let (bl, bh) = (bit(0, true), bit(0, false));
            for t in 0..n {
                let l = if E0 && ml[t] & bl != 0 { x0[t] } else { 0.0 };
                let h = if E1 && mh[t] & bh != 0 { x1[t] } else { 0.0 };
                v[t] += wp * pair(t) + wn * (l + h);
            }
        }
        Some((m, b)) => {
            let m = &m[lo..][..n];
            for t in 0..n {
                v[t] += if m[t] & b != 0 { wn * pair(t) } else { 0.0 };
            }
        }
    }
}

/// `coarse.b = R fine.r = Pᵀ fine.r / 2ⁿ` (`fine.r` already carries the `inv_norm` factor).
/// With `red_only`, the fine residual is taken as zero on black cells (after a black
/// half-sweep it is, up to round-off) and `fine.r` is not read there.
pub(crate) fn restrict(fine: &Level, coarse: &mut Level, red_only: bool) {
    let rows = 0..coarse.rows();
    restrict_rows(fine, coarse, red_only, rows);
}

/// [`restrict`] on the coarse padded rows `rows` only (the others keep their `b`).
pub(crate) fn restrict_rows(fine: &Level, coarse: &mut Level, red_only: bool, rows: Range<usize>) {
    let (wp, wn, scale) = weights(coarse);
    let (cpi, chalf, fhalf) = (coarse.pdims[0], coarse.half, fine.half);
    let fast = coarse.active[0];
    let parallel = coarse.parallel();
    let min = coarse.min_rows();
    let (c_dims, f_dims, c_active) = (coarse.dims, fine.dims, coarse.active);
    let (cpj, cpz, fpj, fpz) = (coarse.pdims[1], coarse.pz, fine.pdims[1], fine.pz);
    let [cc0, cc1] = &mut coarse.cs;
    let (b0, b1) = (&mut cc0.b, &mut cc1.b);
    let inv = [&cc0.inv_diag, &cc1.inv_diag];
    let (mask, spans) = (&coarse.mask, &coarse.spans);
    let fr = [&fine.cs[0].r, &fine.cs[1].r];
    let crow = |j: usize, k: usize| (j + 1) + cpj * (k + cpz);
    let kernel = |pr: usize, v: &mut [f32], b0: &mut [f32], b1: &mut [f32]| {
        let (s0, s1) = (spans[0][pr], spans[1][pr]);
        if !rows.contains(&pr) || (s0.0 >= s0.1 && s1.0 >= s1.1) {
            return;
        }
        let (cj, ck) = (pr % cpj - 1, pr / cpj - cpz);
        let cq = (pr % cpj + pr / cpj) & 1;
        // Natural coarse range covering both colours' spans.
        let (mut lo, mut hi) = (usize::MAX, 0);
        for (colour, s) in [(0usize, s0), (1usize, s1)] {
            if s.0 < s.1 {
                let e = (colour + cq) & 1;
                lo = lo.min(2 * s.0 as usize + e);
                hi = hi.max(2 * (s.1 as usize - 1) + e + 1);
            }
        }
        let v = &mut v[lo..hi];
        v.fill(0.0);
        let (ys, ny) = axis_rows(cj, c_active[1], f_dims[1], c_dims[1], 1);
        let (zs, nz) = axis_rows(ck, c_active[2], f_dims[2], c_dims[2], 2);
        for &(fj, yadj) in &ys[..ny] {
            for &(fk, zadj) in &zs[..nz] {
                // The neighbour whose mask decides, and its bit; None for a child row.
                let adj = match (yadj, zadj) {
                    (None, None) => None,
                    (Some((nj, b)), None) => Some((crow(nj, ck), b)),
                    (None, Some((nk, b))) => Some((crow(cj, nk), b)),
                    (Some(_), Some(_)) => continue,
                };
                let frow = (fj + 1) + fpj * (fk + fpz);
                let q = (fj + 1 + fk + fpz) & 1;
                let (re0, re1) = (&fr[q][frow * fhalf..], &fr[q ^ 1][frow * fhalf..]);
                if fast {
                    let m_self = &mask[pr * cpi..];
                    let adj = adj.map(|(nrow, b)| (&mask[nrow * cpi..], b));
                    let args = (&mut *v, re0, re1, lo, m_self, adj, wp, wn);
                    match (red_only, q) {
                        (false, _) => restrict_row::<true, true>(args),
                        // Red is colour 0: the e = 0 colour of rows with q = 0.
                        (true, 0) => restrict_row::<true, false>(args),
                        (true, _) => restrict_row::<false, true>(args),
                    }
                } else {
                    // x not halved: fine ip = cip.
                    for (t, out) in v.iter_mut().enumerate() {
                        let ip = lo + t;
                        if red_only && (ip + q) & 1 != 0 {
                            continue;
                        }
                        let rf = if ip & 1 == 0 {
                            re0[ip >> 1]
                        } else {
                            re1[ip >> 1]
                        };
                        match adj {
                            None => *out += wp * rf,
                            Some((nrow, b)) => {
                                if mask[nrow * cpi + ip] & b != 0 {
                                    *out += wn * rf;
                                }
                            }
                        }
                    }
                }
            }
        }
        for (t, &val) in v.iter().enumerate() {
            let cip = lo + t;
            let (colour, h) = ((cip + cq) & 1, cip >> 1);
            let out = if colour == 0 { &mut *b0 } else { &mut *b1 };
            out[h] = if inv[colour][pr * chalf + h] != 0.0 {
                scale * val
            } else {
                0.0
            };
        }
    };
    let scratch = &mut coarse.scratch;
    if parallel {
        scratch
            .par_chunks_mut(cpi)
            .zip(b0.par_chunks_mut(chalf))
            .zip(b1.par_chunks_mut(chalf))
            .enumerate()
            .with_min_len(min)
            .for_each(|(pr, ((v, b0), b1))| kernel(pr, v, b0, b1));
    } else {
        scratch
            .chunks_mut(cpi)
            .zip(b0.chunks_mut(chalf))
            .zip(b1.chunks_mut(chalf))
            .enumerate()
            .for_each(|(pr, ((v, b0), b1))| kernel(pr, v, b0, b1));
    }
}

/// `fine.x (+)= P coarse.x` on the fine unknowns of `colour` (`None`: both colours; `add`:
/// add, else overwrite). A red-black half-sweep overwrites its colour without reading it, so
/// the colour updated first after the prolongation need not be interpolated. Uses (and
/// overwrites) the coarse level's natural scratch array.
pub(crate) fn prolong(coarse: &mut Level, fine: &mut Level, add: bool, colour: Option<usize>) {
    let rows = 0..coarse.rows();
    prolong_from_rows(coarse, fine, add, colour, rows, None);
}

/// [`prolong`] reading only the coarse padded rows `rows` (those the fine level's spans
/// interpolate from: a rank's part of a divided level), and writing only the fine padded rows
/// `pr` with `fine_rows[pr]` when given.
pub(crate) fn prolong_from_rows(
    coarse: &mut Level,
    fine: &mut Level,
    add: bool,
    colour: Option<usize>,
    rows: Range<usize>,
    fine_rows: Option<&[bool]>,
) {
    let colour_only = colour;
    coarse.x_to_scratch(rows);
    let (wp, wn, _) = weights(coarse);
    let coarse = &*coarse;
    let (cpi, cpj, cpz) = (coarse.pdims[0], coarse.pdims[1], coarse.pz);
    let (fhalf, fpj, fpz) = (fine.half, fine.pdims[1], fine.pz);
    let c_active = coarse.active;
    let fast = c_active[0];
    let (xn, mask) = (&coarse.scratch, &coarse.mask);
    let parallel = fine.parallel();
    let min = fine.min_rows();
    let crow = |j: usize, k: usize| (j + 1) + cpj * (k + cpz);
    for colour in 0..2 {
        if colour != colour_only.unwrap_or(colour) {
            continue;
        }
        let spans = &fine.spans[colour];
        let col = &mut fine.cs[colour];
        let inv_norm = &col.inv_norm;
        let kernel = |pr: usize, x: &mut [f32]| {
            let (lo, hi) = spans[pr];
            if lo >= hi || fine_rows.is_some_and(|m| !m[pr]) {
                return;
            }
            let (lo, hi) = (lo as usize, hi as usize);
            let (fj, fk) = (pr % fpj - 1, pr / fpj - fpz);
            let e = (colour + pr % fpj + pr / fpj) & 1;
            let (cj, ck) = (parent(fj, c_active[1]), parent(fk, c_active[2]));
            let prow = crow(cj, ck);
            // Side along y and z, and the neighbour row on that side (the parent row when
            // there is none: its mask bit is clear).
            let side = |f: usize, c: usize, active: bool, axis: usize| -> (usize, u8) {
                if !active {
                    return (prow, 0);
                }
                let up = f & 1 == 1;
                let n = if up { Some(c + 1) } else { c.checked_sub(1) };
                let Some(n) = n.filter(|&n| n < coarse.dims[axis]) else {
                    return (prow, 0);
                };
                let row = if axis == 1 { crow(n, ck) } else { crow(cj, n) };
                (row, bit(axis, up))
            };
            let (yrow, by) = side(fj, cj, c_active[1], 1);
            let (zrow, bz) = side(fk, ck, c_active[2], 2);
            let n = hi - lo;
            let w = &inv_norm[pr * fhalf + lo..][..n];
            let x = &mut x[lo..hi];
            if fast {
                // Parent at natural coarse h + e, x neighbour at h + 1 - e.
                let bx = bit(0, e == 0);
                let par = &xn[prow * cpi + lo + e..][..n];
                let m = &mask[prow * cpi + lo + e..][..n];
                let nx = &xn[prow * cpi + lo + 1 - e..][..n];
                let ny = &xn[yrow * cpi + lo + e..][..n];
                let nz = &xn[zrow * cpi + lo + e..][..n];
                for t in 0..n {
                    let mt = m[t];
                    let vx = if mt & bx != 0 { nx[t] } else { 0.0 };
                    let vy = if mt & by != 0 { ny[t] } else { 0.0 };
                    let vz = if mt & bz != 0 { nz[t] } else { 0.0 };
                    let v = (wp * par[t] + wn * (vx + vy + vz)) * w[t];
                    x[t] = if add { x[t] + v } else { v };
                }
            } else {
                for t in 0..n {
                    let ip = 2 * (lo + t) + e;
                    let v = (wp * xn[prow * cpi + ip]
                        + wn * {
                            let mt = mask[prow * cpi + ip];
                            let vy = if mt & by != 0 {
                                xn[yrow * cpi + ip]
                            } else {
                                0.0
                            };
                            let vz = if mt & bz != 0 {
                                xn[zrow * cpi + ip]
                            } else {
                                0.0
                            };
                            vy + vz
                        })
                        * w[t];
                    x[t] = if add { x[t] + v } else { v };
                }
            }
        };
        if parallel {
            col.x
                .par_chunks_mut(fhalf)
                .enumerate()
                .with_min_len(min)
                .for_each(|(pr, x)| kernel(pr, x));
        } else {
            col.x
                .chunks_mut(fhalf)
                .enumerate()
                .for_each(|(pr, x)| kernel(pr, x));
        }
    }
}
