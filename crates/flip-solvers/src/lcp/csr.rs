//! Sparse storage of the hierarchy (Lai et al. §4.3): compressed rows for restrictions and
//! coarse matrices in grid order, fixed-width rows for interpolations, multicolouring and
//! permutations. Everything is built into reused buffers and in parallel where it pays.

use super::matrix::Rows;
use rayon::prelude::*;

/// Below this many stored entries a kernel runs on one thread (rayon's overhead dominates).
pub(crate) const PAR_WORK: usize = 24 * 1024;

/// Rows per parallel block when building.
pub(crate) const BLOCK: usize = 512;

/// Whether a pass over `rows` rows of about `per_row` entries each is worth parallelising.
#[inline]
pub(crate) fn parallel(rows: usize, per_row: usize) -> bool {
    rows * per_row.max(1) >= PAR_WORK && rows >= 64
}

/// A sparse matrix in compressed-row form.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    /// Number of columns.
    pub n_cols: usize,
    /// Row `i` occupies `ptr[i]..ptr[i + 1]`.
    pub ptr: Vec<usize>,
    /// Column indices.
    pub col: Vec<u32>,
    /// Values.
    pub val: Vec<f64>,
    /// Optional codes of the values (`table[code[k]] == val[k]`; empty when unused).
    pub code: Vec<u16>,
    /// The value of each code.
    pub table: Vec<f64>,
}

impl Csr {
    /// Builds a matrix from per-row `(column, value)` lists; duplicates are summed, zeros kept,
    /// columns sorted (small or rarely built matrices).
    pub fn from_rows(n_cols: usize, rows: Vec<Vec<(u32, f64)>>) -> Self {
        let mut m = Self {
            n_cols,
            ptr: vec![0],
            ..Self::default()
        };
        for mut row in rows {
            row.sort_unstable_by_key(|e| e.0);
            let start = m.col.len();
            for (c, v) in row {
                if m.col.len() > start && m.col.last() == Some(&c) {
                    *m.val.last_mut().expect("non-empty") += v;
                } else {
                    m.col.push(c);
                    m.val.push(v);
                }
            }
            m.ptr.push(m.col.len());
        }
        m
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.ptr.len() - 1
    }

    /// Mean entries per row.
    pub fn per_row(&self) -> usize {
        self.col.len() / self.n_rows().max(1)
    }

    /// Columns and values of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.ptr[i]..self.ptr[i + 1];
        (&self.col[r.clone()], &self.val[r])
    }

    /// `(M x)[i]`.
    #[inline]
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let (c, v) = self.row(i);
        c.iter().zip(v).map(|(&j, &a)| a * x[j as usize]).sum()
    }

    /// `y = M x` (row-parallel).
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        let f = |(i, o): (usize, &mut f64)| *o = self.row_dot(i, x);
        if parallel(y.len(), self.per_row()) {
            y.par_iter_mut().enumerate().with_min_len(256).for_each(f);
        } else {
            y.iter_mut().enumerate().for_each(f);
        }
    }

    /// Writes rows `row_old[0], row_old[1], …` of `self` into `out`, mapping every column
    /// through `map` (parallel over blocks of rows; `out` keeps its allocations).
    pub fn permute_into(&self, row_old: &[u32], map: Option<&[u32]>, out: &mut Csr) {
        out.n_cols = self.n_cols;
        out.ptr.clear();
        out.ptr.push(0);
        let mut n = 0;
        for &r in row_old {
            n += self.ptr[r as usize + 1] - self.ptr[r as usize];
            out.ptr.push(n);
        }
        out.col.resize(n, 0);
        out.val.resize(n, 0.0);
        let coded = !self.code.is_empty();
        out.code.resize(if coded { n } else { 0 }, 0);
        out.table.clone_from(&self.table);
        let fill = |(b, ((cs, vs), ks)): (usize, (Part<'_>, &mut [u16]))| {
            let mut k = 0;
            for &r in &row_old[b * BLOCK..((b + 1) * BLOCK).min(row_old.len())] {
                let rows = self.ptr[r as usize]..self.ptr[r as usize + 1];
                let (c, v) = (&self.col[rows.clone()], &self.val[rows.clone()]);
                let m = c.len();
                match map {
                    Some(map) => cs[k..k + m]
                        .iter_mut()
                        .zip(c)
                        .for_each(|(o, &j)| *o = map[j as usize]),
                    None => cs[k..k + m].copy_from_slice(c),
                }
                vs[k..k + m].copy_from_slice(v);
                if coded {
                    ks[k..k + m].copy_from_slice(&self.code[rows]);
                }
                k += m;
            }
        };
        let blocks = split_blocks(&out.ptr, &mut out.col, &mut out.val);
        let codes = split_codes(&out.ptr, &mut out.code, coded);
        let work = blocks.into_iter().zip(codes).enumerate();
        if parallel(row_old.len(), self.per_row()) {
            work.collect::<Vec<_>>().into_par_iter().for_each(fill);
        } else {
            work.for_each(fill);
        }
    }
}

impl Rows for Csr {
    fn per_row(&self) -> usize {
        Csr::per_row(self)
    }
    #[inline]
    fn for_row(&self, i: usize, mut f: impl FnMut(u32, f64)) {
        let (c, v) = self.row(i);
        c.iter().zip(v).for_each(|(&j, &x)| f(j, x));
    }
}

/// Columns and values of a block of rows, being written.
pub(crate) type Part<'a> = (&'a mut [u32], &'a mut [f64]);

/// Rows built by one parallel task: entries per row, columns, values and (optionally) codes.
#[derive(Default)]
pub(crate) struct Block {
    pub lens: Vec<u32>,
    pub cols: Vec<u32>,
    pub vals: Vec<f64>,
    pub codes: Vec<u16>,
}

impl Csr {
    /// Concatenates blocks of rows (in parallel when large); codes are kept when every block
    /// has them.
    pub fn set_from_blocks(&mut self, n_cols: usize, blocks: &[Block]) {
        self.n_cols = n_cols;
        self.ptr.clear();
        self.ptr.push(0);
        let mut len = 0;
        for b in blocks {
            for &l in &b.lens {
                len += l as usize;
                self.ptr.push(len);
            }
        }
        self.col.resize(len, 0);
        self.val.resize(len, 0.0);
        let coded = len > 0 && blocks.iter().all(|b| b.codes.len() == b.cols.len());
        self.code.resize(if coded { len } else { 0 }, 0);
        let rows = self.n_rows();
        let dst = split_blocks(&self.ptr, &mut self.col, &mut self.val);
        let codes = split_codes(&self.ptr, &mut self.code, coded);
        let copy = |(((c, v), k), b): ((Part<'_>, &mut [u16]), &Block)| {
            c.copy_from_slice(&b.cols);
            v.copy_from_slice(&b.vals);
            if !k.is_empty() {
                k.copy_from_slice(&b.codes);
            }
        };
        if parallel(rows, len / rows.max(1)) {
            let work: Vec<_> = dst.into_iter().zip(codes).collect();
            work.into_par_iter().zip(blocks.par_iter()).for_each(copy);
        } else {
            dst.into_iter().zip(codes).zip(blocks.iter()).for_each(copy);
        }
    }
}

/// Splits `col`/`val` into the slices of consecutive blocks of [`BLOCK`] rows of `ptr`.
pub(crate) fn split_blocks<'a, T, U>(
    ptr: &[usize],
    mut col: &'a mut [T],
    mut val: &'a mut [U],
) -> Vec<(&'a mut [T], &'a mut [U])> {
    let n = ptr.len() - 1;
    let mut out = Vec::with_capacity(n.div_ceil(BLOCK));
    for b in (0..n).step_by(BLOCK) {
        let len = ptr[(b + BLOCK).min(n)] - ptr[b];
        let (c, rest_c) = std::mem::take(&mut col).split_at_mut(len);
        let (v, rest_v) = std::mem::take(&mut val).split_at_mut(len);
        out.push((c, v));
        (col, val) = (rest_c, rest_v);
    }
    out
}

/// [`split_blocks`] for codes (empty slices when there are none).
fn split_codes<'a>(ptr: &[usize], mut code: &'a mut [u16], coded: bool) -> Vec<&'a mut [u16]> {
    let n = ptr.len() - 1;
    (0..n)
        .step_by(BLOCK)
        .map(|b| {
            let len = if coded {
                ptr[(b + BLOCK).min(n)] - ptr[b]
            } else {
                0
            };
            let (c, rest) = std::mem::take(&mut code).split_at_mut(len);
            code = rest;
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::level::{colour_order, inverse_into};

    #[test]
    fn permutation_and_colouring() {
        let a = Csr::from_rows(
            3,
            vec![
                vec![(0, 2.0), (1, -1.0)],
                vec![(0, -1.0), (1, 2.0), (2, -1.0)],
                vec![(1, -1.0), (2, 2.0), (2, 0.5)],
            ],
        );
        assert_eq!(a.row(2), (&[1u32, 2][..], &[-1.0, 2.5][..]));
        let (mut order, mut ranges, mut inv) = (Vec::new(), Vec::new(), Vec::new());
        colour_order(3, &a, &mut order, &mut ranges);
        assert_eq!(order, vec![0, 2, 1]);
        assert_eq!(ranges, vec![0..2, 2..3]);
        inverse_into(&order, &mut inv);
        assert_eq!(inv, vec![0, 2, 1]);
        let mut b = Csr::default();
        a.permute_into(&order, Some(&inv), &mut b);
        assert_eq!(b.ptr, vec![0, 2, 4, 7]);
        assert_eq!(b.row(1), (&[2u32, 1][..], &[-1.0, 2.5][..]));
        let x = [1.0, 2.0, 3.0];
        let mut y = [0.0; 3];
        b.mul(&x, &mut y);
        assert_eq!(y, [2.0 - 3.0, -3.0 + 2.5 * 2.0, -1.0 + 6.0 - 2.0]);
    }
}
