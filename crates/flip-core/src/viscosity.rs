//! Implicit variational viscosity with a traction-free surface (Batty & Bridson 2008, "Accurate
//! Viscous Free Surfaces for Buckling, Coiling, and Rotating Liquids").
//!
//! Backward Euler as a minimisation over the new face velocities `u` (their eq. 9-10, divided
//! by ρ):
//! `min_u ½ Σ_f V_f (u_f − u*_f)² + Δt Σ ν V ‖ε(u)‖²_F`, `ε = ½(∇u + ∇uᵀ)`,
//! with the diagonal strains `ε_aa` at cell centres weighted by the cells' liquid fractions,
//! the shear strains `ε_ab` at edge centres (3D) / nodes (2D) weighted by the edges' liquid
//! fractions, and the kinetic term by the faces' liquid fractions ([`weights`]). The free
//! surface is traction-free because the weights vanish outside the liquid (no boundary
//! condition is imposed there); solid walls are no-slip (faces inside a solid keep the solid's
//! velocity, and a difference across the wall is taken to the wall at the solid's signed
//! distance) or free-slip (no shear energy where a shear stencil reaches into a solid)
//! ([`assemble`]). The stationarity condition is the SPD system
//! `(diag(V_f) + 2Δt Dᵀ diag(ν V) D) u = V_f u* + (known faces)`, posed to a plugin as the
//! viscosity problem kind (`abi::ViscosityProblem`). Rigid motions have `ε = 0`, so they pass
//! through the step untouched (the rotation the explicit schemes damp).
//!
//! Larionov, Batty & Bridson 2017 ("Variational Stokes") would differ here: they solve
//! pressure and viscous stress in one saddle-point (then SPD, in stress and pressure
//! unknowns) system with the same control-volume weights, so the viscous step cannot undo
//! incompressibility and the free-surface stress balance `σ·n = 0` holds for the total stress
//! `−pI + 2με` rather than for the viscous part alone; this module keeps Batty & Bridson's
//! splitting (viscosity, then the pressure projection).

/// The system of one step and its assembly.
pub mod assemble;
/// Lava: the particles' viscosity stiffening as the surface layer cools.
pub mod cooling;
/// The particles' viscosity attribute as a per-cell field.
pub mod particle_field;
/// Liquid fractions of the faces', cells' and edges' control volumes.
pub mod weights;

pub use assemble::{apply, assemble, ViscositySystem, Viscous, Walls};
pub use cooling::{cool, Cooling};
pub use particle_field::particle_viscosity;
