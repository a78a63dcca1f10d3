//! Compressed sparse rows: the fine matrix, interpolation/restriction operators and the Galerkin
//! products `A^H = R A^h P` of Lai et al. §4.3. Row-parallel products (each row is independent).

use rayon::prelude::*;

/// Below this many rows, products run on one thread (rayon's overhead dominates).
pub(crate) const PAR_ROWS: usize = 4096;

/// A sparse matrix in compressed-row form (columns sorted within a row).
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
}

impl Csr {
    /// Builds a matrix from per-row `(column, value)` lists; duplicates are summed, zeros kept.
    pub fn from_rows(n_cols: usize, rows: Vec<Vec<(u32, f64)>>) -> Self {
        let mut ptr = Vec::with_capacity(rows.len() + 1);
        ptr.push(0);
        let nnz: usize = rows.iter().map(Vec::len).sum();
        let (mut col, mut val) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
        for mut row in rows {
            row.sort_unstable_by_key(|e| e.0);
            let start = col.len();
            for (c, v) in row {
                if col.len() > start && *col.last().expect("non-empty") == c {
                    *val.last_mut().expect("non-empty") += v;
                } else {
                    col.push(c);
                    val.push(v);
                }
            }
            ptr.push(col.len());
        }
        Self {
            n_cols,
            ptr,
            col,
            val,
        }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.ptr.len() - 1
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
        if y.len() < PAR_ROWS {
            y.iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = self.row_dot(i, x));
        } else {
            y.par_iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = self.row_dot(i, x));
        }
    }

    /// `y += M x` (row-parallel).
    pub fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        if y.len() < PAR_ROWS {
            y.iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o += self.row_dot(i, x));
        } else {
            y.par_iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o += self.row_dot(i, x));
        }
    }

    /// The transpose (sequential counting sort; done once per hierarchy).
    pub fn transpose(&self) -> Self {
        let mut count = vec![0usize; self.n_cols + 1];
        for &c in &self.col {
            count[c as usize + 1] += 1;
        }
        for i in 0..self.n_cols {
            count[i + 1] += count[i];
        }
        let ptr = count.clone();
        let mut next = count;
        let (mut col, mut val) = (vec![0u32; self.col.len()], vec![0.0; self.val.len()]);
        for i in 0..self.n_rows() {
            let (cs, vs) = self.row(i);
            for (&c, &v) in cs.iter().zip(vs) {
                let slot = next[c as usize];
                col[slot] = i as u32;
                val[slot] = v;
                next[c as usize] += 1;
            }
        }
        Self {
            n_cols: self.n_rows(),
            ptr,
            col,
            val,
        }
    }

    /// `self · other` (row-parallel; each row merges its products by sorting).
    pub fn matmul(&self, other: &Csr) -> Self {
        let row = |i: usize| {
            let (cs, vs) = self.row(i);
            let mut acc: Vec<(u32, f64)> = Vec::with_capacity(cs.len() * 8);
            for (&k, &a) in cs.iter().zip(vs) {
                let (c2, v2) = other.row(k as usize);
                acc.extend(c2.iter().zip(v2).map(|(&j, &b)| (j, a * b)));
            }
            acc
        };
        let rows: Vec<Vec<(u32, f64)>> = if self.n_rows() < PAR_ROWS {
            (0..self.n_rows()).map(row).collect()
        } else {
            (0..self.n_rows()).into_par_iter().map(row).collect()
        };
        Self::from_rows(other.n_cols, rows)
    }

    /// Multiplies every entry by `s`.
    pub fn scale(&mut self, s: f64) {
        self.val.iter_mut().for_each(|v| *v *= s);
    }

    /// Renumbers rows and columns: row `i` of the result is row `row_old[i]` of `self`; column
    /// `j` becomes `col_new[j]`.
    pub fn permute(&self, row_old: &[u32], col_new: &[u32]) -> Self {
        let rows = row_old
            .iter()
            .map(|&r| {
                let (cs, vs) = self.row(r as usize);
                cs.iter()
                    .zip(vs)
                    .map(|(&c, &v)| (col_new[c as usize], v))
                    .collect()
            })
            .collect();
        Self::from_rows(self.n_cols, rows)
    }

    /// The diagonal entries (0 where absent).
    pub fn diagonal(&self) -> Vec<f64> {
        (0..self.n_rows())
            .map(|i| {
                let (cs, vs) = self.row(i);
                cs.iter()
                    .position(|&c| c as usize == i)
                    .map_or(0.0, |p| vs[p])
            })
            .collect()
    }
}

/// Greedy multicolouring in index order: no two coupled unknowns share a colour, so each colour
/// class can be relaxed in parallel (red-black on a 5/7-point stencil, a few more colours on
/// the wider Galerkin stencils). Returns `(order, ranges)`: unknowns sorted by colour and the
/// range of each colour in that order.
pub(crate) fn colour_order(a: &Csr) -> (Vec<u32>, Vec<std::ops::Range<usize>>) {
    let n = a.n_rows();
    let mut colour = vec![u32::MAX; n];
    let mut used: Vec<bool> = Vec::new();
    let mut n_colours = 0usize;
    for i in 0..n {
        used.iter_mut().for_each(|u| *u = false);
        let (cs, _) = a.row(i);
        for &j in cs {
            let c = colour[j as usize];
            if c != u32::MAX {
                used[c as usize] = true;
            }
        }
        let c = used.iter().position(|u| !u).unwrap_or(used.len());
        if c == used.len() {
            used.push(false);
            n_colours += 1;
        }
        colour[i] = c as u32;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (colour[i as usize], i));
    let mut ranges = Vec::with_capacity(n_colours);
    let mut start = 0;
    for c in 0..n_colours as u32 {
        let len = colour.iter().filter(|&&x| x == c).count();
        ranges.push(start..start + len);
        start += len;
    }
    (order, ranges)
}

/// Inverse of a permutation given as `new → old`.
pub(crate) fn inverse(order: &[u32]) -> Vec<u32> {
    let mut inv = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        inv[old as usize] = new as u32;
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_matmul_and_colouring_agree_with_dense() {
        let a = Csr::from_rows(
            3,
            vec![
                vec![(0, 2.0), (1, -1.0)],
                vec![(0, -1.0), (1, 2.0), (2, -1.0)],
                vec![(1, -1.0), (2, 2.0), (2, 0.5)],
            ],
        );
        let p = Csr::from_rows(
            2,
            vec![vec![(0, 1.0)], vec![(0, 0.5), (1, 0.5)], vec![(1, 1.0)]],
        );
        let rap = p.transpose().matmul(&a.matmul(&p));
        // dense check of P^T A P
        let dense = |m: &Csr| {
            let mut d = vec![vec![0.0; m.n_cols]; m.n_rows()];
            for (i, row) in d.iter_mut().enumerate() {
                let (c, v) = m.row(i);
                for (&j, &x) in c.iter().zip(v) {
                    row[j as usize] += x;
                }
            }
            d
        };
        let (da, dp) = (dense(&a), dense(&p));
        for i in 0..2 {
            for j in 0..2 {
                let mut s = 0.0;
                for k in 0..3 {
                    for l in 0..3 {
                        s += dp[k][i] * da[k][l] * dp[l][j];
                    }
                }
                assert!((dense(&rap)[i][j] - s).abs() < 1e-12);
            }
        }
        assert_eq!(a.diagonal(), vec![2.0, 2.0, 2.5]);
        let (order, ranges) = colour_order(&a);
        assert_eq!(order, vec![0, 2, 1]);
        assert_eq!(ranges, vec![0..2, 2..3]);
        assert_eq!(inverse(&order), vec![0, 2, 1]);
    }
}
