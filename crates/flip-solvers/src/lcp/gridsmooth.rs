//! Projected Gauss-Seidel and residuals on the finest level in grid layout ([`GridLevel`]):
//! the same bound-constrained problem as [`super::smooth`] (`x ≥ lo ⊥ A x − t ≥ 0`, `lo` finite
//! exactly on S), red cells then black cells. A cell's neighbours all have the other colour, so
//! each colour is relaxed row by row in parallel, and every row is one loop over contiguous
//! slices (no index arrays) that the compiler vectorises.

use super::grid::GridLevel;
use rayon::prelude::*;

/// Rows per rayon task at least.
const MIN_ROWS: usize = 128;

/// The neighbours of the cells of one row span, as slices of the other colour's part of `x`
/// (and of the couplings when they are not uniform); `own` is the span's first position.
struct Span<'a> {
    own: usize,
    x: [&'a [f64]; 6],
    a: [&'a [f64]; 6],
}

impl Span<'_> {
    /// `Σ_j a_ij x_j` of cell `k` of the span, summed −z, −y, −x, +x, +y, +z (the column order
    /// of the compact level).
    #[inline(always)]
    fn sigma<const THREE: bool, const UNI: bool>(&self, w: f64, k: usize) -> f64 {
        let mut s = 0.0;
        for d in 0..6 {
            if THREE || (d != 0 && d != 5) {
                s += if UNI { w } else { self.a[d][k] } * self.x[d][k];
            }
        }
        s
    }
}

/// Calls `f(span, part)` for every non-empty row span of colour `c`, `part` being the span's
/// entries of `own` (the colour's part of an output vector); `other` is the other colour's part
/// of `x`. Returns the largest value `f` returned (0 if none).
fn rows<T: Send, const THREE: bool, const UNI: bool>(
    g: &GridLevel,
    c: usize,
    other: &[f64],
    own: &mut [T],
    f: impl Fn(&Span<'_>, &mut [T]) -> f64 + Sync,
) -> f64 {
    let l = &g.layout;
    let (half, py, rows, cl) = (l.half, l.py, l.rows(), l.colour_len());
    let o = (1 - c) * cl;
    let empty: &[f64] = &[];
    let row = |(r, part): (usize, &mut [T])| {
        let (lo, hi) = g.spans[c * rows + r];
        let (lo, n) = (lo as usize, hi.saturating_sub(lo) as usize);
        if n == 0 {
            return 0.0;
        }
        let e = l.parity(c, r);
        let at = |rr: usize| rr * half + lo;
        let (zm, zp) = if THREE {
            (at(r - py), at(r + py))
        } else {
            (at(r), at(r))
        };
        let idx = [zm, at(r - 1), at(r) + e - 1, at(r) + e, at(r + 1), zp];
        let own = c * cl + at(r);
        let x = idx.map(|i| &other[i..i + n]);
        let a = if UNI {
            [empty; 6]
        } else {
            let [ox, oy, oz] = [&g.off[0][..], &g.off[1][..], &g.off[2][..]];
            let (m0, m1, m2) = (o + idx[0], o + idx[1], o + idx[2]);
            [
                &oz[m0..m0 + n],
                &oy[m1..m1 + n],
                &ox[m2..m2 + n],
                &ox[own..own + n],
                &oy[own..own + n],
                &oz[own..own + n],
            ]
        };
        f(&Span { own, x, a }, &mut part[lo..lo + n])
    };
    if g.pos.len() >= 16 * 1024 {
        own.par_chunks_mut(half)
            .enumerate()
            .with_min_len(MIN_ROWS)
            .map(row)
            .reduce(|| 0.0, f64::max)
    } else {
        own.chunks_mut(half)
            .enumerate()
            .map(row)
            .fold(0.0, f64::max)
    }
}

/// Dispatches `$body` (a generic function call with `THREE`, `UNI` parameters) on the level.
macro_rules! dispatch {
    ($g:expr, $f:ident($($arg:expr),*)) => {
        match ($g.layout.three_d(), $g.uniform.is_some()) {
            (true, true) => $f::<true, true>($($arg),*),
            (true, false) => $f::<true, false>($($arg),*),
            (false, true) => $f::<false, true>($($arg),*),
            (false, false) => $f::<false, false>($($arg),*),
        }
    };
}

fn sweep_impl<const THREE: bool, const UNI: bool>(
    g: &GridLevel,
    t: &[f64],
    lo: &[f64],
    x: &mut [f64],
) {
    let (cl, w) = (g.layout.colour_len(), g.uniform.unwrap_or(0.0));
    for c in 0..2 {
        let (red, black) = x.split_at_mut(cl);
        let (own, other) = if c == 0 {
            (red, &*black)
        } else {
            (black, &*red)
        };
        rows::<_, THREE, UNI>(g, c, other, own, |s, xs| {
            let n = xs.len();
            let (t, lo, d) = (
                &t[s.own..s.own + n],
                &lo[s.own..s.own + n],
                &g.diag[s.own..s.own + n],
            );
            for k in 0..n {
                let v = ((t[k] - s.sigma::<THREE, UNI>(w, k)) / d[k]).max(lo[k]);
                xs[k] = if d[k] > 0.0 { v } else { 0.0 };
            }
            0.0
        });
    }
}

/// One red-black projected Gauss-Seidel sweep: `x_i ← max(lo_i, (t_i − Σ_{j≠i} a_ij x_j) / a_ii)`
/// on unknowns (Lai et al.'s PGS smoother in red-black order), `x = 0` elsewhere.
pub(crate) fn sweep(g: &GridLevel, t: &[f64], lo: &[f64], x: &mut [f64]) {
    dispatch!(g, sweep_impl(g, t, lo, x))
}

/// Writes `f(x_i, lo_i, a_ii, (A x − t)_i)` at every unknown of `out` (same layout; 0 at the
/// other cells of the row spans) and returns the largest `|f|`; only on red cells if
/// `red_only`.
fn residual_impl<const THREE: bool, const UNI: bool>(
    g: &GridLevel,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    out: &mut [f64],
    red_only: bool,
    f: &(impl Fn(f64, f64, f64, f64) -> f64 + Sync),
) -> f64 {
    let (cl, w) = (g.layout.colour_len(), g.uniform.unwrap_or(0.0));
    let (red, black) = x.split_at(cl);
    let (out_red, out_black) = out.split_at_mut(cl);
    let mut max = 0.0f64;
    for (c, other, own) in [(0, black, out_red), (1, red, out_black)] {
        if c == 1 && red_only {
            break;
        }
        max = max.max(rows::<_, THREE, UNI>(g, c, other, own, |s, os| {
            let n = os.len();
            let r = s.own..s.own + n;
            let (t, lo, d, xi) = (&t[r.clone()], &lo[r.clone()], &g.diag[r.clone()], &x[r]);
            let mut max = 0.0f64;
            for k in 0..n {
                let w = s.sigma::<THREE, UNI>(w, k) + d[k] * xi[k] - t[k];
                os[k] = if d[k] > 0.0 {
                    f(xi[k], lo[k], d[k], w)
                } else {
                    0.0
                };
                max = max.max(os[k].abs());
            }
            max
        }));
    }
    max
}

/// Residual with the S rows diagonally scaled, as [`super::smooth::residual_scaled`]:
/// `−min(a_ii (x − lo), A x − t)` where `lo` is finite, `t − A x` elsewhere; 0 off unknowns.
///
/// With `after_sweep` (`x` just relaxed by [`sweep`], which ends with the black cells) only the
/// red cells are computed: on a black cell the sweep left `x = (t − σ) / a_ii` (residual 0 up
/// to rounding) or `x = lo` with `A x − t > 0` (residual exactly 0), and `r` must hold 0 there.
pub(crate) fn residual_scaled(
    g: &GridLevel,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    r: &mut [f64],
    after_sweep: bool,
) {
    let f = |x: f64, lo: f64, d: f64, w: f64| {
        if lo.is_finite() {
            -(d * (x - lo)).min(w)
        } else {
            -w
        }
    };
    dispatch!(g, residual_impl(g, t, lo, x, r, after_sweep, &f));
}

/// `max |min(x − lo, A x − t)|` over the unknowns (`scratch`, of the layout's length, receives
/// `min(x − lo, A x − t)`); over the red cells only with `after_sweep`, as in
/// [`residual_scaled`].
pub(crate) fn residual_norm(
    g: &GridLevel,
    t: &[f64],
    lo: &[f64],
    x: &[f64],
    scratch: &mut [f64],
    after_sweep: bool,
) -> f64 {
    let f = |x: f64, lo: f64, _: f64, w: f64| (x - lo).min(w);
    dispatch!(g, residual_impl(g, t, lo, x, scratch, after_sweep, &f))
}
