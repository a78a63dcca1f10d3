//! Diagnostics: divergence, liquid volume, kinetic energy, particle sanity counts.

use crate::cells::{CellGrid, CellKind};
use crate::grid::{par_for_each_mut, GridSpec};
use crate::mac::MacGrid;
use crate::particles::Particles;
use crate::solids::Solids;
use rayon::prelude::*;

/// Particles per chunk of the deterministic parallel sums.
const SUM_CHUNK: usize = 1 << 14;

/// Kind of cell `(i, j, k)` offset by `d` along `axis`; outside the grid counts as solid.
#[inline]
pub(crate) fn neighbour(
    cells: &CellGrid,
    [i, j, k]: [usize; 3],
    axis: usize,
    d: isize,
) -> CellKind {
    let mut c = [i as isize, j as isize, k as isize];
    c[axis] += d;
    if cells.contains(c[0], c[1], c[2]) {
        cells[(c[0] as usize, c[1] as usize, c[2] as usize)]
    } else {
        CellKind::Solid
    }
}

/// `Σ_axis (u_{+} − u_{−})` of fluid cell `(i, j, k)`, faces to solid cells counted as 0.
#[inline]
fn face_sum(spec: &GridSpec, vel: &MacGrid, cells: &CellGrid, ijk: [usize; 3]) -> f32 {
    let mut s = 0.0;
    for (a, g) in vel.axes().into_iter().enumerate().take(spec.dimension()) {
        let mut hi = ijk;
        hi[a] += 1;
        if !neighbour(cells, ijk, a, 1).is_solid() {
            s += g[(hi[0], hi[1], hi[2])];
        }
        if !neighbour(cells, ijk, a, -1).is_solid() {
            s -= g[(ijk[0], ijk[1], ijk[2])];
        }
    }
    s
}

/// Largest `|Σ face differences|` over fluid cells (solved units: `max |∇·u| · dx`), faces to
/// solid cells counted as 0 velocity.
pub fn divergence_residual(spec: &GridSpec, vel: &MacGrid, cells: &CellGrid) -> f32 {
    divergence_violation(spec, vel, cells, None)
}

/// Like [`divergence_residual`], but cells flagged in `separating` (the LCP set S, same layout
/// as `cells`) may have positive divergence — liquid leaving the wall — so only a negative
/// divergence (compression) counts there (Lai et al. eq. 3.6).
pub fn divergence_violation(
    spec: &GridSpec,
    vel: &MacGrid,
    cells: &CellGrid,
    separating: Option<&[u8]>,
) -> f32 {
    assert_eq!(cells.dims(), spec.dims(), "cells on another grid");
    let mut row_max = vec![0.0f32; spec.nj * spec.nk];
    par_for_each_mut([1, spec.nj, spec.nk], &mut row_max, |_, j, k, m| {
        for i in 0..spec.ni {
            if cells[(i, j, k)].is_fluid() {
                let d = face_sum(spec, vel, cells, [i, j, k]);
                let may_separate = separating.is_some_and(|s| s[cells.index(i, j, k)] != 0);
                *m = m.max(if may_separate { (-d).max(0.0) } else { d.abs() });
            }
        }
    });
    row_max.into_iter().fold(0.0, f32::max)
}

/// Largest `|∇·u|` (1/s) over fluid cells, faces to solid cells counted as 0 velocity.
pub fn max_divergence(spec: &GridSpec, vel: &MacGrid, cells: &CellGrid) -> f32 {
    divergence_residual(spec, vel, cells) / spec.dx
}

/// Number of fluid cells.
pub fn fluid_cell_count(cells: &CellGrid) -> usize {
    cells.data.par_iter().filter(|c| c.is_fluid()).count()
}

/// Liquid volume (area in 2D) from a level set: each cell counts the fraction
/// `clamp(½ − φ/dx, 0, 1)` of its volume, exact for a flat surface parallel to a cell face.
/// With `solids`, cells whose centre lies inside a solid are left out (the particle level set
/// continues into solids as the liquid's mirror image).
pub fn level_set_volume(
    spec: &GridSpec,
    phi: &crate::grid::Grid3<f32>,
    solids: Option<&Solids>,
) -> f64 {
    let cell = f64::from(spec.dx).powi(spec.dimension() as i32);
    let inv = 1.0 / spec.dx;
    let open = |c: usize| solids.is_none_or(|s| s.phi.data[c] > 0.0);
    let partial: Vec<f64> = phi
        .data
        .par_chunks(SUM_CHUNK)
        .enumerate()
        .map(|(n, c)| {
            let at = n * SUM_CHUNK;
            let cells = c.iter().enumerate().filter(|(i, _)| open(at + i));
            cells
                .map(|(_, &p)| f64::from((0.5 - p * inv).clamp(0.0, 1.0)))
                .sum()
        })
        .collect();
    partial.iter().sum::<f64>() * cell
}

/// Liquid volume: fluid cells · dx³ (area · dx² in 2D).
pub fn liquid_volume(spec: &GridSpec, cells: &CellGrid) -> f32 {
    fluid_cell_count(cells) as f32 * spec.dx.powi(spec.dimension() as i32)
}

/// `Σ ½|v|²` over particles (per unit mass per particle), summed deterministically in f64.
pub fn kinetic_energy(particles: &Particles) -> f64 {
    let parts: Vec<f64> = particles
        .vel
        .par_chunks(SUM_CHUNK)
        .map(|c| c.iter().map(|v| 0.5 * v.length_squared() as f64).sum())
        .collect();
    parts.into_iter().sum()
}

/// Number of particles strictly inside a solid (`solids.distance(p) < 0`).
pub fn particles_in_solid(particles: &Particles, solids: &Solids) -> usize {
    particles
        .pos
        .par_iter()
        .filter(|&&p| solids.distance(p) < 0.0)
        .count()
}

/// Number of particles outside the domain box `[0, n·dx]` (x and y only in 2D) or not finite.
pub fn particles_outside_domain(spec: &GridSpec, particles: &Particles) -> usize {
    let e = spec.extent();
    let axes = spec.dimension();
    particles
        .pos
        .par_iter()
        .filter(|p| (0..axes).any(|a| !(p[a] >= 0.0 && p[a] <= e[a])))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn divergence_counts_solid_faces_as_zero() {
        let spec = GridSpec::new(5, 4, 1, 0.5);
        let mut cells = CellGrid::new(5, 4, 1, CellKind::Solid);
        for j in 1..3 {
            for i in 1..4 {
                cells[(i, j, 0)] = CellKind::Fluid;
            }
        }
        let mut vel = MacGrid::zeros(&spec);
        for (f, u) in vel.u.data.iter_mut().enumerate() {
            *u = (f % 6) as f32; // u on face i is i
        }
        // cell 1: 2 - (solid) = 2; cell 2: 3 - 2 = 1; cell 3: (solid) - 3 = -3
        assert!((divergence_residual(&spec, &vel, &cells) - 3.0).abs() < 1e-6);
        assert!((max_divergence(&spec, &vel, &cells) - 6.0).abs() < 1e-6);
        cells[(3, 1, 0)] = CellKind::Air;
        cells[(3, 2, 0)] = CellKind::Air;
        assert!((divergence_residual(&spec, &vel, &cells) - 2.0).abs() < 1e-6);
        assert_eq!(fluid_cell_count(&cells), 4);
        assert!((liquid_volume(&spec, &cells) - 4.0 * 0.25).abs() < 1e-6);
    }

    #[test]
    fn particle_counts_and_energy() {
        let spec = GridSpec::new(10, 10, 1, 0.1);
        let solids = Solids::walls(spec);
        let mut ps = Particles::default();
        ps.push(Vec3::new(0.5, 0.5, 0.05), Vec3::new(3.0, 4.0, 0.0));
        ps.push(Vec3::new(0.05, 0.5, 0.05), Vec3::new(1.0, 0.0, 0.0));
        ps.push(Vec3::new(1.2, 0.5, 0.05), Vec3::ZERO);
        assert_eq!(particles_in_solid(&ps, &solids), 2);
        assert_eq!(particles_outside_domain(&spec, &ps), 1);
        assert!((kinetic_energy(&ps) - 13.0).abs() < 1e-9);
    }
}
