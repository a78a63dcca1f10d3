//! Sparse direct solve of a CSR problem with faer 0.22: Cholesky `A = L Lᵀ` for symmetric
//! matrices, LU with partial pivoting otherwise (tall-cell and other point-wise operators need
//! not be symmetric). Singular components of symmetric problems are pinned at their first row
//! and returned mean-free, as in [`crate::direct`].

use super::{linear_only, residual};
use crate::direct::DirectConfig;
use crate::stencil::max_nan;
use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::{MatMut, Side};
use flip_sdk::check::csr_regions;
use flip_sdk::regions::Regions;
use flip_sdk::{CsrProblem, PressureSolver, Problem, SolveError, SolveStats};

/// Sparse Cholesky / LU for CSR problems (refactorises every solve).
#[derive(Clone, Debug, Default)]
pub struct CsrDirect {
    config: DirectConfig,
}

impl CsrDirect {
    /// A solver with `config`.
    pub fn new(config: DirectConfig) -> Self {
        Self { config }
    }
}

/// Solves `A x = b` exactly (pinned rows: `x = 0`).
fn factor_solve(p: &CsrProblem<'_>, pinned: &[bool], b: &[f64]) -> Result<Vec<f64>, SolveError> {
    let n = p.rows();
    let mut triplets = Vec::with_capacity(p.values.len());
    for i in 0..n {
        for (c, v) in p.row(i) {
            if c == i {
                triplets.push(Triplet::new(i, c, if pinned[i] { 1.0 } else { v }));
            } else if !pinned[i] && !pinned[c] {
                triplets.push(Triplet::new(i, c, v));
            }
        }
    }
    let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets)
        .map_err(|e| SolveError::Failed(format!("cannot build the sparse matrix: {e:?}")))?;
    let mut x: Vec<f64> = b
        .iter()
        .zip(pinned)
        .map(|(&v, &pin)| if pin { 0.0 } else { v })
        .collect();
    let rhs = MatMut::from_column_major_slice_mut(&mut x, n, 1);
    if p.symmetric {
        let llt = a
            .sp_cholesky(Side::Lower)
            .map_err(|e| SolveError::Failed(format!("matrix is not positive definite: {e:?}")))?;
        llt.solve_in_place(rhs);
    } else {
        let lu = a
            .sp_lu()
            .map_err(|e| SolveError::Failed(format!("LU failed: {e:?}")))?;
        lu.solve_in_place(rhs);
    }
    Ok(x)
}

impl PressureSolver for CsrDirect {
    fn solve(&mut self, _: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        Err(SolveError::Unsupported(
            "this solver takes CSR problems".into(),
        ))
    }

    fn solve_csr(&mut self, p: &mut CsrProblem<'_>) -> Result<SolveStats, SolveError> {
        self.solve_system(p, false)
    }

    fn solve_viscosity(
        &mut self,
        p: &mut flip_sdk::ViscosityProblem<'_>,
    ) -> Result<SolveStats, SolveError> {
        self.solve_system(&mut p.csr, true)
    }
}

impl CsrDirect {
    /// Factors and solves `p`; `definite`: the matrix is positive definite (the viscosity
    /// kind), so no component is projected whatever its diagonal dominance.
    fn solve_system(
        &mut self,
        p: &mut CsrProblem<'_>,
        definite: bool,
    ) -> Result<SolveStats, SolveError> {
        linear_only(p, "the direct solver")?;
        let n = p.rows();
        if let Some(r) = (0..n).find(|&r| !p.rhs[r].is_finite()) {
            return Err(SolveError::BadValue(format!(
                "rhs[{r}] = {} is not finite",
                p.rhs[r]
            )));
        }
        let regions = if definite {
            Regions::default()
        } else {
            csr_regions(p)
        };
        let mut b = p.rhs.to_vec();
        regions.remove_mean(&mut b);
        let mut pinned = vec![false; n];
        let mut seen = vec![false; regions.singular.len()];
        for (r, &l) in regions.label.iter().enumerate() {
            if l != u32::MAX && regions.singular[l as usize] && !seen[l as usize] {
                seen[l as usize] = true;
                pinned[r] = true;
            }
        }
        let mut scratch = vec![0.0; n];
        let initial = residual(p, &b, p.pressure, &mut scratch);
        let mut x = factor_solve(p, &pinned, &b)?;
        regions.remove_mean(&mut x);
        let res = residual(p, &b, &x, &mut scratch);
        p.pressure.copy_from_slice(&x);
        let bound = self
            .config
            .tolerance
            .bound(b.iter().fold(0.0, |m, v| max_nan(m, v.abs())));
        Ok(SolveStats {
            iterations: 1,
            outer_iterations: 0,
            residual: res,
            initial_residual: initial,
            converged: u32::from(res <= bound),
        })
    }
}
