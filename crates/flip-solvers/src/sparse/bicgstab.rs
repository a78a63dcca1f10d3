//! BiCGSTAB on a CSR matrix (van der Vorst 1992; Saad, *Iterative Methods for Sparse Linear
//! Systems*, Alg. 7.7) with the diagonal as right preconditioner: the Krylov method for the
//! unsymmetric point-wise operators of tall-cell grids, where CG does not apply. Sequential,
//! like the CSR CG.

use super::{linear_only, residual};
use crate::krylov::PcgConfig;
use crate::stencil::max_nan;
use flip_sdk::{cancelled, CsrProblem, PressureSolver, Problem, SolveError, SolveStats};

/// Jacobi-preconditioned BiCGSTAB on CSR problems, symmetric or not. Keeps nothing between
/// solves.
pub struct CsrBicgstab {
    config: PcgConfig,
}

impl CsrBicgstab {
    /// A solver with `config`.
    pub fn new(config: PcgConfig) -> Self {
        Self { config }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `out = A M⁻¹ v` and `mv = M⁻¹ v` (M = diag A).
fn apply(p: &CsrProblem<'_>, inv_diag: &[f64], v: &[f64], mv: &mut [f64], out: &mut [f64]) {
    for (i, m) in mv.iter_mut().enumerate() {
        *m = inv_diag[i] * v[i];
    }
    for (i, o) in out.iter_mut().enumerate() {
        *o = p.row(i).map(|(c, a)| a * mv[c]).sum();
    }
}

impl PressureSolver for CsrBicgstab {
    fn solve(&mut self, _: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        Err(SolveError::Unsupported(
            "BiCGSTAB takes CSR problems".into(),
        ))
    }

    fn solve_csr(&mut self, p: &mut CsrProblem<'_>) -> Result<SolveStats, SolveError> {
        linear_only(p, "BiCGSTAB")?;
        let n = p.rows();
        let inv_diag: Vec<f64> = (0..n)
            .map(|i| {
                let d = p.row(i).find(|&(c, _)| c == i).map_or(1.0, |e| e.1);
                if d != 0.0 {
                    1.0 / d
                } else {
                    1.0
                }
            })
            .collect();
        let b = p.rhs.to_vec();
        let mut x: Vec<f64> = p
            .pressure
            .iter()
            .map(|v| if v.is_finite() { *v } else { 0.0 })
            .collect();
        let bound = self
            .config
            .tolerance
            .bound(b.iter().fold(0.0, |m, v| max_nan(m, v.abs())));
        let mut r = vec![0.0; n];
        let initial = residual(p, &b, &x, &mut r);
        let r0 = r.clone();
        let (mut dir, mut v) = (r.clone(), vec![0.0; n]);
        let (mut md, mut ms, mut t, mut s) =
            (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (mut res, mut it) = (initial, 0u32);
        let mut rho = dot(&r0, &r);
        while res > bound && it < self.config.max_iterations && !cancelled() {
            apply(p, &inv_diag, &dir, &mut md, &mut v);
            let alpha = rho / dot(&r0, &v);
            if !alpha.is_finite() {
                break;
            }
            for i in 0..n {
                s[i] = r[i] - alpha * v[i];
            }
            apply(p, &inv_diag, &s, &mut ms, &mut t);
            let tt = dot(&t, &t);
            let omega = if tt > 0.0 { dot(&t, &s) / tt } else { 0.0 };
            res = 0.0;
            for i in 0..n {
                x[i] += alpha * md[i] + omega * ms[i];
                r[i] = s[i] - omega * t[i];
                res = max_nan(res, r[i].abs());
            }
            it += 1;
            let rho_new = dot(&r0, &r);
            let beta = (rho_new / rho) * (alpha / omega);
            if !beta.is_finite() || omega == 0.0 {
                break;
            }
            for i in 0..n {
                dir[i] = r[i] + beta * (dir[i] - omega * v[i]);
            }
            rho = rho_new;
        }
        let res = residual(p, &b, &x, &mut r);
        p.pressure.copy_from_slice(&x);
        Ok(SolveStats {
            iterations: it,
            outer_iterations: 0,
            residual: res,
            initial_residual: initial,
            converged: u32::from(res <= bound),
        })
    }
}
