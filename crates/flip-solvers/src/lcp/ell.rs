//! Interpolation matrices in fixed-width rows: a fine unknown takes at most `2^d` coarse values
//! (3 or 4 with Lai's barycentric weights), so rows are filled in parallel in place and the
//! products need no row pointers.

use super::csr::{parallel, Csr};
use super::matrix::Rows;
use rayon::prelude::*;

/// Rows of at most `width` entries; row `i` holds `len[i]` of them from `i · width` on.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ell {
    /// Most entries per row.
    pub width: usize,
    /// Number of columns.
    pub n_cols: usize,
    /// Entries of each row.
    pub len: Vec<u8>,
    /// Column indices (`width` per row).
    pub col: Vec<u32>,
    /// Values (`width` per row).
    pub val: Vec<f64>,
    /// Per entry, a code with `table[code] == val` (few distinct weights: the hot loops of the
    /// finest level read 2 bytes instead of 8).
    pub code: Vec<u16>,
    /// The value of each code.
    pub table: Vec<f64>,
}

impl Ell {
    /// Resizes to `n` rows of `width` (contents unspecified until filled; a row's unused slots
    /// must hold column 0 and value 0, see [`Ell::row_dot`]).
    pub fn reset(&mut self, n: usize, width: usize, n_cols: usize) {
        self.width = width;
        self.n_cols = n_cols;
        self.len.resize(n, 0);
        self.col.resize(n * width, 0);
        self.val.resize(n * width, 0.0);
        self.code.resize(n * width, 0);
    }

    /// Columns and values of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let s = i * self.width;
        let e = s + self.len[i] as usize;
        (&self.col[s..e], &self.val[s..e])
    }

    /// `(M x)[i]` over the whole fixed-width row: unused slots add `0 · x[0]` (no branch per
    /// row; `x` is finite wherever this is used).
    #[inline]
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let s = i * self.width;
        let (c, v) = (&self.col[s..s + self.width], &self.val[s..s + self.width]);
        c.iter().zip(v).map(|(&j, &a)| a * x[j as usize]).sum()
    }

    /// `y = M x`.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        let f = |(i, o): (usize, &mut f64)| *o = self.row_dot(i, x);
        if parallel(y.len(), self.width) {
            y.par_iter_mut().enumerate().with_min_len(256).for_each(f);
        } else {
            y.iter_mut().enumerate().for_each(f);
        }
    }

    /// `y += M x`.
    pub fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        let f = |(i, o): (usize, &mut f64)| *o += self.row_dot(i, x);
        if parallel(y.len(), self.width) {
            y.par_iter_mut().enumerate().with_min_len(256).for_each(f);
        } else {
            y.iter_mut().enumerate().for_each(f);
        }
    }

    /// Renumbers the columns through `map` (each row sorted again).
    pub fn map_columns(&mut self, map: &[u32]) {
        let w = self.width.max(1);
        type Row<'a> = (((&'a mut [u32], &'a mut [f64]), &'a mut [u16]), &'a u8);
        let f = |(((c, v), k), &l): Row<'_>| {
            let (c, v, k) = (
                &mut c[..l as usize],
                &mut v[..l as usize],
                &mut k[..l as usize],
            );
            c.iter_mut().for_each(|j| *j = map[*j as usize]);
            for e in 1..c.len() {
                let mut q = e;
                while q > 0 && c[q - 1] > c[q] {
                    c.swap(q - 1, q);
                    v.swap(q - 1, q);
                    k.swap(q - 1, q);
                    q -= 1;
                }
            }
        };
        if parallel(self.len.len(), w) {
            self.col
                .par_chunks_mut(w)
                .zip(self.val.par_chunks_mut(w))
                .zip(self.code.par_chunks_mut(w))
                .zip(self.len.par_iter())
                .for_each(f);
        } else {
            self.col
                .chunks_mut(w)
                .zip(self.val.chunks_mut(w))
                .zip(self.code.chunks_mut(w))
                .zip(&self.len)
                .for_each(f);
        }
    }

    /// `y[pos[u]] += (M e)_u`, with the weights read through their codes (`pos` increasing, so
    /// blocks of rows own disjoint ranges of `y`).
    pub fn mul_add_at(&self, pos: &[u32], e: &[f64], y: &mut [f64]) {
        const B: usize = 4096;
        let w = self.width;
        let mut parts = Vec::with_capacity(pos.len().div_ceil(B));
        let (mut rest, mut offset) = (y, 0);
        for b in (0..pos.len()).step_by(B) {
            let end = pos.get(b + B).map_or(offset + rest.len(), |&q| q as usize);
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(end - offset);
            parts.push((b, offset, part));
            (rest, offset) = (tail, end);
        }
        let block = |(b, start, part): (usize, usize, &mut [f64])| {
            for u in b..(b + B).min(pos.len()) {
                let s = u * w;
                let (c, k) = (&self.col[s..s + w], &self.code[s..s + w]);
                let mut acc = 0.0;
                for q in 0..self.len[u] as usize {
                    acc += self.table[k[q] as usize] * e[c[q] as usize];
                }
                part[pos[u] as usize - start] += acc;
            }
        };
        if parallel(pos.len(), w) {
            parts.into_par_iter().for_each(block);
        } else {
            parts.into_iter().for_each(block);
        }
    }
}

impl Ell {
    /// `out = scale · Mᵀ` with the codes (counting sort: columns of each row ascending).
    pub fn transpose_into(&self, scale: f64, out: &mut Csr) {
        let rows = self.len.len();
        out.n_cols = rows;
        out.ptr.clear();
        out.ptr.resize(self.n_cols + 1, 0);
        for i in 0..rows {
            for &c in self.row(i).0 {
                out.ptr[c as usize + 1] += 1;
            }
        }
        for i in 0..self.n_cols {
            out.ptr[i + 1] += out.ptr[i];
        }
        let nnz = out.ptr[self.n_cols];
        out.col.resize(nnz, 0);
        out.val.resize(nnz, 0.0);
        out.code.resize(nnz, 0);
        out.table.clear();
        out.table.extend(self.table.iter().map(|&v| scale * v));
        let mut next = out.ptr[..self.n_cols].to_vec();
        for i in 0..rows {
            let (cs, vs) = self.row(i);
            let ks = &self.code[i * self.width..];
            for ((&c, &v), &k) in cs.iter().zip(vs).zip(ks) {
                let slot = &mut next[c as usize];
                out.col[*slot] = i as u32;
                out.val[*slot] = scale * v;
                out.code[*slot] = k;
                *slot += 1;
            }
        }
    }
}

impl Rows for Ell {
    fn per_row(&self) -> usize {
        self.width
    }
    #[inline]
    fn for_row(&self, i: usize, mut f: impl FnMut(u32, f64)) {
        let (c, v) = self.row(i);
        c.iter().zip(v).for_each(|(&j, &x)| f(j, x));
    }
}
