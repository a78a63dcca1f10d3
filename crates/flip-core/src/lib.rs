//! Simulation data and kernels of flipgraph.
//!
//! Data types: [`grid`] (dense 2D/3D arrays and the grid geometry), [`mac`] (staggered velocity),
//! [`particles`], [`cells`] (fluid/air/solid), [`solids`] (solid shapes and their level set),
//! [`pressure`] (the assembled pressure system). Kernels are plain functions over borrowed data,
//! with no graph types, no I/O except [`export`], and no logging.
#![forbid(unsafe_code)]

/// Wave-absorbing layers beside the domain's faces (sponge layers).
pub mod absorb;
/// Particle advection (RK2, eq. 24-27) and the CFL time step.
pub mod advect;
/// Liquid crossing the domain's open and inflow faces, and sinks.
pub mod boundary;
/// Cell kinds.
pub mod cells;
/// Particle emission (Karlsson Alg. 1).
pub mod emit;
/// Frame export: binary PLY, PNG previews, VTK grids and OBJ/PLY meshes, written atomically.
pub mod export;
/// Velocity extrapolation into the air band (§4.3).
pub mod extrapolate;
/// Dense grids and grid geometry.
pub mod grid;
/// Liquid level set from particles, reinitialised by fast sweeping (§4.1-4.2).
pub mod levelset;
/// Staggered (MAC) velocity grids.
pub mod mac;
/// Fluid cell marking (Alg. 4).
pub mod marker;
/// Diagnostics: divergence, volume, kinetic energy.
pub mod measure;
/// Particle storage.
pub mod particles;
/// The assembled pressure system handed to solvers.
pub mod pressure;
/// Pressure system assembly and the gradient update (§5.1-5.2).
pub mod project;
/// Deterministic random streams keyed by seed, cell, particle and frame.
mod random;
/// Particle reseeding: a min/max count per cell.
pub mod reseed;
/// Rigid bodies coupled to the liquid through the pressure solve (Batty et al. 2007, §4), 2D.
pub mod rigid;
/// Eulerian smoke (Wave §2): semi-Lagrangian advection, buoyancy, vorticity confinement.
pub mod smoke;
/// Solid geometry.
pub mod solids;
/// Liquid surface meshes: particle level set → Surface Nets → Taubin smoothing.
pub mod surface;
/// Eulerian water on a restricted tall-cell grid (Chentanez & Müller 2011), 2D.
pub mod tallcell;
/// Particle-grid transfers: P2G (Alg. 2-3) and G2P (PIC/FLIP, eq. 22; APIC).
pub mod transfer;
/// Implicit variational viscosity with a traction-free surface (Batty & Bridson 2008).
pub mod viscosity;
/// Volume (density) correction of the particles (Kugelstadt et al. 2019).
pub mod volume;
/// Whitewater: diffuse spray, foam and bubble particles (Ihmsen et al. 2012).
pub mod whitewater;

pub use cells::{CellGrid, CellKind};
pub use grid::{Grid3, GridSpec};
pub use mac::{MacGrid, MacMask};
pub use particles::Particles;
pub use solids::{Shape, ShapeKind, Solids};
