//! Exact solve on the coarsest level by dense Cholesky (a few hundred unknowns at most).
//!
//! A pure-Neumann region (no Dirichlet surplus anywhere on it: `A 1 = 0`) is singular; its
//! block is regularised to `A + α 1 1ᵀ`, whose solution for a range right-hand side is the
//! zero-mean solution of `A x = b`. The right-hand side is projected onto the range first, so
//! the coarse problem is always consistent.

use super::level::Level;
use crate::hierarchy::CoarseSolve;
use flip_sdk::regions::Regions;

/// Factorised coarsest-level operator.
#[derive(Default)]
pub(crate) struct CoarseSolver {
    /// Natural padded indices of the unknowns.
    cells: Vec<usize>,
    /// Colour and colour-split index of each unknown.
    split: Vec<(usize, usize)>,
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
        let regions = Regions::of(level);
        self.cells.clear();
        self.split.clear();
        self.region.clear();
        for c in 0..level.len() {
            if level.is_unknown(c) {
                self.cells.push(c);
                self.split.push(level.split(c));
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
                let o = f64::from(level.off[c][ax]);
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

    /// Colour and colour-split index of each unknown, in the factor's order.
    pub fn unknowns(&self) -> &[(usize, usize)] {
        &self.split
    }

    /// Solves `A x = b` on `level` (reads `level.b`, writes `level.x` on unknowns).
    pub fn solve(&mut self, level: &mut Level) {
        if self.cells.is_empty() {
            return;
        }
        for (w, &(colour, i)) in self.work.iter_mut().zip(&self.split) {
            *w = f64::from(level.cs[colour].b[i]);
        }
        self.substitute();
        for (&w, &(colour, i)) in self.work.iter().zip(&self.split) {
            level.cs[colour].x[i] = w as f32;
        }
    }

    /// `x += A⁻¹ (b - A x)` on `level` (a coarsest solve from a non-zero guess).
    pub fn correct(&mut self, level: &mut Level) {
        if self.cells.is_empty() {
            return;
        }
        for (row, (&c, &(colour, i))) in self.cells.iter().zip(&self.split).enumerate() {
            let x = |c: usize| {
                let (colour, i) = level.split(c);
                f64::from(level.cs[colour].x[i])
            };
            let mut r = f64::from(level.cs[colour].b[i]) - f64::from(level.diag[c]) * x(c);
            for a in 0..3 {
                let up = c + level.stride[a];
                if up < level.len() && level.is_unknown(up) {
                    r -= f64::from(level.off[c][a]) * x(up);
                }
                if c >= level.stride[a] && level.is_unknown(c - level.stride[a]) {
                    r -= f64::from(level.off[c - level.stride[a]][a]) * x(c - level.stride[a]);
                }
            }
            self.work[row] = r;
        }
        self.substitute();
        for (&w, &(colour, i)) in self.work.iter().zip(&self.split) {
            let x = &mut level.cs[colour].x[i];
            *x = (f64::from(*x) + w) as f32;
        }
    }

    /// `work = A⁻¹ work` (range projection on singular regions before and after).
    fn substitute(&mut self) {
        let n = self.cells.len();
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

impl CoarseSolve<Level> for CoarseSolver {
    fn solve(&mut self, level: &mut Level) {
        CoarseSolver::solve(self, level);
    }
    fn correct(&mut self, level: &mut Level) {
        CoarseSolver::correct(self, level);
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
