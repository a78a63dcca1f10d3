//! The rigid bodies' low-rank term `J C Jᵀ` of the coupled kind (Batty, Bertails & Bridson 2007,
//! §4) in the outer iteration's colour-split layout: MGPCG adds it to `q = A d` and to the true
//! residual through `J`'s sparse columns, `O(nnz J)` plus one small dense `C` product per body,
//! so a coupled iteration runs the same fused kernels as an uncoupled one.

use super::body_rows::BodyRows;
use super::{residual, Vectors};
use crate::multigrid::level::Level;
use flip_sdk::BodyTerms;
use rayon::prelude::*;

/// `J C Jᵀ` with `J`'s entries located in level 0's colour-split vectors.
pub(crate) struct LowRank<'a> {
    pub(super) terms: BodyTerms<'a>,
    /// `J` on level 0's unknowns by body and cell (a cell that is not an unknown has pressure
    /// 0, as `store` writes it, and is left out).
    rows: BodyRows,
}

impl<'a> LowRank<'a> {
    /// Locates `terms`' entries in `level` (level 0 of the hierarchy built for their grid).
    pub fn new(terms: BodyTerms<'a>, level: &Level) -> Self {
        let dofs = terms.dofs.max(1);
        let per_body = (0..terms.columns() / dofs)
            .into_par_iter()
            .map(|b| {
                (0..dofs)
                    .flat_map(|d| terms.column(b * dofs + d).map(move |(c, v)| (c, d, v)))
                    .collect()
            })
            .collect();
        let rows = BodyRows::build(level, dofs, per_body);
        Self { terms, rows }
    }

    /// `J` on level 0 by body and cell: the one place the coupled solve locates it.
    pub(super) fn rows(&self) -> &BodyRows {
        &self.rows
    }

    /// After [`super::direction`] (`z = level.x`, `d = z + β d`, `q = A z + β q`, the old `q`
    /// already holding the old direction's bodies' term): `q += J C Jᵀ z`, so that
    /// `q = (A + J C Jᵀ) d`; returns the term's part of `d · q`, `(Jᵀ d) · C Jᵀ z`.
    pub fn add_to_direction(&self, level: &Level, v: &mut Vectors) -> f64 {
        let z = [&level.cs[0].x[..], &level.cs[1].x[..]];
        let w = self.terms.weigh(&self.rows.transpose_times(z));
        let q = &mut v.q;
        self.rows.for_each_of_j_times(&w, |(colour, index), jw| {
            q[colour][index] = (f64::from(q[colour][index]) + jw) as f32;
        });
        let jd = self.rows.transpose_times([&v.d[0][..], &v.d[1][..]]);
        jd.iter().zip(&w).map(|(a, b)| a * b).sum()
    }

    /// The true residual of the coupled operator, `r = b − J C Jᵀ p − A p`, into `level.b`
    /// (as [`super::residual`], which it runs on `b` shifted by the bodies' term on `J`'s
    /// cells, in f64, then restored); returns `max |r|`.
    pub fn residual(&self, level: &mut Level, v: &mut Vectors) -> f64 {
        let w = (self.terms).weigh(&self.rows.transpose_times([&v.p[0][..], &v.p[1][..]]));
        let saved: Vec<f64> = (self.rows.cells().iter())
            .map(|&(_, (colour, index))| v.b[colour][index])
            .collect();
        let b = &mut v.b;
        (self.rows).for_each_of_j_times(&w, |(colour, index), jw| b[colour][index] -= jw);
        let max = residual(level, v);
        for (&(_, (colour, index)), old) in self.rows.cells().iter().zip(saved) {
            v.b[colour][index] = old;
        }
        max
    }
}
