//! The preconditioner interface of [`super::Pcg`], and the two trivial preconditioners.

use crate::stencil::Stencil;
use flip_abi::CELL_FLUID;
use rayon::prelude::*;

/// A symmetric positive definite approximation `M` of the pressure matrix, applied as `M⁻¹`.
pub trait Preconditioner: Send {
    /// Rebuilds everything that depends on the matrix. Called before the first solve and
    /// whenever the matrix changed.
    fn setup(&mut self, a: &Stencil<'_>);
    /// `z = M⁻¹ r` on the fluid cells, 0 elsewhere. `r` is 0 off the fluid.
    fn apply(&mut self, a: &Stencil<'_>, r: &[f64], z: &mut [f64]);
    /// Whether `apply` works on one rank's slab of a distributed solve: pointwise ones (cell
    /// by cell), or ones that gather what they need through the distributed suite. Sweeping
    /// preconditioners (IC(0), SSOR) do not.
    fn distributable(&self) -> bool {
        false
    }
}

/// `M = I` (plain CG).
#[derive(Clone, Debug, Default)]
pub struct NoPreconditioner;

impl Preconditioner for NoPreconditioner {
    fn distributable(&self) -> bool {
        true
    }
    fn setup(&mut self, _a: &Stencil<'_>) {}
    fn apply(&mut self, _a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        z.par_iter_mut()
            .zip(r.par_iter())
            .for_each(|(z, r)| *z = *r);
    }
}

/// `M = diag(A)` (Jacobi). Cells with a zero diagonal (an isolated enclosed cell) get 0.
#[derive(Clone, Debug, Default)]
pub struct Jacobi {
    inv_diag: Vec<f64>,
}

/// `1 / A[c][c]` on fluid cells with a positive diagonal, else 0.
pub(crate) fn inverse_diagonal(a: &Stencil<'_>, out: &mut Vec<f64>) {
    out.resize(a.len(), 0.0);
    out.par_iter_mut().enumerate().for_each(|(c, v)| {
        let d = a.diag[c] as f64;
        *v = if a.kind[c] == CELL_FLUID && d > 0.0 {
            1.0 / d
        } else {
            0.0
        };
    });
}

impl Preconditioner for Jacobi {
    fn distributable(&self) -> bool {
        true
    }
    fn setup(&mut self, a: &Stencil<'_>) {
        inverse_diagonal(a, &mut self.inv_diag);
    }
    fn apply(&mut self, _a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        z.par_iter_mut()
            .zip(r.par_iter().zip(self.inv_diag.par_iter()))
            .for_each(|(z, (r, d))| *z = r * d);
    }
}
