//! Liquid fractions of the control volumes of the velocity (faces), the diagonal strains (cell
//! centres) and the shear strains (edges in 3D, nodes in 2D), from the liquid level set
//! (Batty & Bridson 2008 §4.2: the fraction of each control volume inside the liquid).

use crate::grid::{Grid3, GridSpec};
use crate::smoke::sample_cell;
use glam::Vec3;

/// The fraction of a cube of side `dx` centred at `p` inside the liquid (`phi < 0`): the mean
/// over its 2^d octants of the linear occupancy `clamp(½ − φ/h, 0, 1)` of an octant of side
/// `h = dx/2`, with φ interpolated at the octant's centre.
pub fn fraction(spec: &GridSpec, phi: &Grid3<f32>, p: Vec3) -> f32 {
    let h = 0.5 * spec.dx;
    let zs: &[f32] = if spec.is_2d() { &[0.0] } else { &[-0.5, 0.5] };
    let mut sum = 0.0;
    let mut count = 0.0;
    for &dz in zs {
        for dy in [-0.5f32, 0.5] {
            for dx in [-0.5f32, 0.5] {
                let q = p + Vec3::new(dx, dy, dz) * h;
                let f = sample_cell(spec, phi, q);
                sum += (0.5 - f / h).clamp(0.0, 1.0);
                count += 1.0;
            }
        }
    }
    sum / count
}

/// Dimensions of the face grid of `axis` (`dims + e_axis`).
pub fn face_dims(spec: &GridSpec, axis: usize) -> [usize; 3] {
    let mut d = spec.dims();
    d[axis] += 1;
    d
}

/// Dimensions of the grid of edges along `axis` (`dims + 1 − e_axis`; in 2D the nodes, for
/// `axis = 2`).
pub fn edge_dims(spec: &GridSpec, axis: usize) -> [usize; 3] {
    let mut d = spec.dims();
    for (a, n) in d.iter_mut().enumerate() {
        if a != axis && !(spec.is_2d() && a == 2) {
            *n += 1;
        }
    }
    d
}

/// Centre of edge `(i, j, k)` along `axis`: on the grid lines across `axis`, mid-cell along it.
pub fn edge_center(spec: &GridSpec, axis: usize, i: usize, j: usize, k: usize) -> Vec3 {
    let mut p = Vec3::new(i as f32, j as f32, k as f32) * spec.dx;
    p[axis] += 0.5 * spec.dx;
    if spec.is_2d() {
        p.z = 0.5 * spec.dx;
    }
    p
}

/// Fills `grid` (of `dims`) with the fraction at the positions `at(i, j, k)`.
pub fn fill(
    spec: &GridSpec,
    phi: &Grid3<f32>,
    dims: [usize; 3],
    grid: &mut Grid3<f32>,
    at: impl Fn(usize, usize, usize) -> Vec3 + Sync,
) {
    grid.reset(dims[0], dims[1], dims[2], 0.0);
    crate::grid::par_for_each_mut(dims, &mut grid.data, |i, j, k, v| {
        *v = fraction(spec, phi, at(i, j, k));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_follow_a_plane_surface() {
        let spec = GridSpec::new(8, 8, 1, 0.125);
        let mut phi = Grid3::new(8, 8, 1, 0.0f32);
        // surface at y = 0.5: liquid below
        crate::grid::par_for_each_mut([8, 8, 1], &mut phi.data, |i, j, k, v| {
            *v = spec.cell_center(i, j, k).y - 0.5;
        });
        let at = |y: f32| fraction(&spec, &phi, Vec3::new(0.5, y, 0.0625));
        assert!((at(0.25) - 1.0).abs() < 1e-6);
        assert!(at(0.75).abs() < 1e-6);
        assert!((at(0.5) - 0.5).abs() < 1e-6, "{}", at(0.5));
        assert!((at(0.5 - 0.03125) - 0.75).abs() < 1e-5, "{}", at(0.47));
    }
}
