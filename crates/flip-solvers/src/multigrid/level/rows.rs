//! Row kernels of the colour-split layout (see the parent module): borrowed views of one
//! colour, the geometry of a colour row, its six neighbours, the scaled residual of a row,
//! and the packing of natural rows into colour-split rows.

use super::{dispatch, Colour, Level, PARALLEL_CELLS};
use rayon::prelude::*;

impl Level {
    /// `r = (b - A x) · inv_norm` on both colours, or on red cells only with `red_only` (0 on
    /// non-unknowns).
    pub fn residual(&mut self, red_only: bool) {
        let half = self.half;
        let three_d = self.three_d();
        let w = self.uniform.unwrap_or(0.0);
        let uniform = self.uniform.is_some();
        let uniform_rows = &self.uniform_rows;
        let pj = self.pdims[1];
        let spans = &self.spans;
        let parity = |pr: usize| (pr % pj + pr / pj) & 1;
        let [c0, c1] = &mut self.cs;
        let (r0, r1) = (&mut c0.r, &mut c1.r);
        let (c0, c1) = (
            ColourView::of(&c0.inv_diag, &c0.diag, &c0.off, &c0.inv_norm, &c0.x, &c0.b),
            ColourView::of(&c1.inv_diag, &c1.diag, &c1.off, &c1.inv_norm, &c1.x, &c1.b),
        );
        let kernel = |pr: usize, out0: &mut [f32], out1: &mut [f32]| {
            let q = parity(pr);
            for (colour, out) in [(0usize, out0), (1usize, out1)] {
                if red_only && colour == 1 {
                    continue;
                }
                let (lo, hi) = spans[colour][pr];
                if lo >= hi {
                    continue;
                }
                let (me, ot) = if colour == 0 { (&c0, &c1) } else { (&c1, &c0) };
                let e = (colour + q) & 1;
                let g = RowGeom {
                    base: pr * half,
                    lo: lo as usize,
                    hi: hi as usize,
                    e,
                    sy: half,
                    sz: half * pj,
                };
                let out = &mut out[g.lo..g.hi];
                dispatch!(
                    three_d,
                    uniform && uniform_rows[pr],
                    residual_row,
                    [],
                    (&g, me, ot, w, out)
                );
            }
        };
        if self.kind.len() >= PARALLEL_CELLS {
            let min = (spans[0].len() / 64).max(1);
            r0.par_chunks_mut(half)
                .zip(r1.par_chunks_mut(half))
                .enumerate()
                .with_min_len(min)
                .for_each(|(pr, (a, b))| kernel(pr, a, b));
        } else {
            r0.chunks_mut(half)
                .zip(r1.chunks_mut(half))
                .enumerate()
                .for_each(|(pr, (a, b))| kernel(pr, a, b));
        }
    }
}

/// Borrowed colour-split arrays of one colour, read-only.
pub(crate) struct ColourView<'a> {
    pub inv_diag: &'a [f32],
    pub diag: &'a [f32],
    pub off: [&'a [f32]; 3],
    pub inv_norm: &'a [f32],
    pub x: &'a [f32],
    pub b: &'a [f32],
}

impl<'a> ColourView<'a> {
    /// A view of the given arrays.
    pub fn of(
        inv_diag: &'a [f32],
        diag: &'a [f32],
        off: &'a [Vec<f32>; 3],
        inv_norm: &'a [f32],
        x: &'a [f32],
        b: &'a [f32],
    ) -> Self {
        Self {
            inv_diag,
            diag,
            off: [&off[0], &off[1], &off[2]],
            inv_norm,
            x,
            b,
        }
    }
}

/// Geometry of one colour row inside a kernel: the colour-split offset of the row, the span,
/// the parity `e` and the colour-split strides of y and z.
pub(crate) struct RowGeom {
    pub base: usize,
    pub lo: usize,
    pub hi: usize,
    pub e: usize,
    pub sy: usize,
    pub sz: usize,
}

impl RowGeom {
    /// Number of entries in the span.
    #[inline(always)]
    pub fn n(&self) -> usize {
        self.hi - self.lo
    }
    /// The span of `a` shifted by `shift` entries (colour-split index `base + lo + shift ..`).
    #[inline(always)]
    pub fn at<'a, T>(&self, a: &'a [T], shift: isize) -> &'a [T] {
        let start = (self.base + self.lo) as isize + shift;
        &a[start as usize..][..self.n()]
    }
    /// Shifts of the six neighbours in the other colour's arrays: x+, x-, y+, y-, z+, z-.
    #[inline(always)]
    pub fn shifts(&self) -> [isize; 6] {
        let e = self.e as isize;
        let (sy, sz) = (self.sy as isize, self.sz as isize);
        [e, e - 1, sy, -sy, sz, -sz]
    }
}

/// The six neighbours of the cells of a colour row: their couplings (from the other colour's
/// arrays for the - sides) and values, as slices aligned with the row's span.
pub(crate) struct Neighbours<'a, T> {
    /// Couplings x+, x-, y+, y-, z+, z- (unused in uniform mode).
    pub c: [&'a [f32]; 6],
    /// Values x+, x-, y+, y-, z+, z-.
    pub u: [&'a [T]; 6],
}

impl<'a, T> Neighbours<'a, T> {
    /// The neighbours of row `g` of colour `me_off`'s cells, values from `u_ot` (other colour).
    #[inline(always)]
    pub fn new(
        g: &RowGeom,
        me_off: [&'a [f32]; 3],
        ot_off: [&'a [f32]; 3],
        u_ot: &'a [T],
        three_d: bool,
        uniform: bool,
    ) -> Self {
        let s = g.shifts();
        let empty: &[f32] = &[];
        let u = |k: usize| {
            if k < 4 || three_d {
                g.at(u_ot, s[k])
            } else {
                &u_ot[..0]
            }
        };
        let c = |k: usize| {
            if uniform || (k >= 4 && !three_d) {
                empty
            } else if k & 1 == 0 {
                g.at(me_off[k / 2], 0)
            } else {
                g.at(ot_off[k / 2], s[k])
            }
        };
        Self {
            c: [c(0), c(1), c(2), c(3), c(4), c(5)],
            u: [u(0), u(1), u(2), u(3), u(4), u(5)],
        }
    }
}

impl Neighbours<'_, f32> {
    /// `Σ A[c][n] x[n]` for entry `t` (`w`: the uniform coupling when `UNI`).
    #[inline(always)]
    pub fn sum<const THREE_D: bool, const UNI: bool>(&self, w: f32, t: usize) -> f32 {
        let u = &self.u;
        if UNI {
            let s = (u[0][t] + u[1][t]) + (u[2][t] + u[3][t]);
            w * if THREE_D { s + (u[4][t] + u[5][t]) } else { s }
        } else {
            let c = &self.c;
            let s =
                (c[0][t] * u[0][t] + c[1][t] * u[1][t]) + (c[2][t] * u[2][t] + c[3][t] * u[3][t]);
            if THREE_D {
                s + (c[4][t] * u[4][t] + c[5][t] * u[5][t])
            } else {
                s
            }
        }
    }
}

impl<T: Copy + Into<f64>> Neighbours<'_, T> {
    /// `Σ A[c][n] u[n]` for entry `t` in f64.
    #[inline(always)]
    pub fn sum64<const THREE_D: bool, const UNI: bool>(&self, w: f64, t: usize) -> f64 {
        let u = &self.u;
        let v = |k: usize| -> f64 { u[k][t].into() };
        if UNI {
            let s = (v(0) + v(1)) + (v(2) + v(3));
            w * if THREE_D { s + (v(4) + v(5)) } else { s }
        } else {
            let c = |k: usize| f64::from(self.c[k][t]);
            let s = (c(0) * v(0) + c(1) * v(1)) + (c(2) * v(2) + c(3) * v(3));
            if THREE_D {
                s + (c(4) * v(4) + c(5) * v(5))
            } else {
                s
            }
        }
    }
}

/// One colour row of the scaled residual.
#[inline(always)]
fn residual_row<const THREE_D: bool, const UNI: bool>(
    g: &RowGeom,
    me: &ColourView<'_>,
    ot: &ColourView<'_>,
    w: f32,
    out: &mut [f32],
) {
    let nb = Neighbours::new(g, me.off, ot.off, ot.x, THREE_D, UNI);
    let n = g.n();
    let (b, d, x, wn) = (
        g.at(me.b, 0),
        g.at(me.diag, 0),
        g.at(me.x, 0),
        g.at(me.inv_norm, 0),
    );
    let out = &mut out[..n];
    for t in 0..n {
        out[t] = (b[t] - d[t] * x[t] - nb.sum::<THREE_D, UNI>(w, t)) * wn[t];
    }
}

/// Both colours' rows of one colour-split array, row by row.
fn pair_rows<'a>(
    a: &'a mut [f32],
    b: &'a mut [f32],
    half: usize,
) -> rayon::iter::Zip<rayon::slice::ChunksMut<'a, f32>, rayon::slice::ChunksMut<'a, f32>> {
    a.par_chunks_mut(half).zip(b.par_chunks_mut(half))
}

/// The colour-split rows written by [`pack_row`]: per colour `inv_diag, diag, ox, oy, oz, x,
/// b, r`, and the span.
pub(crate) type CsRows<'a> = ([[&'a mut [f32]; 8]; 2], [&'a mut (u32, u32); 2]);

/// A parallel iterator over the padded rows of `cs`, yielding [`CsRows`].
pub(crate) fn cs_rows<'a>(
    cs: &'a mut [Colour; 2],
    spans: &'a mut [Vec<(u32, u32)>; 2],
    half: usize,
) -> impl IndexedParallelIterator<Item = CsRows<'a>> {
    let [c0, c1] = cs;
    let [s0, s1] = spans;
    let [ox0, oy0, oz0] = &mut c0.off;
    let [ox1, oy1, oz1] = &mut c1.off;
    pair_rows(&mut c0.inv_diag, &mut c1.inv_diag, half)
        .zip(pair_rows(&mut c0.diag, &mut c1.diag, half))
        .zip(pair_rows(ox0, ox1, half))
        .zip(pair_rows(oy0, oy1, half))
        .zip(pair_rows(oz0, oz1, half))
        .zip(pair_rows(&mut c0.x, &mut c1.x, half))
        .zip(pair_rows(&mut c0.b, &mut c1.b, half))
        .zip(pair_rows(&mut c0.r, &mut c1.r, half))
        .zip(s0.par_iter_mut().zip(s1.par_iter_mut()))
        .map(|((((((((inv, dg), ox), oy), oz), x), b), r), span)| {
            (
                [
                    [inv.0, dg.0, ox.0, oy.0, oz.0, x.0, b.0, r.0],
                    [inv.1, dg.1, ox.1, oy.1, oz.1, x.1, b.1, r.1],
                ],
                [span.0, span.1],
            )
        })
}

/// Packs one padded row (natural `unk`, `diag`, `off` of the row, parity `q`) into its
/// colour-split rows; returns its number of unknowns. Coefficients are written over the new
/// span (0 on non-unknowns) and cleared where only the old span reached; `x` is cleared over
/// the old span (the coarsest level's non-unknowns must read 0), `b` and `r` where only the old
/// span reached (kernels write them over the spans before reading).
pub(crate) fn pack_row(
    q: usize,
    half: usize,
    (unk, diag, off): (&[u8], &[f32], &[[f32; 3]]),
    (rows, spans): CsRows<'_>,
) -> usize {
    let first = unk.iter().position(|&u| u != 0);
    let last = unk.iter().rposition(|&u| u != 0);
    let mut count = 0;
    for (colour, (arrays, span)) in rows.into_iter().zip(spans).enumerate() {
        let (olo, ohi) = (span.0 as usize, span.1 as usize);
        let [inv, dg, ox, oy, oz, x, b, r] = arrays;
        x[olo..ohi].fill(0.0);
        *span = (0, 0);
        let e = (colour + q) & 1;
        // Entries h with first <= 2h + e <= last (first >= 1): the new span's candidates.
        let (lo, hi) = match (first, last) {
            (Some(f), Some(l)) => ((f - e).div_ceil(2), ((l + 1) - e).div_ceil(2).min(half)),
            _ => (0, 0),
        };
        let (mut nlo, mut nhi, mut n) = (usize::MAX, 0, 0);
        for h in lo..hi {
            let ip = 2 * h + e;
            if unk[ip] == 0 {
                for v in [&mut *inv, &mut *dg, &mut *ox, &mut *oy, &mut *oz] {
                    v[h] = 0.0;
                }
                continue;
            }
            let d = diag[ip];
            dg[h] = d;
            inv[h] = 1.0 / d;
            let o = off[ip];
            ox[h] = o[0];
            oy[h] = o[1];
            oz[h] = o[2];
            nlo = nlo.min(h);
            nhi = h + 1;
            n += 1;
        }
        if n > 0 {
            *span = (nlo as u32, nhi as u32);
        }
        // Clear what only the old span covered (outside [lo, hi) and outside the new span).
        let (nlo, nhi) = if n > 0 { (nlo, nhi) } else { (lo, lo) };
        for (a, z) in [(olo, ohi.min(nlo)), (olo.max(nhi), ohi)] {
            if a < z {
                for v in [
                    &mut *inv, &mut *dg, &mut *ox, &mut *oy, &mut *oz, &mut *b, &mut *r,
                ] {
                    v[a..z].fill(0.0);
                }
            }
        }
        // Entries of [lo, hi) outside [nlo, nhi) were written as non-unknowns above, but b and
        // r there may be stale: clear them too.
        for (a, z) in [(lo, nlo.min(hi)), (nhi.max(lo), hi)] {
            if a < z {
                b[a..z].fill(0.0);
                r[a..z].fill(0.0);
            }
        }
        count += n;
    }
    count
}
