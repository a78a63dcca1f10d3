//! The bodies' subspace correction of the coupled preconditioner. A V-cycle `M⁻¹` of `A`
//! does not see the bodies' term of `Ã = A + J C Jᵀ`, which moves up to `dofs` eigenvalues
//! per body out of the V-cycle's cluster (`1 + μ` for `A⁻¹ Ã`, `μ` an added mass over the
//! body's mass), and CG spends iterations on them. Around the V-cycle this runs an exact
//! Galerkin correction in `span J` (symmetric multiplicative subspace correction, Xu 1992):
//! with `P̂ = J E⁺ Jᵀ` and `E = Jᵀ Ã J`,
//!
//! `B = P̂ + (I − P̂ Ã) M⁻¹ (I − Ã P̂)`,
//!
//! symmetric positive definite whenever `M⁻¹` is. On the `Ã`-orthogonal complement of `span J`
//! (`C Jᵀ e = −(Jᵀ J)⁻¹ Jᵀ A e` there) the term can no longer be stiff; what it still moves is
//! the part of the bodies' global responses `A⁻¹ J` outside `span J`, which the cycle inside
//! ([`super::BodyLevels`], the term on every level) takes. Every product runs on `J`'s and
//! `A J`'s rows by body and cell ([`super::body_rows`]): `O(nnz)` a call, each body's sums in
//! a fixed order and so thread-count independent.

use super::body_rows::{BodyRows, Cell};
use super::LowRank;
use crate::multigrid::level::Level;
use rayon::prelude::*;

/// Pivots below this share of their diagonal are dropped: a direction of `J` that `Ã` sees
/// only as round-off (a ball's torques, a column the others span).
const DROP: f64 = 1e-10;

/// `A J`, `Jᵀ J` and the factor of `E = Jᵀ Ã J` for one solve's level 0.
pub(crate) struct BodySpace<'a> {
    bodies: &'a LowRank<'a>,
    /// `A J` by body and cell.
    aj: BodyRows,
    /// `Jᵀ J`, row-major `m × m`.
    gram: Vec<f64>,
    e: Factor,
}

/// What the pre-correction leaves for the post-correction.
pub(crate) struct PreCorrection {
    /// `E⁺ Jᵀ r`.
    s: Vec<f64>,
    /// Where the pre-correction wrote `b` and what it held before, in write order.
    saved: Vec<((usize, usize), f32)>,
}

impl<'a> BodySpace<'a> {
    /// Builds the correction for `bodies` located in `level` (the hierarchy's level 0).
    pub fn new(bodies: &'a LowRank<'a>, level: &Level) -> Self {
        let m = bodies.terms.columns();
        let rows = bodies.rows();
        let boxes: Vec<Bounds> = (0..rows.bodies())
            .map(|b| bounds(level, rows.body(b).0))
            .collect();
        let per_body: Vec<BodyColumns> = (0..rows.bodies())
            .into_par_iter()
            .map(|b| body_columns(level, rows, &boxes, b))
            .collect();
        let mut aj = Vec::with_capacity(per_body.len());
        let (mut gram, mut jaj) = (vec![0.0; m * m], vec![0.0; m * m]);
        for body in per_body {
            aj.push(body.aj);
            for (p, q, g, e) in body.products {
                gram[p * m + q] = g;
                jaj[p * m + q] = e;
            }
        }
        let e = Factor::new(&galerkin(bodies, &gram, &jaj), m);
        Self {
            bodies,
            aj: BodyRows::from_rows(rows.dofs(), aj),
            gram,
            e,
        }
    }

    /// Before the V-cycle (level 0's `b` holds `r`): `s = E⁺ Jᵀ r` and `b = r − Ã J s`.
    pub fn pre_correct(&self, level: &mut Level) -> PreCorrection {
        let jr = self
            .bodies
            .rows()
            .transpose_times([&level.cs[0].b[..], &level.cs[1].b[..]]);
        let s = self.e.solve(&jr);
        let [c0, c1] = &mut level.cs;
        let mut b = [&mut c0.b, &mut c1.b];
        let mut saved = Vec::with_capacity(self.aj.cells().len());
        self.aj.for_each_of_j_times(&s, |(colour, index), w| {
            saved.push(((colour, index), b[colour][index]));
            b[colour][index] = (f64::from(b[colour][index]) - w) as f32;
        });
        let w = self.bodies.terms.weigh(&self.gram_times(&s));
        self.bodies
            .rows()
            .for_each_of_j_times(&w, |(colour, index), jw| {
                saved.push(((colour, index), b[colour][index]));
                b[colour][index] = (f64::from(b[colour][index]) - jw) as f32;
            });
        PreCorrection { s, saved }
    }

    /// After the V-cycle (level 0's `x` holds `y = M⁻¹ (r − Ã J s)`): restores `b = r` and
    /// makes `x = y + J (s − E⁺ Jᵀ Ã y)`, which is `B r`.
    pub fn post_correct(&self, level: &mut Level, pre: PreCorrection) {
        for ((colour, index), old) in pre.saved.into_iter().rev() {
            level.cs[colour].b[index] = old;
        }
        let x = [&level.cs[0].x[..], &level.cs[1].x[..]];
        let jx = self.bodies.rows().transpose_times(x);
        let cjx = self.bodies.terms.weigh(&jx);
        let mut jax = self.gram_times(&cjx);
        for (out, ax) in jax.iter_mut().zip(self.aj.transpose_times(x)) {
            *out += ax;
        }
        let t = self.e.solve(&jax);
        let delta: Vec<f64> = pre.s.iter().zip(t).map(|(s, t)| s - t).collect();
        let [c0, c1] = &mut level.cs;
        let mut x = [&mut c0.x, &mut c1.x];
        (self.bodies.rows()).for_each_of_j_times(&delta, |(colour, index), jd| {
            x[colour][index] = (f64::from(x[colour][index]) + jd) as f32;
        });
    }

    /// `Jᵀ J y`.
    fn gram_times(&self, y: &[f64]) -> Vec<f64> {
        let m = y.len();
        (0..m)
            .map(|p| (0..m).map(|q| self.gram[p * m + q] * y[q]).sum())
            .collect()
    }
}

/// One body's rows of `A J` and its columns' products `(p, q, (Jᵀ J)[p][q], (Jᵀ A J)[p][q])`
/// with every column `p` near them.
struct BodyColumns {
    aj: (Vec<Cell>, Vec<f64>),
    products: Vec<(usize, usize, f64, f64)>,
}

/// [`BodyColumns`] of body `b`, on a box that holds its cells and their reach.
fn body_columns(level: &Level, rows: &BodyRows, boxes: &[Bounds], b: usize) -> BodyColumns {
    let dofs = rows.dofs();
    let mut out = BodyColumns {
        aj: (Vec::new(), Vec::new()),
        products: Vec::new(),
    };
    if boxes[b] == EMPTY {
        return out;
    }
    let reach = widened(boxes[b]);
    let (mut j, mut a) = (
        Scatter::new(level, reach, dofs),
        Scatter::new(level, reach, dofs),
    );
    let (cells, values) = rows.body(b);
    for (&(cell, _), row) in cells.iter().zip(values.chunks(dofs)) {
        let (c, p) = (natural(level, cell), padded(level, cell));
        j.add(c, p, 1.0, row);
        apply_a(level, c, p, row, &mut a);
    }
    out.aj = a.held_rows(level);
    let (mut g, mut e) = (vec![0.0; dofs * dofs], vec![0.0; dofs * dofs]);
    for near in (0..rows.bodies()).filter(|&n| overlap(boxes[n], reach)) {
        g.fill(0.0);
        e.fill(0.0);
        let (cells, values) = rows.body(near);
        for (&(cell, _), x) in cells.iter().zip(values.chunks(dofs)) {
            let Some(at) = j.index(padded(level, cell)) else {
                continue;
            };
            let (jv, av) = (j.row(at), a.row(at));
            for (dp, &xv) in x.iter().enumerate() {
                for dq in 0..dofs {
                    g[dp * dofs + dq] += xv * jv[dq];
                    e[dp * dofs + dq] += xv * av[dq];
                }
            }
        }
        for dp in 0..dofs {
            for dq in 0..dofs {
                let (gv, ev) = (g[dp * dofs + dq], e[dp * dofs + dq]);
                out.products.push((near * dofs + dp, b * dofs + dq, gv, ev));
            }
        }
    }
    out
}

/// `E = Jᵀ A J + (Jᵀ J) C (Jᵀ J)`, symmetrised (both terms are symmetric up to round-off).
fn galerkin(bodies: &LowRank<'_>, gram: &[f64], jaj: &[f64]) -> Vec<f64> {
    let m = bodies.terms.columns();
    let column = |q: usize| -> Vec<f64> { (0..m).map(|p| gram[p * m + q]).collect() };
    let cg: Vec<Vec<f64>> = (0..m).map(|q| bodies.terms.weigh(&column(q))).collect();
    let e = |p: usize, q: usize| -> f64 {
        jaj[p * m + q] + (0..m).map(|r| gram[p * m + r] * cg[q][r]).sum::<f64>()
    };
    let mut out = vec![0.0; m * m];
    for p in 0..m {
        for q in 0..=p {
            let mean = 0.5 * (e(p, q) + e(q, p));
            out[p * m + q] = mean;
            out[q * m + p] = mean;
        }
    }
    out
}

/// Padded `(i, j, k)` bounds `[lo, hi]`.
type Bounds = [[usize; 3]; 2];

/// Level 0's natural index of unpadded `cell`.
fn natural(level: &Level, [i, j, k]: [usize; 3]) -> usize {
    level.at(i, j, k)
}

/// Padded `(i, j, k)` of unpadded `cell`.
fn padded(level: &Level, [i, j, k]: [usize; 3]) -> [usize; 3] {
    [i + 1, j + 1, k + level.pz]
}

/// `out += A e_c row` for the cell at natural `c`, padded `p`, on level 0's natural arrays
/// (couplings are 0 unless both cells are unknowns).
fn apply_a(level: &Level, c: usize, p: [usize; 3], row: &[f64], out: &mut Scatter) {
    out.add(c, p, f64::from(level.diag[c]), row);
    for a in 0..if level.three_d() { 3 } else { 2 } {
        let s = level.stride[a];
        let (up, down) = (level.off[c][a], level.off[c - s][a]);
        let (mut above, mut below) = (p, p);
        above[a] += 1;
        below[a] -= 1;
        if up != 0.0 {
            out.add(c + s, above, f64::from(up), row);
        }
        if down != 0.0 {
            out.add(c - s, below, f64::from(down), row);
        }
    }
}

/// The padded bounds of `cells`.
fn bounds(level: &Level, cells: &[Cell]) -> Bounds {
    (cells.iter()).fold(EMPTY, |b, &(cell, _)| {
        let p = padded(level, cell);
        union(b, [p, p])
    })
}

/// `b` grown by one cell on every side (the reach of `A`'s stencil).
fn widened([lo, hi]: Bounds) -> Bounds {
    [
        lo.map(|v| v.saturating_sub(1)),
        hi.map(|v| v.saturating_add(1)),
    ]
}

/// The bounds of nothing.
const EMPTY: Bounds = [[usize::MAX; 3], [0; 3]];

fn union(a: Bounds, b: Bounds) -> Bounds {
    [
        [0, 1, 2].map(|k| a[0][k].min(b[0][k])),
        [0, 1, 2].map(|k| a[1][k].max(b[1][k])),
    ]
}

fn overlap(a: Bounds, b: Bounds) -> bool {
    (0..3).all(|k| a[0][k] <= b[1][k] && b[0][k] <= a[1][k])
}

/// A dense f64 vector of `width` values a cell on a box of padded cells, with the natural
/// index of each cell it holds.
struct Scatter {
    lo: [usize; 3],
    extent: [usize; 3],
    width: usize,
    value: Vec<f64>,
    /// Natural index of each held cell, `usize::MAX` where none.
    cell: Vec<usize>,
}

impl Scatter {
    /// An empty vector on the padded cells `b` of `level`.
    fn new(level: &Level, [lo, hi]: Bounds, width: usize) -> Self {
        let extent = [0, 1, 2].map(|a| hi[a].min(level.pdims[a] - 1) + 1 - lo[a]);
        let n = extent.iter().product();
        Self {
            lo,
            extent,
            width,
            value: vec![0.0; n * width],
            cell: vec![usize::MAX; n],
        }
    }

    /// Box index of padded cell `p`, if inside.
    #[inline]
    fn index(&self, p: [usize; 3]) -> Option<usize> {
        let mut at = 0;
        for a in (0..3).rev() {
            let d = p[a]
                .checked_sub(self.lo[a])
                .filter(|&d| d < self.extent[a])?;
            at = at * self.extent[a] + d;
        }
        Some(at)
    }

    /// The values at box index `at`.
    fn row(&self, at: usize) -> &[f64] {
        &self.value[at * self.width..(at + 1) * self.width]
    }

    /// Adds `factor · row` at natural `c`, padded `p`.
    fn add(&mut self, c: usize, p: [usize; 3], factor: f64, row: &[f64]) {
        let at = self.index(p).expect("inside the body's reach");
        self.cell[at] = c;
        let out = &mut self.value[at * self.width..(at + 1) * self.width];
        for (o, v) in out.iter_mut().zip(row) {
            *o += factor * v;
        }
    }

    /// The held cells and their values, in box order, which is `(k, j, i)` order.
    fn held_rows(&self, level: &Level) -> (Vec<Cell>, Vec<f64>) {
        let (pi, pj) = (level.pdims[0], level.pdims[1]);
        let (mut cells, mut values) = (Vec::new(), Vec::new());
        for (at, &c) in self.cell.iter().enumerate() {
            if c != usize::MAX {
                let cell = [c % pi - 1, (c / pi) % pj - 1, c / (pi * pj) - level.pz];
                cells.push((cell, level.split(c)));
                values.extend_from_slice(self.row(at));
            }
        }
        (cells, values)
    }
}

/// Cholesky factor of a small symmetric positive semi-definite matrix that drops the pivots
/// below [`DROP`]: [`Factor::solve`] then solves in the span of the kept columns (`E⁺`).
struct Factor {
    k: usize,
    l: Vec<f64>,
    kept: Vec<bool>,
}

impl Factor {
    fn new(a: &[f64], k: usize) -> Self {
        let (mut l, mut kept) = (vec![0.0; k * k], vec![false; k]);
        for j in 0..k {
            let tail =
                |i: usize, l: &[f64]| -> f64 { (0..j).map(|p| l[i * k + p] * l[j * k + p]).sum() };
            let d = a[j * k + j] - tail(j, &l);
            // NaN as well as a pivot below DROP is dropped
            let keep = d > DROP * a[j * k + j];
            if !keep {
                continue;
            }
            kept[j] = true;
            let root = d.sqrt();
            l[j * k + j] = root;
            for i in j + 1..k {
                l[i * k + j] = (a[i * k + j] - tail(i, &l)) / root;
            }
        }
        Self { k, l, kept }
    }

    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let (k, l) = (self.k, &self.l);
        let mut y = vec![0.0; k];
        for j in (0..k).filter(|&j| self.kept[j]) {
            let s: f64 = (0..j).map(|p| l[j * k + p] * y[p]).sum();
            y[j] = (b[j] - s) / l[j * k + j];
        }
        let mut x = vec![0.0; k];
        for j in (0..k).rev().filter(|&j| self.kept[j]) {
            let s: f64 = (j + 1..k).map(|i| l[i * k + j] * x[i]).sum();
            x[j] = (y[j] - s) / l[j * k + j];
        }
        x
    }
}
