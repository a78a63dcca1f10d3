//! Symmetric successive over-relaxation in red-black order as a CG preconditioner (Saad,
//! *Iterative Methods for Sparse Linear Systems*, 2nd ed., §10.2; red-black ordering §12.4).
//!
//! One application is one SSOR step from `z = 0`: a forward sweep (red cells, then black) and a
//! backward sweep (black, then red), giving `z = ω(2−ω) (D + ωU)⁻¹ D (D + ωL)⁻¹ r`, symmetric
//! positive definite for `0 < ω < 2`. Red cells (`i + j + k` even) couple only to black ones,
//! so each half-sweep is a parallel loop. From `z = 0` the four half-sweeps reduce to three:
//! the backward black sweep sees the same red values as the forward one and just scales
//! `z_B` by `2 − ω`.

use super::precond::{inverse_diagonal, Preconditioner};
use crate::stencil::Stencil;
use rayon::prelude::*;

/// Tuning of red-black SSOR.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsorConfig {
    /// Relaxation factor, in (0, 2).
    pub omega: f64,
}

impl Default for SsorConfig {
    fn default() -> Self {
        Self { omega: 1.0 }
    }
}

/// Red-black SSOR preconditioner.
#[derive(Clone, Debug)]
pub struct RedBlackSsor {
    config: SsorConfig,
    inv_diag: Vec<f64>,
    /// Red values after the forward red sweep (0 on black cells).
    red: Vec<f64>,
    /// Black values after both black sweeps (0 on red cells).
    black: Vec<f64>,
}

impl RedBlackSsor {
    /// A preconditioner with `config`.
    pub fn new(config: SsorConfig) -> Self {
        Self {
            config,
            inv_diag: Vec::new(),
            red: Vec::new(),
            black: Vec::new(),
        }
    }

    /// The tuning in use.
    pub fn config(&self) -> SsorConfig {
        self.config
    }
}

/// Calls `f(c, is_red, out)` for every cell of every grid row, rows in parallel.
fn for_each_row(a: &Stencil<'_>, out: &mut [f64], f: impl Fn(usize, bool, &mut f64) + Sync) {
    let [ni, nj, _] = a.dims;
    out.par_chunks_mut(ni).enumerate().for_each(|(row, cells)| {
        let parity = (row % nj + row / nj) % 2;
        for (i, v) in cells.iter_mut().enumerate() {
            f(row * ni + i, (i + parity) % 2 == 0, v);
        }
    });
}

impl Preconditioner for RedBlackSsor {
    fn setup(&mut self, a: &Stencil<'_>) {
        inverse_diagonal(a, &mut self.inv_diag);
        self.red.resize(a.len(), 0.0);
        self.black.resize(a.len(), 0.0);
    }

    fn apply(&mut self, a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        let w = self.config.omega;
        let inv = &self.inv_diag;
        // Forward sweep, red cells (z = 0): z_R = ω D⁻¹ r_R.
        for_each_row(a, &mut self.red, |c, red, v| {
            *v = if red { w * inv[c] * r[c] } else { 0.0 };
        });
        // Forward sweep, black cells, then the backward black sweep (a factor 2 − ω):
        // z_B = (2 − ω) ω D⁻¹ (r_B − A_BR z_R).
        let red_z = &self.red;
        for_each_row(a, &mut self.black, |c, red, v| {
            *v = if red {
                0.0
            } else {
                (2.0 - w) * w * inv[c] * (r[c] - a.row_dot(c, red_z))
            };
        });
        // Backward sweep, red cells: z_R ← (1 − ω) z_R + ω D⁻¹ (r_R − A_RB z_B).
        let black_z = &self.black;
        for_each_row(a, z, |c, red, v| {
            *v = if red {
                (1.0 - w) * red_z[c] + w * inv[c] * (r[c] - a.row_dot(c, black_z))
            } else {
                black_z[c]
            };
        });
    }
}
