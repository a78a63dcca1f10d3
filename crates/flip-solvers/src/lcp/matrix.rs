//! The matrix of one level, numbered colour by colour. The diagonal lives in the level; each
//! row stores its off-diagonal entries with smaller columns first, then larger ones. Unknowns of a colour are not coupled, so in a colour's Gauss-Seidel update the
//! first part reads only earlier colours and the second only later ones: the smoother needs no
//! branch per entry. When every coupling has the same value (the host's unit stencil on the
//! fine level) no values are stored at all.

use super::csr::{parallel, split_blocks, Part, BLOCK};
use rayon::prelude::*;

/// Row access shared by the sparse formats a level is built from.
pub(crate) trait Rows: Sync {
    /// Typical entries per row.
    fn per_row(&self) -> usize;
    /// Calls `f(column, value)` for every entry of row `i`.
    fn for_row(&self, i: usize, f: impl FnMut(u32, f64));
}

/// Off-diagonal rows split at the diagonal (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct LevelMatrix {
    /// Off-diagonal entries of row `i` occupy `ptr[i]..ptr[i + 1]`.
    pub ptr: Vec<u32>,
    /// Number of entries of row `i` with a smaller column.
    pub nlo: Vec<u16>,
    /// Column indices.
    pub col: Vec<u32>,
    /// Values (empty when `uniform`).
    pub val: Vec<f64>,
    /// The value of every coupling, when they are all equal.
    pub uniform: Option<f64>,
}

impl LevelMatrix {
    /// Mean off-diagonal entries per row.
    pub fn per_row(&self) -> usize {
        self.col.len() / self.ptr.len().saturating_sub(1).max(1)
    }

    /// `Σ_{j<i} a_ij x_j` with `x_j = before[j]` plus `Σ_{j>i} a_ij x_j` with
    /// `x_j = after[j − end]`, summed in storage order.
    #[inline]
    pub fn sigma(&self, i: usize, before: &[f64], after: &[f64], end: usize) -> f64 {
        let (s, e) = (self.ptr[i] as usize, self.ptr[i + 1] as usize);
        let m = s + self.nlo[i] as usize;
        let mut sigma = 0.0;
        match self.uniform {
            Some(w) => {
                for &j in &self.col[s..m] {
                    sigma += w * before[j as usize];
                }
                for &j in &self.col[m..e] {
                    sigma += w * after[j as usize - end];
                }
            }
            None => {
                for (&j, &a) in self.col[s..m].iter().zip(&self.val[s..m]) {
                    sigma += a * before[j as usize];
                }
                for (&j, &a) in self.col[m..e].iter().zip(&self.val[m..e]) {
                    sigma += a * after[j as usize - end];
                }
            }
        }
        sigma
    }

    /// Calls `f(j, a_ij)` for the entries of row `i` in storage order, the diagonal `d` between
    /// the smaller and the larger columns.
    #[inline]
    pub fn entries(&self, i: usize, d: f64, mut f: impl FnMut(u32, f64)) {
        let (s, e) = (self.ptr[i] as usize, self.ptr[i + 1] as usize);
        let m = s + self.nlo[i] as usize;
        let value = |k: usize| self.uniform.unwrap_or_else(|| self.val[k]);
        (s..m).for_each(|k| f(self.col[k], value(k)));
        f(i as u32, d);
        (m..e).for_each(|k| f(self.col[k], value(k)));
    }

    /// `(A x)[i]` with diagonal `d`, summed in storage order.
    #[inline]
    pub fn row_dot(&self, i: usize, d: f64, x: &[f64]) -> f64 {
        let (s, e) = (self.ptr[i] as usize, self.ptr[i + 1] as usize);
        let m = s + self.nlo[i] as usize;
        let mut acc = 0.0;
        match self.uniform {
            Some(w) => {
                for &j in &self.col[s..m] {
                    acc += w * x[j as usize];
                }
                acc += d * x[i];
                for &j in &self.col[m..e] {
                    acc += w * x[j as usize];
                }
            }
            None => {
                for (&j, &a) in self.col[s..m].iter().zip(&self.val[s..m]) {
                    acc += a * x[j as usize];
                }
                acc += d * x[i];
                for (&j, &a) in self.col[m..e].iter().zip(&self.val[m..e]) {
                    acc += a * x[j as usize];
                }
            }
        }
        acc
    }

    /// Row `i` of the result is row `order[i]` of `a` (square, grid order), columns renumbered
    /// by `inv` (the inverse of `order`), smaller ones first; the diagonal goes to `diag` (0 if
    /// absent).
    pub fn permuted_from(
        &mut self,
        a: &impl Rows,
        order: &[u32],
        inv: &[u32],
        diag: &mut Vec<f64>,
    ) {
        let n = order.len();
        let par = parallel(n, a.per_row());
        // Off-diagonal entries per row, then the row pointers.
        let count = |&r: &u32| {
            let mut len = 0u32;
            a.for_row(r as usize, |j, _| len += u32::from(j != r));
            len
        };
        let lens: Vec<u32> = if par {
            order.par_iter().with_min_len(256).map(count).collect()
        } else {
            order.iter().map(count).collect()
        };
        self.ptr.clear();
        self.ptr.push(0);
        let mut len = 0u32;
        for &l in &lens {
            len = len.checked_add(l).expect("fewer than 2³² entries");
            self.ptr.push(len);
        }
        diag.clear();
        diag.resize(n, 0.0);
        self.nlo.clear();
        self.nlo.resize(n, 0);
        let ptr: Vec<usize> = self.ptr.iter().map(|&p| p as usize).collect();
        self.col.resize(len as usize, 0);
        self.val.resize(len as usize, 0.0);
        type Rows<'a> = (usize, (Part<'a>, (&'a mut [u16], &'a mut [f64])));
        let fill = |(b, ((cs, vs), (nlo, dg))): Rows<'_>| {
            let mut k = 0;
            for (q, (lo, d)) in nlo.iter_mut().zip(dg.iter_mut()).enumerate() {
                let i = b * BLOCK + q;
                let old = order[i];
                // Smaller columns first, then larger ones (each in the order of `a`).
                let start = k;
                a.for_row(old as usize, |j, x| {
                    let j = inv[j as usize];
                    if (j as usize) < i {
                        (cs[k], vs[k]) = (j, x);
                        k += 1;
                    }
                });
                *lo = (k - start) as u16;
                a.for_row(old as usize, |j, x| {
                    let jn = inv[j as usize];
                    if jn as usize > i {
                        (cs[k], vs[k]) = (jn, x);
                        k += 1;
                    } else if j == old {
                        *d += x;
                    }
                });
            }
        };
        let blocks = split_blocks(&ptr, &mut self.col, &mut self.val);
        let rows = blocks
            .into_iter()
            .zip(self.nlo.chunks_mut(BLOCK).zip(diag.chunks_mut(BLOCK)))
            .enumerate();
        if par {
            rows.collect::<Vec<_>>().into_par_iter().for_each(fill);
        } else {
            rows.for_each(fill);
        }
        // The host's unit stencil: one coupling value everywhere, then stored once.
        let first = self.val.first().copied();
        self.uniform = first.filter(|&w| self.val.par_iter().all(|&v| v.to_bits() == w.to_bits()));
        if self.uniform.is_some() {
            self.val.clear();
        }
    }
}

/// The off-diagonal entries.
impl Rows for LevelMatrix {
    fn per_row(&self) -> usize {
        LevelMatrix::per_row(self)
    }
    #[inline]
    fn for_row(&self, i: usize, mut f: impl FnMut(u32, f64)) {
        let (s, e) = (self.ptr[i] as usize, self.ptr[i + 1] as usize);
        for k in s..e {
            f(self.col[k], self.uniform.unwrap_or_else(|| self.val[k]));
        }
    }
}
