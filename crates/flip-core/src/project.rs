//! Pressure projection around the solver: assembly of `A p = rhs` and the gradient update
//! (Karlsson §5.1-5.2, Alg. 6-7, eq. 43), with two geometries:
//!
//! - [`Geometry::Variational`] (default): solid faces weighted by their open fraction (Batty,
//!   Bertails & Bridson 2007) and the free surface placed at the liquid level set's zero
//!   crossing (ghost fluid, Gibou et al. 2002 / Enright et al. 2003; θ clamped at
//!   [`flip_sdk::stencil::THETA_MIN`]). Pressure unknowns are the cells with some open
//!   face and `φ < 0`.
//! - [`Geometry::Voxelized`]: whole cells from the cell marker, p = 0 at air cell centres,
//!   whole solid faces — the method of the seeds, kept for comparison.
//!
//! Both give a symmetric positive (semi-)definite 5/7-point stencil by one rule
//! ([`flip_sdk::stencil`]), so every plugin solves either.

mod gradient;
mod operator;
#[cfg(test)]
mod tests;

use crate::cells::CellGrid;
use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::pressure::PressureSystem;
use crate::solids::Solids;
pub use gradient::{
    apply_gradient_still_walls, apply_pressure, divergence_field, divergence_violation, violation,
};
pub use operator::assemble_operator;

/// How boundaries enter the pressure problem.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Geometry {
    /// Fractional solid faces and a ghost-fluid free surface.
    #[default]
    Variational,
    /// Whole cells: the marker's cell kinds, p = 0 at air cell centres, whole solid faces.
    Voxelized,
}

/// Physical parameters of one projection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AssembleParams {
    /// Liquid density ρ (kg/m³).
    pub density: f32,
    /// Time step (s).
    pub dt: f32,
    /// Flag fluid cells touching a solid for the separating (LCP) solve (set S of Lai et al.).
    pub separating: bool,
    /// Boundary geometry.
    pub geometry: Geometry,
}

/// Assembles the pressure system of one projection: the operator ([`assemble_operator`]), the
/// right-hand side `rhs = −Σ ±(w u + (1 − w) u_solid)` over each unknown's faces (the discrete
/// divergence with solid faces at the solid velocity, Batty et al. eq. 5 scaled by `dx`), and
/// the initial guess (`previous` when it has the right size, else 0).
#[allow(clippy::too_many_arguments)]
pub fn assemble(
    spec: &GridSpec,
    vel: &MacGrid,
    cells: &CellGrid,
    liquid_phi: &Grid3<f32>,
    solids: &Solids,
    params: &AssembleParams,
    previous: Option<&[f64]>,
    sys: &mut PressureSystem,
) {
    assemble_operator(spec, cells, liquid_phi, solids, params, sys);
    gradient::fill_rhs(spec, vel, solids, sys);
    let n = spec.cell_count();
    let prev = previous.filter(|p| p.len() == n);
    let sys = &mut sys.problem;
    use rayon::prelude::*;
    sys.pressure
        .par_iter_mut()
        .zip(sys.cell_kind.par_iter())
        .enumerate()
        .for_each(|(c, (p, &kind))| {
            *p = match prev {
                Some(prev) if kind == flip_abi::CELL_FLUID => prev[c],
                _ => 0.0,
            };
        });
}
