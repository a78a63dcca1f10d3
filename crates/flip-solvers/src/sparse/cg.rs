//! Preconditioned conjugate gradient on a CSR matrix (Saad, *Iterative Methods for Sparse
//! Linear Systems*, Alg. 9.1), with the diagonal (Jacobi, §10.2) or the zero-fill incomplete
//! Cholesky factor IC(0) (§10.3; Meijerink & van der Vorst 1977) as preconditioner.
//! The products and vector updates run in parallel over fixed blocks of rows and the dot
//! products sum the blocks in order, so results do not depend on the thread count; the IC(0)
//! and AMG preconditioners are sequential.

use super::{linear_only, residual};
use crate::krylov::PcgConfig;
use crate::stencil::{dot as block_dot, max_nan};
use flip_sdk::check::csr_regions;
use flip_sdk::regions::Regions;
use flip_sdk::{cancelled, CsrProblem, PressureSolver, Problem, SolveError, SolveStats};
use rayon::prelude::*;

/// The preconditioner of [`CsrPcg`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrPreconditioner {
    /// None (plain CG).
    Identity,
    /// `M = diag(A)`.
    Jacobi,
    /// `M = L Lᵀ` with `L` on the lower pattern of `A`.
    Ic0,
    /// One symmetric V-cycle of aggregation AMG ([`super::amg`]).
    Amg,
}

/// CG on CSR problems. Keeps nothing between solves that changes results.
pub struct CsrPcg {
    config: PcgConfig,
    precond: CsrPreconditioner,
    /// IC(0): per row, the positions of its strictly-lower entries and its diagonal, and the
    /// factor's values at the matrix's entry positions.
    l: Vec<f64>,
    /// AMG: the hierarchy of the current matrix.
    amg: Option<super::amg::Amg>,
}

impl CsrPcg {
    /// A solver with `config` and `precond`.
    pub fn new(config: PcgConfig, precond: CsrPreconditioner) -> Self {
        Self {
            config,
            precond,
            l: Vec::new(),
            amg: None,
        }
    }

    /// IC(0) of `p` into `self.l` (entries of the lower triangle; others unused). A pivot that
    /// is not positive (a singular component's last row) falls back to the matrix diagonal.
    fn factor(&mut self, p: &CsrProblem<'_>) {
        self.l.clear();
        self.l.resize(p.values.len(), 0.0);
        for i in 0..p.rows() {
            let (a, b) = (p.row_ptr[i] as usize, p.row_ptr[i + 1] as usize);
            for e in a..b {
                let k = p.col_idx[e] as usize;
                if k > i {
                    break;
                }
                // Σ_{j<k} L_ij L_kj over the common lower pattern of rows i and k.
                let mut sum = 0.0;
                let (ka, kb) = (p.row_ptr[k] as usize, p.row_ptr[k + 1] as usize);
                let (mut x, mut y) = (a, ka);
                while x < e && y < kb && (p.col_idx[y] as usize) < k {
                    match p.col_idx[x].cmp(&p.col_idx[y]) {
                        std::cmp::Ordering::Less => x += 1,
                        std::cmp::Ordering::Greater => y += 1,
                        std::cmp::Ordering::Equal => {
                            sum += self.l[x] * self.l[y];
                            x += 1;
                            y += 1;
                        }
                    }
                }
                if k < i {
                    let dk = self.l[diag_pos(p, k)];
                    self.l[e] = (p.values[e] - sum) / dk;
                } else {
                    let pivot = p.values[e] - sum;
                    let safe = if pivot > 1e-12 * p.values[e].abs() {
                        pivot
                    } else {
                        p.values[e].abs().max(1e-300)
                    };
                    self.l[e] = safe.sqrt();
                }
            }
        }
    }

    /// Levels of the last AMG hierarchy (0 for the other preconditioners).
    pub fn levels(&self) -> usize {
        self.amg.as_ref().map_or(0, super::amg::Amg::depth)
    }

    /// `z = M⁻¹ r`.
    fn apply(&mut self, p: &CsrProblem<'_>, r: &[f64], z: &mut [f64]) {
        let n = p.rows();
        match self.precond {
            CsrPreconditioner::Identity => z.copy_from_slice(r),
            CsrPreconditioner::Amg => match &mut self.amg {
                Some(amg) => amg.apply(r, z),
                None => z.copy_from_slice(r),
            },
            CsrPreconditioner::Jacobi => {
                z.par_iter_mut()
                    .zip(r)
                    .enumerate()
                    .for_each(|(i, (z, &r))| {
                        let d = p.values[diag_pos(p, i)];
                        *z = if d > 0.0 { r / d } else { r };
                    });
            }
            CsrPreconditioner::Ic0 => {
                // L y = r (forward), then Lᵀ z = y (backward, column-oriented).
                for i in 0..n {
                    let mut s = r[i];
                    for (e, (c, _)) in entries(p, i) {
                        if c < i {
                            s -= self.l[e] * z[c];
                        }
                    }
                    z[i] = s / self.l[diag_pos(p, i)];
                }
                for i in (0..n).rev() {
                    z[i] /= self.l[diag_pos(p, i)];
                    let zi = z[i];
                    for (e, (c, _)) in entries(p, i) {
                        if c < i {
                            z[c] -= self.l[e] * zi;
                        }
                    }
                }
            }
        }
    }
}

/// Position of row `i`'s diagonal entry (present: checked by `CsrProblem::validate`).
fn diag_pos(p: &CsrProblem<'_>, i: usize) -> usize {
    let (a, b) = (p.row_ptr[i] as usize, p.row_ptr[i + 1] as usize);
    a + p.col_idx[a..b].binary_search(&(i as u32)).unwrap_or(0)
}

/// `(position, (column, value))` of row `i`'s entries.
fn entries<'p>(
    p: &'p CsrProblem<'_>,
    i: usize,
) -> impl Iterator<Item = (usize, (usize, f64))> + 'p {
    (p.row_ptr[i] as usize..p.row_ptr[i + 1] as usize)
        .map(|e| (e, (p.col_idx[e] as usize, p.values[e])))
}

/// `a · b`, summed over [`BLOCK`]s in order.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    block_dot(a, b, super::BLOCK)
}

impl PressureSolver for CsrPcg {
    fn solve(&mut self, _: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        Err(SolveError::Unsupported(
            "this solver takes CSR problems".into(),
        ))
    }

    fn solve_csr(&mut self, p: &mut CsrProblem<'_>) -> Result<SolveStats, SolveError> {
        self.solve_labelled(p, None)
    }

    fn solve_viscosity(
        &mut self,
        p: &mut flip_sdk::ViscosityProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        // Positive definite (no projection); AMG aggregates within one velocity component.
        self.solve_labelled(&mut p.csr, Some(p.grid.row_axis))
    }
}

impl CsrPcg {
    /// CG on `p`; `components` (one label per row, given for the viscosity kind) keeps AMG
    /// aggregates within a component and marks the matrix positive definite: no component is
    /// projected, whatever its diagonal dominance.
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] for LCPs and unsymmetric matrices.
    pub fn solve_labelled(
        &mut self,
        p: &mut CsrProblem<'_>,
        components: Option<&[u8]>,
    ) -> Result<SolveStats, SolveError> {
        linear_only(p, "conjugate gradient")?;
        if !p.symmetric {
            return Err(SolveError::Unsupported(
                "conjugate gradient needs a symmetric matrix (use the direct solver's LU for general ones)".into(),
            ));
        }
        let n = p.rows();
        let regions: Regions = if components.is_some() {
            Regions::default()
        } else {
            csr_regions(p)
        };
        let mut b = p.rhs.to_vec();
        regions.remove_mean(&mut b);
        let mut x = p.pressure.to_vec();
        if x.iter().any(|v| !v.is_finite()) {
            x.iter_mut().for_each(|v| *v = 0.0);
        }
        regions.remove_mean(&mut x);
        match self.precond {
            CsrPreconditioner::Ic0 => self.factor(p),
            CsrPreconditioner::Amg => self.amg = Some(super::amg::Amg::new(p, components, 1)),
            _ => {}
        }
        let bound = self
            .config
            .tolerance
            .bound(b.iter().fold(0.0, |m, v| max_nan(m, v.abs())));
        let (mut r, mut z, mut d, mut q) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let initial = residual(p, &b, &x, &mut r);
        let (mut res, mut it) = (initial, 0u32);
        self.apply(p, &r, &mut z);
        d.copy_from_slice(&z);
        let mut rz = dot(&r, &z);
        while res > bound && it < self.config.max_iterations && !cancelled() {
            super::multiply(p, &d, &mut q);
            let dq = dot(&d, &q);
            if !(dq > 0.0 && rz.is_finite()) {
                break;
            }
            let alpha = rz / dq;
            x.par_iter_mut().zip(&d).for_each(|(x, &d)| *x += alpha * d);
            res = r
                .par_iter_mut()
                .zip(&q)
                .map(|(r, &q)| {
                    *r -= alpha * q;
                    r.abs()
                })
                .reduce(|| 0.0, max_nan);
            it += 1;
            self.apply(p, &r, &mut z);
            let rz_new = dot(&r, &z);
            let beta = rz_new / rz;
            d.par_iter_mut()
                .zip(&z)
                .for_each(|(d, &z)| *d = z + beta * *d);
            rz = rz_new;
        }
        regions.remove_mean(&mut x);
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
