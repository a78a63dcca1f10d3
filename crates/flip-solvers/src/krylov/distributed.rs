//! CG on one rank's slab of a distributed problem (the layout of `flip_abi`'s
//! distributed suite): the same iteration as [`Pcg::solve_system`], with dot products summed
//! over ranks, the residual's max-norm taken over ranks and the search direction's ghost layer
//! refreshed before each matrix product. Only preconditioners that work on a slab apply
//! ([`Preconditioner::distributable`]: none, Jacobi, MGPCG's slab V-cycle).
//!
//! Limit: pure-Neumann regions (fluid with no air) are not projected, since their extent spans
//! ranks; distributed scenes must have air (free-surface liquids do).

use super::kernels::{block_len, matrix_hash, restrict_to_fluid, update, xpby, zero_off_fluid};
use super::precond::Preconditioner;
use super::Pcg;
use crate::stencil::{dot, norm_inf, Stencil};
use flip_sdk::{Distributed, SolveError, SolveStats};
use rayon::prelude::*;
use std::ops::Range;

/// Reductions and halo refreshes of one rank.
struct Slab<'d> {
    d: &'d Distributed,
    owned: Range<usize>,
    bs: usize,
}

impl Slab<'_> {
    /// Global `aᵀ b` over the owned cells.
    fn dot(&self, a: &[f64], b: &[f64]) -> Result<f64, SolveError> {
        let o = self.owned.clone();
        self.d.sum1(dot(&a[o.clone()], &b[o], self.bs))
    }

    /// `r = b − A x` on the slab (after refreshing `x`'s ghosts); global `max |r|`.
    fn residual(
        &self,
        a: &Stencil<'_>,
        b: &[f64],
        x: &mut [f64],
        r: &mut [f64],
    ) -> Result<f64, SolveError> {
        self.d.halo_exchange(x, 1)?;
        a.residual(b, x, r);
        self.d.max1(norm_inf(&r[self.owned.clone()]))
    }
}

impl<P: Preconditioner> Pcg<P> {
    /// Solves this rank's slab of a distributed problem (`x`: the initial guess on the slab;
    /// on return its ghost layers hold the neighbours' solution).
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] for a preconditioner that is not pointwise;
    /// [`SolveError::BadValue`] when the problem is not this rank's slab;
    /// [`SolveError::Failed`] when a collective call fails.
    pub(crate) fn solve_slab(
        &mut self,
        d: &Distributed,
        a: &Stencil<'_>,
        rhs: &[f64],
        x: &mut [f64],
    ) -> Result<SolveStats, SolveError> {
        if !self.precond.distributable() {
            return Err(SolveError::Unsupported(
                "this preconditioner sweeps the whole grid; distributed runs use cg or jacobi-pcg"
                    .into(),
            ));
        }
        d.check_dims(a.dims)?;
        let hash = matrix_hash(a, &mut self.hash_partials);
        if self.matrix_hash != Some(hash) {
            self.precond.setup(a);
            self.matrix_hash = Some(hash);
        }
        let n = a.len();
        for v in [
            &mut self.b,
            &mut self.r,
            &mut self.z,
            &mut self.p,
            &mut self.q,
        ] {
            v.resize(n, 0.0);
        }
        let slab = Slab {
            d,
            owned: d.layout().owned_range(),
            bs: block_len(a),
        };
        restrict_to_fluid(a, rhs, &mut self.b);
        // A non-finite guess anywhere (a diverged previous step) restarts every rank from 0.
        let bad = x.par_iter().any(|v| !v.is_finite());
        if d.max1(f64::from(u8::from(bad)))? > 0.0 {
            x.par_iter_mut().for_each(|v| *v = 0.0);
        }
        zero_off_fluid(a, x);
        let bound = self
            .config
            .tolerance
            .bound(d.max1(norm_inf(&self.b[slab.owned.clone()]))?);
        let initial = slab.residual(a, &self.b, x, &mut self.r)?;
        let (iterations, residual) = self.iterate_distributed(&slab, a, x, bound, initial)?;
        let held = d.layout().ghost_lo.max(d.layout().ghost_hi);
        d.halo_exchange(x, held)?;
        Ok(SolveStats {
            iterations,
            outer_iterations: 0,
            residual,
            initial_residual: initial,
            converged: u32::from(residual <= bound),
        })
    }

    /// The CG loop of [`Pcg`] over the slab; every decision is taken on global values, so all
    /// ranks run the same number of iterations. Returns (iterations, true residual).
    fn iterate_distributed(
        &mut self,
        slab: &Slab<'_>,
        a: &Stencil<'_>,
        x: &mut [f64],
        bound: f64,
        mut residual: f64,
    ) -> Result<(u32, f64), SolveError> {
        let (max, own) = (self.config.max_iterations, slab.owned.clone());
        let mut iterations = 0u32;
        while residual > bound && iterations < max {
            self.precond.apply(a, &self.r, &mut self.z);
            let mut rho = slab.dot(&self.r, &self.z)?;
            self.p.copy_from_slice(&self.z);
            let mut stop = false;
            while iterations < max {
                slab.d.halo_exchange(&mut self.p, 1)?;
                a.apply(&self.p, &mut self.q);
                let pq = slab.dot(&self.p, &self.q)?;
                if !(pq > 0.0 && rho.is_finite()) {
                    stop = true;
                    break;
                }
                let alpha = rho / pq;
                let local = update(
                    alpha,
                    &self.p[own.clone()],
                    &self.q[own.clone()],
                    &mut x[own.clone()],
                    &mut self.r[own.clone()],
                );
                let (res, cancelled) = slab.d.max1_or_cancelled(local)?;
                iterations += 1;
                if cancelled {
                    stop = true;
                    break;
                }
                if res <= bound {
                    break;
                }
                self.precond.apply(a, &self.r, &mut self.z);
                let rho_new = slab.dot(&self.r, &self.z)?;
                xpby(
                    &self.z[own.clone()],
                    rho_new / rho,
                    &mut self.p[own.clone()],
                );
                rho = rho_new;
            }
            residual = slab.residual(a, &self.b, x, &mut self.r)?;
            if stop {
                break;
            }
        }
        Ok((iterations, residual))
    }
}
