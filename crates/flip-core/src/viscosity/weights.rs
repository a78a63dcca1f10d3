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

/// The extremes of the level set over each cell's 3×3(×3) block of cells: every sample that
/// [`fraction`] takes for a control volume centred in the cell interpolates only those cells,
/// so a block wholly outside (inside) the liquid by more than an octant's half width has
/// fraction exactly 0 (1), and the octants need not be sampled.
pub struct BlockBounds {
    min: Grid3<f32>,
    max: Grid3<f32>,
}

impl BlockBounds {
    /// The bounds of `phi` on the grid `spec`.
    pub fn new(spec: &GridSpec, phi: &Grid3<f32>) -> Self {
        let dims = spec.dims();
        let mut min = phi.clone();
        let mut max = phi.clone();
        for axis in 0..spec.dimension() {
            min = filter_axis(&min, dims, axis, f32::min);
            max = filter_axis(&max, dims, axis, f32::max);
        }
        Self { min, max }
    }

    /// The fraction at `p` when it is certainly 0 or 1 (bit for bit what [`fraction`] gives).
    fn decided(&self, spec: &GridSpec, p: Vec3) -> Option<f32> {
        let cell = |x: f32, n: usize| ((x / spec.dx).max(0.0) as usize).min(n - 1);
        let idx = (cell(p.x, spec.ni), cell(p.y, spec.nj), cell(p.z, spec.nk));
        // an octant's occupancy clamp(½ − φ/h) is exactly 0 for φ ≥ h/2 and 1 for φ ≤ −h/2;
        // the margin covers the interpolation's rounding
        let edge = 0.6 * 0.5 * spec.dx;
        if self.min[idx] >= edge {
            Some(0.0)
        } else if self.max[idx] <= -edge {
            Some(1.0)
        } else {
            None
        }
    }
}

/// `g` with each value replaced by `pick` over itself and its two neighbours along `axis`.
fn filter_axis(
    g: &Grid3<f32>,
    dims: [usize; 3],
    axis: usize,
    pick: fn(f32, f32) -> f32,
) -> Grid3<f32> {
    let mut out = g.clone();
    crate::grid::par_for_each_mut(dims, &mut out.data, |i, j, k, v| {
        let mut idx = [i, j, k];
        let at = idx[axis];
        for n in [at.saturating_sub(1), (at + 1).min(dims[axis] - 1)] {
            idx[axis] = n;
            *v = pick(*v, g[(idx[0], idx[1], idx[2])]);
        }
    });
    out
}

/// Fills `grid` (of `dims`) with the fraction at the positions `at(i, j, k)`, sampling the
/// octants only near the surface (`bounds` decides the rest).
pub fn fill(
    spec: &GridSpec,
    phi: &Grid3<f32>,
    bounds: &BlockBounds,
    dims: [usize; 3],
    grid: &mut Grid3<f32>,
    at: impl Fn(usize, usize, usize) -> Vec3 + Sync,
) {
    grid.reset(dims[0], dims[1], dims[2], 0.0);
    crate::grid::par_for_each_mut(dims, &mut grid.data, |i, j, k, v| {
        let p = at(i, j, k);
        *v = bounds
            .decided(spec, p)
            .unwrap_or_else(|| fraction(spec, phi, p));
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

    #[test]
    fn decided_fractions_are_the_sampled_ones_bit_for_bit() {
        // a ball of liquid in 3D, off the lattice: every control volume's fraction, decided or
        // sampled, is what sampling its octants gives
        let spec = GridSpec::new(13, 11, 9, 0.07);
        let mut phi = Grid3::new(13, 11, 9, 0.0f32);
        let centre = Vec3::new(0.41, 0.37, 0.29);
        crate::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
            *v = (spec.cell_center(i, j, k) - centre).length() - 0.23;
        });
        let bounds = BlockBounds::new(&spec, &phi);
        let mut decided = 0;
        for axis in 0..3 {
            let dims = edge_dims(&spec, axis);
            let mut grid = Grid3::new(0, 0, 0, 0.0);
            let at = |i, j, k| edge_center(&spec, axis, i, j, k);
            fill(&spec, &phi, &bounds, dims, &mut grid, at);
            for k in 0..dims[2] {
                for j in 0..dims[1] {
                    for i in 0..dims[0] {
                        let p = at(i, j, k);
                        let want = fraction(&spec, &phi, p);
                        assert_eq!(grid[(i, j, k)].to_bits(), want.to_bits(), "{p}");
                        decided += usize::from(bounds.decided(&spec, p).is_some());
                    }
                }
            }
        }
        assert!(decided > 1000, "{decided} decided");
    }
}
