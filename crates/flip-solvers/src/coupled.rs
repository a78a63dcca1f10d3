//! Solvers of the coupled (rigid-body) kind, `(A + J C Jᵀ) p = rhs` (Batty, Bertails & Bridson
//! 2007, §4): CG on the coupled operator preconditioned by any preconditioner of `A` alone (the
//! bodies' term is low rank, so it only adds a few outer iterations), and the exact Woodbury
//! solve over a factorisation of `A`.

use crate::direct::DirectSolver;
use crate::krylov::{Pcg, Preconditioner};
use crate::stencil::{dot, norm_inf, Stencil};
use crate::tolerance::Tolerance;
use flip_abi::CELL_FLUID;
use flip_sdk::regions::Regions;
use flip_sdk::{BodyTerms, CoupledProblem, Problem, SolveError, SolveStats};
use rayon::prelude::*;

/// Cells per parallel block of the reductions (row-ordered, thread-count independent).
const BLOCK: usize = 4096;

/// The coupled operator on one grid: `A` as a stencil plus the bodies' terms.
struct Operator<'p, 'a> {
    a: Stencil<'a>,
    bodies: &'p BodyTerms<'a>,
}

impl Operator<'_, '_> {
    /// `out = (A + J C Jᵀ) x` (0 off the fluid).
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        self.a.apply(x, out);
        self.bodies.add_low_rank(x, out);
    }

    /// `r = b − (A + J C Jᵀ) x` on the fluid (0 elsewhere); returns `max |r|`.
    fn residual(&self, b: &[f64], x: &[f64], r: &mut [f64]) -> f64 {
        self.apply(x, r);
        let kind = self.a.kind;
        r.par_iter_mut().enumerate().for_each(|(c, r)| {
            *r = if kind[c] == CELL_FLUID {
                b[c] - *r
            } else {
                0.0
            };
        });
        norm_inf(r)
    }
}

/// Conjugate gradient on the coupled operator of `grid` and `bodies`, preconditioned by
/// `precondition` (`z = M⁻¹ r` for an SPD approximation `M` of `A` alone, 0 off the fluid),
/// from the initial guess in `grid.pressure` until the true residual meets `tolerance` or
/// `max_iterations` are spent. Pure-Neumann regions are projected as for the structured kind.
pub fn coupled_cg(
    grid: &mut Problem<'_>,
    bodies: &BodyTerms<'_>,
    tolerance: Tolerance,
    max_iterations: usize,
    mut precondition: impl FnMut(&[f64], &mut [f64]),
) -> SolveStats {
    let op = Operator {
        a: Stencil::of(grid),
        bodies,
    };
    let n = op.a.len();
    let regions = Regions::of(&op.a.couplings());
    let fluid = |c: usize| op.a.kind[c] == CELL_FLUID;
    let mut b: Vec<f64> = (0..n)
        .map(|c| if fluid(c) { grid.rhs[c] } else { 0.0 })
        .collect();
    regions.remove_mean(&mut b);
    let x = &mut *grid.pressure;
    x.par_iter_mut().enumerate().for_each(|(c, v)| {
        if !(v.is_finite() && fluid(c)) {
            *v = 0.0;
        }
    });
    regions.remove_mean(x);
    let bound = tolerance.bound(norm_inf(&b));
    let [mut r, mut z, mut d, mut q] = std::array::from_fn(|_| vec![0.0; n]);
    let initial = op.residual(&b, x, &mut r);
    let (mut residual, mut iterations) = (initial, 0usize);
    // McAdams et al. 2010 Alg. 2 with the outer operator A + J C Jᵀ; restarted from the true
    // residual when the recurrence claims convergence it does not confirm.
    while residual > bound && iterations < max_iterations {
        precondition(&r, &mut z);
        regions.remove_mean(&mut z);
        let mut rho = dot(&r, &z, BLOCK);
        d.copy_from_slice(&z);
        let mut breakdown = false;
        while iterations < max_iterations {
            if flip_sdk::cancelled() {
                breakdown = true;
                break;
            }
            op.apply(&d, &mut q);
            let dq = dot(&d, &q, BLOCK);
            if !(dq > 0.0 && rho.is_finite()) {
                breakdown = true;
                break;
            }
            let alpha = rho / dq;
            let r_max = (x.par_iter_mut(), r.par_iter_mut())
                .into_par_iter()
                .zip(d.par_iter().zip(q.par_iter()))
                .map(|((x, r), (d, q))| {
                    *x += alpha * d;
                    *r -= alpha * q;
                    r.abs()
                })
                .reduce(|| 0.0, f64::max);
            iterations += 1;
            if r_max <= bound {
                break;
            }
            precondition(&r, &mut z);
            regions.remove_mean(&mut z);
            let rho_new = dot(&r, &z, BLOCK);
            let beta = rho_new / rho;
            rho = rho_new;
            d.par_iter_mut()
                .zip(z.par_iter())
                .for_each(|(d, z)| *d = z + beta * *d);
        }
        regions.remove_mean(x);
        residual = op.residual(&b, x, &mut r);
        if breakdown {
            break;
        }
    }
    SolveStats {
        iterations: iterations as u32,
        outer_iterations: 0,
        residual,
        initial_residual: initial,
        converged: u32::from(residual <= bound),
    }
}

/// The coupled solve by the Woodbury identity over `solve_a` (`out = A⁻¹ rhs` on the fluid,
/// projected and mean-free on pure-Neumann regions): one solve of the right-hand side and one
/// per column of `J`, then a dense system of the bodies' degrees of freedom
/// ([`BodyTerms::woodbury`]). Exact up to rounding when `solve_a` is.
///
/// # Errors
/// Whatever `solve_a` returns.
pub fn woodbury_solve(
    grid: &mut Problem<'_>,
    bodies: &BodyTerms<'_>,
    tolerance: Tolerance,
    mut solve_a: impl FnMut(&Stencil<'_>, &Regions, &[f64], &mut [f64]) -> Result<(), SolveError>,
) -> Result<SolveStats, SolveError> {
    let op = Operator {
        a: Stencil::of(grid),
        bodies,
    };
    let n = op.a.len();
    let regions = Regions::of(&op.a.couplings());
    let mut b: Vec<f64> = (0..n)
        .map(|c| {
            if op.a.kind[c] == CELL_FLUID {
                grid.rhs[c]
            } else {
                0.0
            }
        })
        .collect();
    regions.remove_mean(&mut b);
    let mut r = vec![0.0; n];
    let initial = {
        let x = &mut *grid.pressure;
        x.iter_mut()
            .for_each(|v| *v = if v.is_finite() { *v } else { 0.0 });
        op.residual(&b, x, &mut r)
    };
    let mut x = vec![0.0; n];
    solve_a(&op.a, &regions, &b, &mut x)?;
    let mut column = vec![0.0; n];
    let y = (0..bodies.columns())
        .map(|q| {
            column.fill(0.0);
            for (c, v) in bodies.column(q) {
                column[c] = v;
            }
            let mut yq = vec![0.0; n];
            solve_a(&op.a, &regions, &column, &mut yq).map(|()| yq)
        })
        .collect::<Result<Vec<_>, _>>()?;
    bodies.woodbury(&mut x, &y);
    regions.remove_mean(&mut x);
    let residual = op.residual(&b, &x, &mut r);
    grid.pressure.copy_from_slice(&x);
    let bound = tolerance.bound(norm_inf(&b));
    Ok(SolveStats {
        iterations: 1 + bodies.columns() as u32,
        outer_iterations: 0,
        residual,
        initial_residual: initial,
        converged: u32::from(residual <= bound),
    })
}

impl<P: Preconditioner> Pcg<P> {
    /// CG on the coupled operator preconditioned by this solver's preconditioner of `A`.
    pub fn solve_coupled_system(&mut self, p: &mut CoupledProblem<'_>) -> SolveStats {
        let config = *self.config();
        let (tolerance, max) = (config.tolerance, config.max_iterations as usize);
        let a = Stencil::of(&p.grid);
        self.prepare_for(&a);
        let precond = self.preconditioner_mut();
        coupled_cg(&mut p.grid, &p.bodies, tolerance, max, |r, z| {
            precond.apply(&a, r, z);
        })
    }
}

impl DirectSolver {
    /// The exact coupled solve: Woodbury over this solver's factorisation of `A`, which is
    /// reused across the `1 + columns` solves.
    ///
    /// # Errors
    /// [`SolveError::Failed`] when the factorisation fails.
    pub fn solve_coupled_system(
        &mut self,
        p: &mut CoupledProblem<'_>,
        tolerance: Tolerance,
    ) -> Result<SolveStats, SolveError> {
        woodbury_solve(&mut p.grid, &p.bodies, tolerance, |a, regions, rhs, out| {
            self.solve_grid(a, regions, rhs, out)
                .map_err(|e| SolveError::Failed(e.to_string()))
        })
    }
}
