use crate::grid::{Grid3, GridSpec};

/// The assembled pressure system of one projection, owned by the host (see the plugin ABI's
/// `PressureProblem` for the contract). Arrays are cell-centred, x fastest.
///
/// Scaling: `A` has O(1) entries (`diag` = number of non-solid neighbour faces, `off_* = -1`
/// between fluid cells) and `rhs = -Σ face velocity differences` (m/s), so the solution is
/// `p_solved = p · dt / (ρ · dx)`; [`PressureSystem::scale`] holds `ρ·dx/dt`.
#[derive(Clone, Debug, Default)]
pub struct PressureSystem {
    /// Grid geometry.
    pub spec: Option<GridSpec>,
    /// `CELL_*` per cell.
    pub cell_kind: Vec<u8>,
    /// `A[c][c]`.
    pub diag: Vec<f32>,
    /// `A[c][c+x̂]`, `A[c][c+ŷ]`, `A[c][c+ẑ]`.
    pub off: [Vec<f32>; 3],
    /// Right-hand side.
    pub rhs: Vec<f64>,
    /// Liquid signed distance.
    pub liquid_phi: Vec<f32>,
    /// Solid signed distance.
    pub solid_phi: Vec<f32>,
    /// Set S (cells that may separate from a solid).
    pub complementarity: Vec<u8>,
    /// Solution (in: initial guess).
    pub pressure: Vec<f64>,
    /// `ρ·dx/dt`: multiply the solution by this to get pascals.
    pub scale: f64,
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
