//! The geometry a tall-cell pressure problem carries for solvers of the tall-cell problem kind
//! (`abi::TallCellProblem`): the grid's heights, the side faces' solid tops, φ, and the
//! sample of each row.

use super::state::TallLiquid;
use flip_sdk::OwnedTallGeometry;

/// The geometry of the tall-cell problem kind: the grid's heights, each side face's solid
/// top (the walls closed), φ at every sample and the sample of each row.
pub(super) fn geometry(liquid: &TallLiquid, cells: &[usize]) -> OwnedTallGeometry {
    let g = &liquid.grid;
    let [nx, nz] = g.columns;
    let top = |axis: usize, ik| g.face_top(axis, ik).unwrap_or(g.height as f32);
    let face_x = (0..(nx + 1) * nz)
        .map(|f| top(0, (f % (nx + 1), f / (nx + 1))))
        .collect();
    let face_z = if g.is_3d() {
        (0..nx * (nz + 1))
            .map(|f| top(1, (f % nx, f / nx)))
            .collect()
    } else {
        Vec::new()
    };
    let cells_u32 = |v: &[usize]| v.iter().map(|&c| c as u32).collect();
    OwnedTallGeometry {
        dimension: if g.is_3d() { 3 } else { 2 },
        columns: g.columns,
        regular: g.regular,
        height: g.height,
        dx: f64::from(g.dx),
        terrain: cells_u32(&g.terrain),
        tall: cells_u32(&g.tall),
        face_top: [face_x, face_z],
        phi: liquid.phi.clone(),
        row_sample: cells_u32(cells),
    }
}
