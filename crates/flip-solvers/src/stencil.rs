//! Matrix-free application of the 5/7-point pressure matrix and parallel reductions.
//!
//! Reductions are computed per grid row and summed in row order, so results are bit-identical
//! whatever the thread count.

use flip_abi::CELL_FLUID;
use flip_sdk::Problem;
use rayon::prelude::*;

/// Borrowed matrix of a pressure problem.
#[derive(Clone, Copy)]
pub struct Stencil<'a> {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// Cell kinds.
    pub kind: &'a [u8],
    /// Diagonal.
    pub diag: &'a [f32],
    /// +x, +y, +z couplings.
    pub off: [&'a [f32]; 3],
}

impl<'a> Stencil<'a> {
    /// The coupling graph of the matrix, for [`flip_sdk::regions::Regions`].
    pub fn couplings(&self) -> flip_sdk::regions::Grid<'a> {
        flip_sdk::regions::Grid::new(self.dims, self.kind, self.diag, self.off)
    }

    /// The matrix of `p` (borrows only the matrix arrays, so `p.pressure` stays writable).
    pub fn of(p: &Problem<'a>) -> Self {
        Self {
            dims: p.dims,
            kind: p.cell_kind,
            diag: p.diag,
            off: p.off,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether the grid is empty.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Strides of the three axes.
    #[inline]
    pub fn strides(&self) -> [usize; 3] {
        [1, self.dims[0], self.dims[0] * self.dims[1]]
    }

    /// `(A x)[c]` for a fluid cell `c` (0 elsewhere).
    #[inline]
    pub fn row_dot(&self, c: usize, x: &[f64]) -> f64 {
        if self.kind[c] != CELL_FLUID {
            return 0.0;
        }
        let s = self.strides();
        let mut acc = self.diag[c] as f64 * x[c];
        for a in 0..3 {
            let o = self.off[a][c];
            if o != 0.0 {
                acc += o as f64 * x[c + s[a]];
            }
            if c >= s[a] {
                let o = self.off[a][c - s[a]];
                if o != 0.0 {
                    acc += o as f64 * x[c - s[a]];
                }
            }
        }
        acc
    }

    /// `y = A x` (0 on non-fluid cells).
    pub fn apply(&self, x: &[f64], y: &mut [f64]) {
        let ni = self.dims[0];
        y.par_chunks_mut(ni).enumerate().for_each(|(row, out)| {
            let base = row * ni;
            for (i, o) in out.iter_mut().enumerate() {
                *o = self.row_dot(base + i, x);
            }
        });
    }

    /// `r = b - A x` on fluid cells (0 elsewhere); returns `max |r|`.
    pub fn residual(&self, b: &[f64], x: &[f64], r: &mut [f64]) -> f64 {
        let ni = self.dims[0];
        r.par_chunks_mut(ni)
            .enumerate()
            .map(|(row, out)| {
                let base = row * ni;
                let mut m = 0.0f64;
                for (i, o) in out.iter_mut().enumerate() {
                    let c = base + i;
                    *o = if self.kind[c] == CELL_FLUID {
                        b[c] - self.row_dot(c, x)
                    } else {
                        0.0
                    };
                    m = max_nan(m, o.abs());
                }
                m
            })
            .reduce(|| 0.0, max_nan)
    }
}

/// Row-ordered, thread-count-independent dot product.
pub fn dot(a: &[f64], b: &[f64], row: usize) -> f64 {
    let partial: Vec<f64> = a
        .par_chunks(row)
        .zip(b.par_chunks(row))
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>())
        .collect();
    partial.iter().sum()
}

/// `max(a, b)` that propagates NaN (so a diverged solve is never reported as converged).
#[inline]
pub fn max_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// `max |a|` (NaN if any entry is NaN).
pub fn norm_inf(a: &[f64]) -> f64 {
    a.par_iter().map(|v| v.abs()).reduce(|| 0.0, max_nan)
}

/// `y += alpha * x`.
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    y.par_iter_mut()
        .zip(x.par_iter())
        .for_each(|(y, x)| *y += alpha * x);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{self, Scene};

    #[test]
    fn apply_matches_residual_and_is_symmetric() {
        let mut p = fixtures::build(Scene::DamBreak, [12, 10, 1], 7);
        let n = p.cell_count();
        let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
        let z: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64 - 3.0).collect();
        let view = p.view();
        let a = Stencil::of(&view);
        let (mut ax, mut az, mut r) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        a.apply(&x, &mut ax);
        a.apply(&z, &mut az);
        // <z, A x> == <x, A z>
        assert!((dot(&z, &ax, 12) - dot(&x, &az, 12)).abs() < 1e-9);
        let zeros = vec![0.0; n];
        a.residual(&zeros, &x, &mut r);
        for c in 0..n {
            assert!((r[c] + ax[c]).abs() < 1e-12);
        }
    }
}
