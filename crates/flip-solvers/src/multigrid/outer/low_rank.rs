//! The rigid bodies' low-rank term `J C Jᵀ` of the coupled kind (Batty, Bertails & Bridson 2007,
//! §4) in the outer iteration's colour-split layout: MGPCG adds it to `q = A d` and to the true
//! residual through `J`'s sparse columns, `O(nnz J)` plus one small dense `C` product per body,
//! so a coupled iteration runs the same fused kernels as an uncoupled one.

use super::{residual, Vectors};
use crate::multigrid::level::Level;
use flip_sdk::BodyTerms;

/// `J C Jᵀ` with `J`'s entries located in level 0's colour-split vectors.
pub(crate) struct LowRank<'a> {
    pub(super) terms: BodyTerms<'a>,
    /// Colour and colour-split index of each entry of `J` (in `terms`' order); `None` for a
    /// cell that is not an unknown of the level (its pressure is 0, as `store` writes it).
    at: Vec<Option<(usize, usize)>>,
    /// The grid's cells per axis.
    dims: [usize; 3],
}

impl<'a> LowRank<'a> {
    /// Locates `terms`' entries in `level` (level 0 of the hierarchy built for their grid).
    pub fn new(terms: BodyTerms<'a>, level: &Level) -> Self {
        let [ni, nj, _] = level.dims;
        let at = (terms.column_cells.iter())
            .map(|&c| {
                let c = c as usize;
                let (i, j, k) = (c % ni, (c / ni) % nj, c / (ni * nj));
                let (colour, index) = level.split(level.at(i, j, k));
                (level.cs[colour].inv_diag[index] != 0.0).then_some((colour, index))
            })
            .collect();
        Self {
            terms,
            at,
            dims: level.dims,
        }
    }

    /// Column `q`'s entries on unknowns with their unpadded cells: `(cell, (colour, index),
    /// value)`, the one place the coupled preconditioner's parts locate `J` from.
    pub(super) fn located(
        &self,
        q: usize,
    ) -> impl Iterator<Item = ([usize; 3], (usize, usize), f64)> + '_ {
        let [ni, nj, _] = self.dims;
        let s = &self.terms.column_start;
        let range = s[q] as usize..s[q + 1] as usize;
        (self.terms.column_cells[range.clone()].iter())
            .zip(&self.at[range.clone()])
            .zip(&self.terms.column_values[range])
            .filter_map(move |((&c, &at), &v)| {
                let c = c as usize;
                at.map(|at| ([c % ni, (c / ni) % nj, c / (ni * nj)], at, v))
            })
    }

    /// `Jᵀ x` for a colour-split `x`.
    pub(super) fn transpose_times<T: Copy + Into<f64>>(&self, x: [&[T]; 2]) -> Vec<f64> {
        (0..self.terms.columns())
            .map(|q| {
                self.entries(q)
                    .map(|((colour, index), v)| v * x[colour][index].into())
                    .sum()
            })
            .collect()
    }

    /// The located entries `((colour, index), value)` of column `q`.
    fn entries(&self, q: usize) -> impl Iterator<Item = ((usize, usize), f64)> + '_ {
        let s = &self.terms.column_start;
        let range = s[q] as usize..s[q + 1] as usize;
        (self.at[range.clone()].iter())
            .zip(&self.terms.column_values[range])
            .filter_map(|(&at, &v)| at.map(|at| (at, v)))
    }

    /// Calls `f(colour, index, value)` for every entry of `J w`'s columns (`J w` summed over
    /// them).
    pub(super) fn for_each_of_j_times(&self, w: &[f64], mut f: impl FnMut(usize, usize, f64)) {
        for (q, &wq) in w.iter().enumerate() {
            for ((colour, index), v) in self.entries(q) {
                f(colour, index, v * wq);
            }
        }
    }

    /// After [`super::direction`] (`z = level.x`, `d = z + β d`, `q = A z + β q`, the old `q`
    /// already holding the old direction's bodies' term): `q += J C Jᵀ z`, so that
    /// `q = (A + J C Jᵀ) d`; returns the term's part of `d · q`, `(Jᵀ d) · C Jᵀ z`.
    pub fn add_to_direction(&self, level: &Level, v: &mut Vectors) -> f64 {
        let z = [&level.cs[0].x[..], &level.cs[1].x[..]];
        let w = self.terms.weigh(&self.transpose_times(z));
        let q = &mut v.q;
        self.for_each_of_j_times(&w, |colour, index, jw| {
            q[colour][index] = (f64::from(q[colour][index]) + jw) as f32;
        });
        let jd = self.transpose_times([&v.d[0][..], &v.d[1][..]]);
        jd.iter().zip(&w).map(|(a, b)| a * b).sum()
    }

    /// The true residual of the coupled operator, `r = b − J C Jᵀ p − A p`, into `level.b`
    /// (as [`super::residual`], which it runs on `b` shifted by the bodies' term on `J`'s
    /// cells, in f64, then restored); returns `max |r|`.
    pub fn residual(&self, level: &mut Level, v: &mut Vectors) -> f64 {
        let w = (self.terms).weigh(&self.transpose_times([&v.p[0][..], &v.p[1][..]]));
        let saved: Vec<f64> = (self.at.iter().flatten())
            .map(|&(colour, index)| v.b[colour][index])
            .collect();
        let b = &mut v.b;
        self.for_each_of_j_times(&w, |colour, index, jw| b[colour][index] -= jw);
        let max = residual(level, v);
        for (&(colour, index), old) in self.at.iter().flatten().zip(saved) {
            v.b[colour][index] = old;
        }
        max
    }
}
