//! Incomplete Cholesky preconditioners on the 5/7-point stencil, as in Bridson's *Fluid
//! Simulation for Computer Graphics* (2nd ed., Fig. 5.7-5.8) and Batty's Fluid3D: `M = L Lᵀ`
//! with `L = F E⁻¹ + E`, `F` the strictly lower part of `A`, `E` diagonal, stored as
//! `precon[c] = 1 / E[c][c]`.
//!
//! - IC(0): `E² = diag − Σ (A_nb,c · precon_nb)²` over the -x, -y, -z neighbours.
//! - MIC(0) (Gustafsson 1978): additionally subtracts `τ` times the fill that IC(0) drops, so
//!   that row sums of `L Lᵀ` match those of `A` (τ = 0.97 in Bridson).
//! - Safety (both): if `E² < σ · diag` the pivot falls back to `diag` (σ = 0.25).
//!
//! Factorisation and both triangular solves are sequential sweeps in grid order (each cell
//! depends on its -x, -y, -z neighbours): this preconditioner does not use the thread pool.

use super::precond::Preconditioner;
use crate::stencil::Stencil;
use flip_abi::CELL_FLUID;

/// Tuning of MIC(0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mic0Config {
    /// Fraction of the dropped fill moved to the diagonal (0 = IC(0), 1 = full MIC).
    pub tau: f64,
    /// Safety: pivots below `sigma · diag` are replaced by `diag`.
    pub sigma: f64,
}

impl Default for Mic0Config {
    fn default() -> Self {
        Self {
            tau: 0.97,
            sigma: 0.25,
        }
    }
}

/// IC(0) / MIC(0) factor: per cell `[precon, lx, ly, lz]` with `l_a[c] = A[c][c+â] · precon[c]`,
/// stored in f32 (half the memory traffic of the sequential sweeps; `M` stays an exactly
/// symmetric operator, applied in f64).
#[derive(Clone, Debug)]
pub struct IncompleteCholesky {
    config: Mic0Config,
    factor: Vec<[f32; 4]>,
    /// Solution of the forward substitution `L q = r`.
    q: Vec<f64>,
}

impl IncompleteCholesky {
    /// IC(0) (τ = 0) with the usual safety σ = 0.25.
    pub fn ic0() -> Self {
        Self::mic0(Mic0Config {
            tau: 0.0,
            sigma: 0.25,
        })
    }

    /// MIC(0) with `config`.
    pub fn mic0(config: Mic0Config) -> Self {
        Self {
            config,
            factor: Vec::new(),
            q: Vec::new(),
        }
    }

    /// The tuning in use.
    pub fn config(&self) -> Mic0Config {
        self.config
    }
}

/// `A[c][c+â]` as f64, 0 unless both cells are fluid and inside the grid.
#[inline]
fn coupling(a: &Stencil<'_>, c: usize, axis: usize, pos: [usize; 3]) -> f64 {
    let s = a.strides();
    if pos[axis] + 1 >= a.dims[axis] || a.kind[c] != CELL_FLUID || a.kind[c + s[axis]] != CELL_FLUID
    {
        return 0.0;
    }
    a.off[axis][c] as f64
}

impl Preconditioner for IncompleteCholesky {
    fn setup(&mut self, a: &Stencil<'_>) {
        let Mic0Config { tau, sigma } = self.config;
        let [ni, nj, nk] = a.dims;
        let s = a.strides();
        self.factor.clear();
        self.factor.resize(a.len(), [0.0; 4]);
        let f = &mut self.factor;
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    let pos = [i, j, k];
                    let c = i + ni * (j + nj * k);
                    let d = a.diag[c] as f64;
                    if a.kind[c] != CELL_FLUID || d <= 0.0 {
                        continue; // no unknown, or an isolated cell: z = 0 there
                    }
                    // Pivot: diagonal minus the IC(0) terms and τ times the dropped fill.
                    let mut e = d;
                    for ax in 0..3 {
                        if pos[ax] == 0 {
                            continue;
                        }
                        let nb = c - s[ax];
                        let l = f[nb][1 + ax] as f64; // A[nb][c] · precon[nb]
                        let other: f64 = (0..3)
                            .filter(|&b| b != ax)
                            .map(|b| f[nb][1 + b] as f64)
                            .sum();
                        e -= l * l + tau * l * other;
                    }
                    // Safety: fall back to the diagonal for small pivots.
                    if e < sigma * d {
                        e = d;
                    }
                    let precon = 1.0 / e.sqrt();
                    f[c][0] = precon as f32;
                    for ax in 0..3 {
                        f[c][1 + ax] = (coupling(a, c, ax, pos) * precon) as f32;
                    }
                }
            }
        }
        self.q.resize(a.len(), 0.0);
    }

    fn apply(&mut self, a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        let (ni, n, s) = (a.dims[0], a.len(), a.strides());
        let (f, q) = (&self.factor, &mut self.q);
        // Forward substitution L q = r, row by row (earlier rows are final).
        for base in (0..n).step_by(ni) {
            let (done, rest) = q.split_at_mut(base);
            let (row, fr) = (&mut rest[..ni], &f[base..base + ni]);
            row.copy_from_slice(&r[base..base + ni]);
            // Couplings to the -y and -z neighbours.
            for ax in (1..3).filter(|&ax| base >= s[ax]) {
                let lo = base - s[ax];
                let terms = f[lo..lo + ni].iter().zip(&done[lo..lo + ni]);
                for (t, (fl, ql)) in row.iter_mut().zip(terms) {
                    *t -= fl[1 + ax] as f64 * ql;
                }
            }
            // The -x recurrence along the row.
            let mut prev = 0.0; // l_x[c-1] q[c-1]
            for (t, fc) in row.iter_mut().zip(fr) {
                *t = (*t - prev) * fc[0] as f64;
                prev = fc[1] as f64 * *t;
            }
        }
        // Backward substitution Lᵀ z = q, rows in reverse (later rows are final).
        for base in (0..n).step_by(ni).rev() {
            let (head, after) = z.split_at_mut(base + ni);
            let (row, fr) = (&mut head[base..], &f[base..base + ni]);
            row.copy_from_slice(&q[base..base + ni]);
            // Couplings to the +y and +z neighbours.
            for ax in (1..3).filter(|&ax| base + s[ax] < n) {
                let hi = base + s[ax] - (base + ni);
                let terms = fr.iter().zip(&after[hi..hi + ni]);
                for (t, (fc, zh)) in row.iter_mut().zip(terms) {
                    *t -= fc[1 + ax] as f64 * zh;
                }
            }
            // The +x recurrence, right to left.
            let mut next = 0.0; // z[c+1]
            for (t, fc) in row.iter_mut().zip(fr).rev() {
                *t = (*t - fc[1] as f64 * next) * fc[0] as f64;
                next = *t;
            }
        }
    }
}
