//! The assembled pressure system of one projection: the plugin SDK's [`OwnedProblem`] (the one
//! home of the pressure-problem data) plus what the host needs to turn the solution back into
//! pascals. It dereferences to the problem, so `sys.diag`, `sys.rhs`, `sys.pressure`… read as
//! fields.
//!
//! Scaling: `A` has O(1) entries (`diag` = number of non-solid neighbour faces, `off_* = -1`
//! between fluid cells) and `rhs = -Σ face velocity differences` (m/s), so the solution is
//! `p_solved = p · dt / (ρ · dx)`; [`PressureSystem::scale`] holds `ρ·dx/dt`.

use crate::grid::{Grid3, GridSpec};
pub use flip_sdk::OwnedProblem;

/// Pressure system of one projection, owned by the host.
#[derive(Clone, Debug, Default)]
pub struct PressureSystem {
    /// Grid geometry (set by `project::assemble`).
    pub spec: Option<GridSpec>,
    /// The problem handed to the solver.
    pub problem: OwnedProblem,
    /// `ρ·dx/dt`: multiply the solution by this to get pascals.
    pub scale: f64,
    /// The boundary geometry the problem was assembled with.
    pub geometry: crate::project::Geometry,
}

impl std::ops::Deref for PressureSystem {
    type Target = OwnedProblem;
    fn deref(&self) -> &OwnedProblem {
        &self.problem
    }
}

impl std::ops::DerefMut for PressureSystem {
    fn deref_mut(&mut self) -> &mut OwnedProblem {
        &mut self.problem
    }
}

impl PressureSystem {
    /// Physical pressure (Pa) on the cell grid.
    pub fn physical_pressure(&self) -> Grid3<f32> {
        let spec = self.spec.expect("system assembled");
        let mut g = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
        for (o, p) in g.data.iter_mut().zip(&self.pressure) {
            *o = (*p * self.scale) as f32;
        }
        g
    }
}
