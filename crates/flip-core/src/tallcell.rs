//! Eulerian water on a restricted tall-cell grid (Chentanez & Müller 2011): columns on an
//! x-z height map (3D, the paper's case; 2D is one row of columns along x) of one tall cell
//! over the terrain and a constant number of regular cells above it. The
//! stages of a step are the paper's: velocity extrapolation (VE), level-set advection (LA),
//! velocity advection (VA), re-fitting the tall cells (RM), and the pressure projection (PP,
//! posed as a general sparse problem for any CSR-capable solver plugin); plus gravity and
//! level-set reinitialisation. A grid whose tall cells are all two cells high is a regular
//! grid ([`TallGrid::new`] with `regular: None`), so the same code runs both.

/// Semi-Lagrangian level-set and velocity advection, gravity, closed walls.
pub mod advect;
/// Velocity extrapolation into the air.
pub mod extrapolate;
/// The geometry of the tall-cell problem kind.
mod geometry;
/// The grid, its sample layout and the interpolation rule.
pub mod grid;
/// The point-wise pressure problem (CSR) and the gradient update.
pub mod pressure;
/// Re-fitting tall cells to the liquid surface (restricted heights).
pub mod refit;
/// Level-set reinitialisation by fast sweeping on the regular rows.
pub mod reinit;
/// Reading fields at any position (trilinear over the paper's rule).
pub mod sample;
/// The liquid carried between steps.
pub mod state;
/// Terrain height maps from functions and PNGs.
pub mod terrain;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests3d;

pub use grid::{Lookup, Stagger, TallGrid, MIN_TALL};

/// Fewest items per parallel task of the stages' loops: smaller problems (2D, coarse 3D) run
/// on the calling thread, without waiting for busy pool threads.
pub(crate) const PAR_MIN: usize = 4096;
pub use pressure::TallPressure;
pub use state::TallLiquid;
pub use terrain::Terrain;
