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

use super::body_rows::{BodyRows, Cell};
use super::LowRank;
use crate::hierarchy::CycleTerm;
use crate::multigrid::coarse::CoarseSolver;
use crate::multigrid::hierarchy::Hierarchy;
use crate::multigrid::level::Level;
use crate::multigrid::transfer::prolong_from_rows;
use faer::linalg::solvers::Solve;
use faer::Mat;
use flip_sdk::BodyTerms;
use rayon::prelude::*;

/// The largest share `(J_l C J_lᵀ)[c][c] / A_l[c][c]` the lagged sweeps take on a level.
/// The bench's boxes and balls (densities 500 to 1200) stay below 0.03 on the finest level
/// and reach 0.9–1.1 on the coarsest ones; a ball of a cell or two and of density 5 to 100
/// reaches 1.4 to 60 on the finest, and carrying the term there took 18 to 97 iterations
/// instead of 9 to 19 (`tests/coupled_solvers.rs`).
const MAX_LAG: f64 = 1.0;

/// The largest `(J_l C J_lᵀ)[c][c] / A_l[c][c]` over `rows`' cells.
fn lag(terms: &BodyTerms<'_>, rows: &BodyRows, level: &Level) -> f64 {
    let dofs = terms.dofs.max(1);
    let per_body: Vec<Vec<((usize, usize), f64)>> = (0..rows.bodies())
        .into_par_iter()
        .map(|b| {
            let (cells, values) = rows.body(b);
            let c = &terms.weight[b * dofs * dofs..(b + 1) * dofs * dofs];
            let quad = |row: &[f64]| -> f64 {
                (0..dofs)
                    .map(|i| row[i] * (0..dofs).map(|j| c[i * dofs + j] * row[j]).sum::<f64>())
                    .sum()
            };
            (cells.iter().zip(values.chunks(dofs)))
                .map(|(&(_, at), row)| (at, quad(row)))
                .collect()
        })
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

/// `J_l` on every level of a hierarchy, and the coarsest level's Woodbury terms.
pub(crate) struct BodyLevels<'a> {
    terms: BodyTerms<'a>,
    levels: Vec<BodyRows>,
    /// Per level, the padded rows that hold cells of `J_l` (where the lagged term reads `x`).
    rows_read: Vec<Vec<bool>>,
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
        let mut levels: Vec<BodyRows> = Vec::new();
        for l in 0..h.depth() {
            let rows = match levels.last() {
                None => bodies.rows().clone(),
                Some(finer) => aggregate(finer, &h.levels[l]),
            };
            if l + 1 < h.depth() && lag(&terms, &rows, &h.levels[l]) > MAX_LAG {
                break;
            }
            levels.push(rows);
        }
        if levels.is_empty() {
            return None;
        }
        // Black residuals stay zero but on `J_l`'s cells ([`CycleTerm::residual`]).
        for level in &mut h.levels[..levels.len()] {
            level.cs[1].r.par_iter_mut().for_each(|r| *r = 0.0);
        }
        let (y, k) = if levels.len() == h.depth() {
            woodbury(&terms, &levels[levels.len() - 1], h)
        } else {
            (Vec::new(), None)
        };
        let rows_read = (levels.iter().zip(&h.levels))
            .map(|(rows, level)| {
                let mut read = vec![false; level.rows()];
                for &([_, j, k], _) in rows.cells() {
                    read[(j + 1) + level.pdims[1] * (k + level.pz)] = true;
                }
                read
            })
            .collect();
        Some(Self {
            terms,
            levels,
            rows_read,
            y,
            k,
        })
    }

    /// `C J_lᵀ x` on level `l`.
    fn weights(&self, l: usize, level: &Level) -> Vec<f64> {
        self.terms.weigh(&self.levels[l].transpose_times(xs(level)))
    }

    /// `b −= J_l C J_lᵀ x` on level `l`; returns what it overwrote, for [`Self::restore`].
    fn shift(&self, l: usize, level: &mut Level) -> Vec<f32> {
        let w = self.weights(l, level);
        let rows = &self.levels[l];
        let mut saved = Vec::with_capacity(rows.cells().len());
        rows.for_each_of_j_times(&w, |(colour, index), jw| {
            let b = &mut level.cs[colour].b[index];
            saved.push(*b);
            *b = (f64::from(*b) - jw) as f32;
        });
        saved
    }

    /// Undoes [`Self::shift`] on level `l`.
    fn restore(&self, l: usize, level: &mut Level, saved: Vec<f32>) {
        for (&(_, (colour, index)), old) in self.levels[l].cells().iter().zip(saved).rev() {
            level.cs[colour].b[index] = old;
        }
    }
}

impl CycleTerm<Level> for BodyLevels<'_> {
    fn carried(&self) -> usize {
        self.levels.len()
    }

    /// `(b − A x − J_l w) · inv_norm` with `w = C J_lᵀ x`, after a forward sweep whose last
    /// (black) half-sweep left `A`'s black residual zero: `−(J_l w) · inv_norm` there. Only
    /// `J_l`'s black cells are written: [`BodyLevels::new`] zeroed the rest, which no other
    /// step of the solve writes.
    fn residual(&self, l: usize, level: &mut Level) {
        let w = self.weights(l, level);
        level.residual(true);
        for &(_, (colour, index)) in self.levels[l].cells() {
            if colour == 1 {
                level.cs[1].r[index] = 0.0;
            }
        }
        self.levels[l].for_each_of_j_times(&w, |(colour, index), jw| {
            let cs = &mut level.cs[colour];
            let r = &mut cs.r[index];
            *r = (f64::from(*r) - jw * f64::from(cs.inv_norm[index])) as f32;
        });
    }

    fn complete_prolongation(&self, l: usize, coarse: &mut Level, fine: &mut Level, wrote: usize) {
        let rows = 0..coarse.rows();
        let read = Some(&self.rows_read[l][..]);
        prolong_from_rows(coarse, fine, true, Some(1 - wrote), rows, read);
    }

    fn lagged(&self, l: usize, level: &mut Level, smooth: &mut dyn FnMut(&mut Level)) {
        let saved = self.shift(l, level);
        smooth(level);
        self.restore(l, level, saved);
    }

    fn correct_coarsest(&self, coarse: &CoarseSolver, level: &mut Level) {
        let Some(k) = &self.k else { return };
        let rows = self.levels.last().expect("a level");
        let cjx = self.terms.weigh(&rows.transpose_times(xs(level)));
        let t = k.solve(Mat::from_fn(cjx.len(), 1, |i, _| cjx[i]));
        for (r, &(colour, index)) in coarse.unknowns().iter().enumerate() {
            let d: f64 = (0..cjx.len()).map(|q| self.y[q][r] * t[(q, 0)]).sum();
            let x = &mut level.cs[colour].x[index];
            *x = (f64::from(*x) - d) as f32;
        }
    }
}

/// `J_l` from `J_{l−1}`: each body's rows summed by parent cell, scaled by `2^{-n/2}`.
fn aggregate(fine: &BodyRows, coarse: &Level) -> BodyRows {
    let halved = coarse.active.iter().filter(|&&a| a).count();
    let scale = 0.5f64.powf(halved as f64 / 2.0);
    let dofs = fine.dofs();
    let [ni, nj, _] = coarse.dims;
    let per_body = (0..fine.bodies())
        .into_par_iter()
        .map(|b| {
            let (cells, values) = fine.body(b);
            (cells.iter().zip(values.chunks(dofs)))
                .flat_map(|(&(cell, _), row)| {
                    let [i, j, k]: [usize; 3] = std::array::from_fn(|a| {
                        if coarse.active[a] {
                            cell[a] >> 1
                        } else {
                            cell[a]
                        }
                    });
                    let parent = i + ni * (j + nj * k);
                    (row.iter().enumerate()).map(move |(d, &v)| (parent, d, v * scale))
                })
                .collect()
        })
        .collect();
    BodyRows::build(coarse, dofs, per_body)
}

/// `Y = A⁻¹ J` on the coarsest level (`rows`) and the LU factor of `I + C Jᵀ Y`.
fn woodbury(terms: &BodyTerms<'_>, rows: &BodyRows, h: &mut Hierarchy) -> (Vec<Vec<f64>>, Lu) {
    let coarsest = h.depth() - 1;
    let (level, coarse) = (&mut h.levels[coarsest], &mut h.coarse);
    let columns = rows.bodies() * rows.dofs();
    let mut y = Vec::with_capacity(columns);
    let mut cg = Vec::with_capacity(columns);
    for q in 0..columns {
        y.push(coarse_response(coarse, level, rows.column(q)));
        cg.push(terms.weigh(&rows.transpose_times(xs(level))));
    }
    let k = (columns > 0).then(|| {
        let identity = |i: usize, j: usize| f64::from(u8::from(i == j));
        Mat::from_fn(columns, columns, |i, j| identity(i, j) + cg[j][i]).partial_piv_lu()
    });
    (y, k)
}

/// `A⁻¹ J_q` on the coarsest level, in the coarse solver's order of unknowns.
fn coarse_response(
    coarse: &mut CoarseSolver,
    level: &mut Level,
    column: impl Iterator<Item = (Cell, f64)>,
) -> Vec<f64> {
    for &(colour, index) in coarse.unknowns() {
        level.cs[colour].b[index] = 0.0;
    }
    for ((_, (colour, index)), v) in column {
        level.cs[colour].b[index] += v as f32;
    }
    coarse.solve(level);
    (coarse.unknowns().iter())
        .map(|&(colour, index)| f64::from(level.cs[colour].x[index]))
        .collect()
}

/// A level's colour-split `x`.
fn xs(level: &Level) -> [&[f32]; 2] {
    [&level.cs[0].x, &level.cs[1].x]
}
