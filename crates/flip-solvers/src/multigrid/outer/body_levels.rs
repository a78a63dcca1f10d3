//! The bodies' term on every level of the coupled V-cycle (a [`CycleTerm`] of the one
//! V-cycle, `crate::hierarchy::cycle::vcycle`). A V-cycle of `A` alone leaves the
//! bodies' global responses `A⁻¹ J` to CG: each moves an eigenvalue of the preconditioned
//! operator out of the cluster, and [`super::BodySpace`] removes only their part in `span J`.
//! Here the cycle is one of `Ã = A + J C Jᵀ` itself. Level `l` carries `J_l`: the finer
//! level's columns summed into their parents and scaled by `2^{-n/2}` (`n` halved axes), so
//! that `J_l C J_lᵀ` matches `R (J C Jᵀ) P` as the Galerkin `A_l` matches `R A P`.
//! - Each level's residual, restricted to the next, includes the term.
//! - Post-smoothing sweeps `A_l` against `b − J_l C J_lᵀ x` (the term lagged). Pre-smoothing
//!   starts from `x = 0`, where the lagged term vanishes, so the two smoothers stay adjoint
//!   and the cycle symmetric.
//! - The coarsest level is solved exactly by the Woodbury identity
//!   `Ã⁻¹ = A⁻¹ − Y (I + C Jᵀ Y)⁻¹ C Jᵀ A⁻¹`, with `Y = A⁻¹ J` (a coarse solve per column, once
//!   per solve).
//!
//! The lagged sweeps amplify the error along `J_l` once the term outweighs `A_l`'s diagonal
//! ([`MAX_LAG`]); the term is carried down to the first level where it does, and levels
//! below run the V-cycle of `A`. MGPCG also checks the cycle's positivity (`r · z > 0`) on
//! every iteration and drops it for the V-cycle of `A` if it fails.

use super::LowRank;
use crate::hierarchy::CycleTerm;
use crate::multigrid::coarse::CoarseSolver;
use crate::multigrid::hierarchy::Hierarchy;
use crate::multigrid::level::Level;
use faer::linalg::solvers::Solve;
use faer::Mat;
use flip_sdk::BodyTerms;
use rayon::prelude::*;

/// One entry of a level's `J_l`: unpadded cell, colour and colour-split index, value.
type Entry = ([usize; 3], (usize, usize), f64);

/// One level's `J_l`: per column, its entries on the level's unknowns.
struct Columns {
    start: Vec<usize>,
    entries: Vec<Entry>,
}

impl Columns {
    /// `count` columns, each built on its own (in parallel) by `column(q, out)`.
    fn build(count: usize, column: impl Fn(usize, &mut Vec<Entry>) + Sync) -> Self {
        let built: Vec<Vec<Entry>> = (0..count)
            .into_par_iter()
            .map(|q| {
                let mut out = Vec::new();
                column(q, &mut out);
                out
            })
            .collect();
        let mut start = Vec::with_capacity(count + 1);
        start.push(0);
        let mut entries = Vec::with_capacity(built.iter().map(Vec::len).sum());
        for col in built {
            entries.extend(col);
            start.push(entries.len());
        }
        Self { start, entries }
    }

    fn column(&self, q: usize) -> &[Entry] {
        &self.entries[self.start[q]..self.start[q + 1]]
    }

    fn count(&self) -> usize {
        self.start.len() - 1
    }

    /// `Jᵀ x` for the level's colour-split `x`.
    fn transpose_times(&self, level: &Level) -> Vec<f64> {
        (0..self.count())
            .into_par_iter()
            .map(|q| {
                (self.column(q).iter())
                    .map(|&(_, (colour, index), v)| v * f64::from(level.cs[colour].x[index]))
                    .sum()
            })
            .collect()
    }
}

/// The largest share `(J_l C J_lᵀ)[c][c] / A_l[c][c]` the lagged sweeps take on a level.
/// The bench's boxes and balls (densities 500 to 1200) stay below 0.03 on the finest level
/// and reach 0.9–1.1 on the coarsest ones; a ball of a cell or two and of density 5 to 100
/// reaches 1.4 to 60 on the finest, and carrying the term there took 18 to 97 iterations
/// instead of 9 to 19 (`tests/coupled_solvers.rs`).
const MAX_LAG: f64 = 1.0;

/// The largest `(J_l C J_lᵀ)[c][c] / A_l[c][c]` over `cols`' cells.
fn lag(terms: &BodyTerms<'_>, cols: &Columns, level: &Level) -> f64 {
    let dofs = terms.dofs.max(1);
    let per_body: Vec<Vec<((usize, usize), f64)>> = (0..cols.count() / dofs)
        .into_par_iter()
        .map(|body| body_diagonal(terms, cols, body))
        .collect();
    let mut diag = per_body.concat();
    diag.sort_unstable_by_key(|&(at, _)| at);
    (diag.chunk_by(|a, b| a.0 == b.0))
        .map(|cell| {
            let (colour, index) = cell[0].0;
            let d: f64 = cell.iter().map(|&(_, q)| q).sum();
            d * f64::from(level.cs[colour].inv_diag[index])
        })
        .fold(0.0, f64::max)
}

/// One body's part of `diag(J_l C J_lᵀ)`: for each cell its columns touch, `row · C row`.
fn body_diagonal(terms: &BodyTerms<'_>, cols: &Columns, body: usize) -> Vec<((usize, usize), f64)> {
    let dofs = terms.dofs.max(1);
    let mut rows: Vec<((usize, usize), usize, f64)> = Vec::new();
    for d in 0..dofs {
        let column = cols.column(body * dofs + d);
        rows.extend(column.iter().map(|&(_, at, v)| (at, d, v)));
    }
    rows.sort_unstable_by_key(|&(at, d, _)| (at, d));
    let c = &terms.weight[body * dofs * dofs..(body + 1) * dofs * dofs];
    let mut row = vec![0.0; dofs];
    let mut diag = Vec::new();
    for cell in rows.chunk_by(|a, b| a.0 == b.0) {
        row.fill(0.0);
        for &(_, d, v) in cell {
            row[d] += v;
        }
        let quad: f64 = (0..dofs)
            .map(|i| row[i] * (0..dofs).map(|j| c[i * dofs + j] * row[j]).sum::<f64>())
            .sum();
        diag.push((cell[0].0, quad));
    }
    diag
}

/// `J_l` on every level of a hierarchy, and the coarsest level's Woodbury terms.
pub(crate) struct BodyLevels<'a> {
    terms: BodyTerms<'a>,
    levels: Vec<Columns>,
    /// `Y = A⁻¹ J` on the coarsest level: per column, its values in the coarse solver's order.
    y: Vec<Vec<f64>>,
    /// LU factor of `I + C Jᵀ Y`.
    k: Lu,
}

/// A dense LU factor (`None`: no columns, or not the coarsest level).
type Lu = Option<faer::linalg::solvers::PartialPivLu<f64>>;

impl<'a> BodyLevels<'a> {
    /// Builds `J_l` for the levels of `h` (`bodies` located on its level 0) that can carry
    /// the term ([`MAX_LAG`]), and when they all can, the coarsest level's Woodbury terms (one
    /// coarse solve a column; the coarsest level's `b` and `x` are overwritten). `None` when not
    /// even the finest level can.
    pub fn new(bodies: &LowRank<'a>, h: &mut Hierarchy) -> Option<Self> {
        let terms = bodies.terms;
        let mut levels: Vec<Columns> = Vec::new();
        for l in 0..h.depth() {
            let cols = match levels.last() {
                None => finest(bodies),
                Some(finer) => aggregate(finer, &h.levels[l]),
            };
            if l + 1 < h.depth() && lag(&terms, &cols, &h.levels[l]) > MAX_LAG {
                break;
            }
            levels.push(cols);
        }
        if levels.is_empty() {
            return None;
        }
        let (y, k) = if levels.len() == h.depth() {
            woodbury(&terms, &levels[levels.len() - 1], h)
        } else {
            (Vec::new(), None)
        };
        Some(Self {
            terms,
            levels,
            y,
            k,
        })
    }

    /// `C J_lᵀ x` on level `l`.
    fn weights(&self, l: usize, level: &Level) -> Vec<f64> {
        self.terms.weigh(&self.levels[l].transpose_times(level))
    }

    /// `b −= J_l C J_lᵀ x` on level `l`; returns what it overwrote, for [`Self::restore`].
    fn shift(&self, l: usize, level: &mut Level) -> Vec<f32> {
        let w = self.weights(l, level);
        let cols = &self.levels[l];
        let mut saved = Vec::with_capacity(cols.entries.len());
        for (q, &wq) in w.iter().enumerate() {
            for &(_, (colour, index), v) in cols.column(q) {
                let b = &mut level.cs[colour].b[index];
                saved.push(*b);
                *b = (f64::from(*b) - v * wq) as f32;
            }
        }
        saved
    }

    /// Undoes [`Self::shift`] on level `l`.
    fn restore(&self, l: usize, level: &mut Level, saved: Vec<f32>) {
        for (&(_, (colour, index), _), old) in self.levels[l].entries.iter().zip(saved).rev() {
            level.cs[colour].b[index] = old;
        }
    }
}

impl CycleTerm<Level> for BodyLevels<'_> {
    fn carried(&self) -> usize {
        self.levels.len()
    }

    /// `(b − A x − J_l w) · inv_norm` with `w = C J_lᵀ x`, after a forward sweep whose last
    /// (black) half-sweep left `A`'s black residual zero: `−(J_l w) · inv_norm` there.
    fn residual(&self, l: usize, level: &mut Level) {
        let w = self.weights(l, level);
        level.residual(true);
        level.cs[1].r.par_iter_mut().for_each(|r| *r = 0.0);
        for (q, &wq) in w.iter().enumerate() {
            for &(_, (colour, index), v) in self.levels[l].column(q) {
                let cs = &mut level.cs[colour];
                let r = &mut cs.r[index];
                *r = (f64::from(*r) - v * wq * f64::from(cs.inv_norm[index])) as f32;
            }
        }
    }

    fn lagged(&self, l: usize, level: &mut Level, smooth: &mut dyn FnMut(&mut Level)) {
        let saved = self.shift(l, level);
        smooth(level);
        self.restore(l, level, saved);
    }

    fn correct_coarsest(&self, coarse: &CoarseSolver, level: &mut Level) {
        let Some(k) = &self.k else { return };
        let cols = self.levels.last().expect("a level");
        let cjx = self.terms.weigh(&cols.transpose_times(level));
        let t = k.solve(Mat::from_fn(cjx.len(), 1, |i, _| cjx[i]));
        for (r, &(colour, index)) in coarse.unknowns().iter().enumerate() {
            let d: f64 = (0..cjx.len()).map(|q| self.y[q][r] * t[(q, 0)]).sum();
            let x = &mut level.cs[colour].x[index];
            *x = (f64::from(*x) - d) as f32;
        }
    }
}

/// `J` on level 0.
fn finest(bodies: &LowRank<'_>) -> Columns {
    Columns::build(bodies.terms.columns(), |q, out| {
        out.extend(bodies.located(q))
    })
}

/// `J_l` from `J_{l−1}`: each column's entries summed by parent cell, scaled by `2^{-n/2}`.
fn aggregate(fine: &Columns, coarse: &Level) -> Columns {
    let halved = coarse.active.iter().filter(|&&a| a).count();
    let scale = 0.5f64.powf(halved as f64 / 2.0);
    Columns::build(fine.count(), |q, out| {
        let mut parents: Vec<([usize; 3], f64)> = (fine.column(q).iter())
            .map(|&(cell, _, v)| {
                let parent = std::array::from_fn(|a| {
                    if coarse.active[a] {
                        cell[a] >> 1
                    } else {
                        cell[a]
                    }
                });
                (parent, v * scale)
            })
            .collect();
        parents.sort_unstable_by_key(|&([i, j, k], _)| (k, j, i));
        for cell in parents.chunk_by(|a, b| a.0 == b.0) {
            let sum = cell.iter().map(|&(_, v)| v).sum();
            push_located(out, coarse, cell[0].0, sum);
        }
    })
}

/// Appends the entry `v` at `cell` when the cell is an unknown of `level`.
fn push_located(out: &mut Vec<Entry>, level: &Level, cell: [usize; 3], v: f64) {
    let c = level.at(cell[0], cell[1], cell[2]);
    if level.is_unknown(c) {
        out.push((cell, level.split(c), v));
    }
}

/// `Y = A⁻¹ J` on the coarsest level (`cols`) and the LU factor of `I + C Jᵀ Y`.
fn woodbury(terms: &BodyTerms<'_>, cols: &Columns, h: &mut Hierarchy) -> (Vec<Vec<f64>>, Lu) {
    let coarsest = h.depth() - 1;
    let (level, coarse) = (&mut h.levels[coarsest], &mut h.coarse);
    let columns = cols.count();
    let mut y = Vec::with_capacity(columns);
    let mut cg = Vec::with_capacity(columns);
    for q in 0..columns {
        y.push(coarse_response(coarse, level, cols.column(q)));
        cg.push(terms.weigh(&cols.transpose_times(level)));
    }
    let k = (columns > 0).then(|| {
        let identity = |i: usize, j: usize| f64::from(u8::from(i == j));
        Mat::from_fn(columns, columns, |i, j| identity(i, j) + cg[j][i]).partial_piv_lu()
    });
    (y, k)
}

/// `A⁻¹ J_q` on the coarsest level, in the coarse solver's order of unknowns.
fn coarse_response(coarse: &mut CoarseSolver, level: &mut Level, column: &[Entry]) -> Vec<f64> {
    for &(colour, index) in coarse.unknowns() {
        level.cs[colour].b[index] = 0.0;
    }
    for &(_, (colour, index), v) in column {
        level.cs[colour].b[index] += v as f32;
    }
    coarse.solve(level);
    (coarse.unknowns().iter())
        .map(|&(colour, index)| f64::from(level.cs[colour].x[index]))
        .collect()
}
