//! Exact solve on the coarsest level by dense Cholesky (a few hundred unknowns at most).
//!
//! A pure-Neumann region (no Dirichlet surplus anywhere on it: `A 1 = 0`) is singular; its
//! block is regularised to `A + α 1 1ᵀ`, whose solution for a range right-hand side is the
//! zero-mean solution of `A x = b`. The right-hand side is projected onto the range first, so
//! the coarse problem is always consistent.

use super::level::Level;
use crate::neumann::Regions;
use crate::stencil::Stencil;

/// Factorised coarsest-level operator.
#[derive(Default)]
pub(crate) struct CoarseSolver {
    /// Padded indices of the unknowns.
    cells: Vec<usize>,
    /// Region of each unknown.
    region: Vec<u32>,
    /// Per region: singular, and its number of unknowns.
    singular: Vec<(bool, usize)>,
    /// Lower Cholesky factor, row-major `n × n`.
    l: Vec<f64>,
    /// Work vector.
    work: Vec<f64>,
}

impl CoarseSolver {
    /// Factorises the operator of `level`.
    pub fn factor(&mut self, level: &Level) {
        let off = level.off_arrays();
        let stencil = Stencil {
            dims: level.pdims,
            kind: &level.kind,
            diag: &level.diag,
            off: [&off[0], &off[1], &off[2]],
        };
        let regions = Regions::find(&stencil);
        self.cells.clear();
        self.region.clear();
        for c in 0..level.len() {
            if level.coef[c].inv_diag != 0.0 {
                self.cells.push(c);
                self.region.push(regions.label[c]);
            }
        }
        // Singular: no Dirichlet surplus on any cell of the region.
        let mut surplus = vec![0.0f64; regions.size.len()];
        let mut size = vec![0usize; regions.size.len()];
        let mut diag_sum = vec![0.0f64; regions.size.len()];
        for (&c, &r) in self.cells.iter().zip(&self.region) {
            surplus[r as usize] += f64::from(level.excess[c]).abs();
            size[r as usize] += 1;
            diag_sum[r as usize] += f64::from(level.diag[c]);
        }
        self.singular = surplus
            .iter()
            .zip(&size)
            .map(|(&s, &m)| (s == 0.0, m))
            .collect();
        let n = self.cells.len();
        let index = |c: usize| self.cells.binary_search(&c).ok();
        let mut a = vec![0.0f64; n * n];
        for (row, &c) in self.cells.iter().enumerate() {
            a[row * n + row] = f64::from(level.diag[c]);
            for ax in 0..3 {
                let o = f64::from(level.coef[c].off[ax]);
                if o == 0.0 {
                    continue;
                }
                if let Some(col) = index(c + level.stride[ax]) {
                    a[row * n + col] += o;
                    a[col * n + row] += o;
                }
            }
        }
        for (row, &r) in self.region.iter().enumerate() {
            let (singular, m) = self.singular[r as usize];
            if !singular {
                continue;
            }
            let alpha = diag_sum[r as usize] / (m * m) as f64;
            for (col, &r2) in self.region.iter().enumerate() {
                if r2 == r {
                    a[row * n + col] += alpha;
                }
            }
        }
        cholesky(&mut a, n);
        self.l = a;
        self.work = vec![0.0; n];
    }

    /// Solves `A x = b` on `level` (reads `level.b`, writes `level.x` on unknowns).
    pub fn solve(&mut self, level: &Level) {
        let n = self.cells.len();
        if n == 0 {
            return;
        }
        for (w, &c) in self.work.iter_mut().zip(&self.cells) {
            *w = f64::from(level.b[c]);
        }
        self.remove_mean();
        let l = &self.l;
        let x = &mut self.work;
        for i in 0..n {
            let s: f64 = (0..i).map(|j| l[i * n + j] * x[j]).sum();
            x[i] = (x[i] - s) / l[i * n + i];
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| l[j * n + i] * x[j]).sum();
            x[i] = (x[i] - s) / l[i * n + i];
        }
        self.remove_mean();
        for (&w, &c) in self.work.iter().zip(&self.cells) {
            level.x.set(c, w as f32);
        }
    }

    /// Subtracts the mean of `work` on each singular region.
    fn remove_mean(&mut self) {
        if !self.singular.iter().any(|s| s.0) {
            return;
        }
        let mut sum = vec![0.0f64; self.singular.len()];
        for (&w, &r) in self.work.iter().zip(&self.region) {
            sum[r as usize] += w;
        }
        for (w, &r) in self.work.iter_mut().zip(&self.region) {
            let (singular, m) = self.singular[r as usize];
            if singular {
                *w -= sum[r as usize] / m as f64;
            }
        }
    }
}

/// In-place dense Cholesky `A = L Lᵀ` (lower triangle). A pivot lost to round-off is replaced
/// by the original diagonal so the factor stays usable.
fn cholesky(a: &mut [f64], n: usize) {
    for j in 0..n {
        let orig = a[j * n + j];
        let s: f64 = (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum();
        let mut d = orig - s;
        if d <= 1e-12 * orig.abs().max(f64::MIN_POSITIVE) {
            d = orig.abs().max(1e-30);
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
            a[i * n + j] = (a[i * n + j] - s) / d;
        }
        for i in 0..j {
            a[i * n + j] = 0.0;
        }
    }
}
