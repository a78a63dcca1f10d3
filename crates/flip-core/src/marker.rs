//! Fluid cell marking (Karlsson Alg. 4).

use crate::cells::{CellGrid, CellKind};
use crate::grid::GridSpec;
use crate::particles::Particles;
use crate::solids::Solids;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Alg. 4: cells whose centre is inside a solid (`solids.phi < 0`) are [`CellKind::Solid`];
/// other cells holding at least one particle are [`CellKind::Fluid`]; the rest are
/// [`CellKind::Air`]. Particles outside the grid count for the cell they clamp to. Resizes
/// `cells` to `spec`.
pub fn mark_cells(spec: &GridSpec, particles: &Particles, solids: &Solids, cells: &mut CellGrid) {
    assert_eq!(
        solids.phi.dims(),
        spec.dims(),
        "solids sampled on another grid"
    );
    let n = spec.cell_count();
    let occupied: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let index = |p| {
        let [i, j, k] = spec.cell_of(p);
        i + spec.ni * (j + spec.nj * k)
    };
    particles.pos.par_iter().with_min_len(4096).for_each(|&p| {
        occupied[index(p)].store(true, Ordering::Relaxed);
    });
    cells.reset(spec.ni, spec.nj, spec.nk, CellKind::Air);
    cells
        .data
        .par_iter_mut()
        .zip(solids.phi.data.par_iter())
        .zip(occupied.par_iter())
        .for_each(|((c, &phi), occ)| {
            *c = if phi < 0.0 {
                CellKind::Solid
            } else if occ.load(Ordering::Relaxed) {
                CellKind::Fluid
            } else {
                CellKind::Air
            };
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn marks_solid_fluid_and_air() {
        let spec = GridSpec::new(6, 5, 1, 1.0);
        let solids = Solids::walls(spec);
        let mut ps = Particles::default();
        ps.push(Vec3::new(2.5, 1.2, 0.5), Vec3::ZERO);
        ps.push(Vec3::new(2.7, 1.9, 0.5), Vec3::ZERO);
        ps.push(Vec3::new(0.5, 0.5, 0.5), Vec3::ZERO); // in the wall: stays solid
        ps.push(Vec3::new(3.1, 3.9, 0.5), Vec3::ZERO);
        let mut cells = CellGrid::new(1, 1, 1, CellKind::Air);
        mark_cells(&spec, &ps, &solids, &mut cells);
        assert_eq!(cells.dims(), [6, 5, 1]);
        assert_eq!(cells[(2, 1, 0)], CellKind::Fluid);
        assert_eq!(cells[(3, 3, 0)], CellKind::Fluid);
        assert_eq!(cells[(0, 0, 0)], CellKind::Solid);
        assert_eq!(cells[(5, 2, 0)], CellKind::Solid);
        assert_eq!(cells[(2, 2, 0)], CellKind::Air);
        assert_eq!(cells.data.iter().filter(|c| c.is_fluid()).count(), 2);
    }
}
