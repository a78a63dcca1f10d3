//! A signed distance sampled on a regular grid of nodes and read back by trilinear
//! interpolation: the cache of an imported mesh's signed distance (in the mesh's rest frame, so
//! it stays valid while the solid moves).
//!
//! The rule for trusting it: a cell of the grid is used only when its 8 corner values agree in
//! sign and all exceed the cell diagonal `h√3` in magnitude. A signed distance is 1-Lipschitz,
//! so then no surface point lies in the cell, the sign is exact and the interpolated value (a
//! convex combination of the corners) is within `h√3` of the exact distance. Every other query
//! (near the surface, across a hole's sign change, outside the grid) is evaluated exactly.

use glam::Vec3;
use rayon::prelude::*;

/// Signed distances at the nodes `origin + h·(i, j, k)`.
#[derive(Clone, Debug)]
pub struct SdfGrid {
    origin: Vec3,
    h: f32,
    dims: [usize; 3],
    values: Vec<f32>,
    /// `h√3`: corner values at least this far from zero make a cell trusted.
    band: f32,
}

/// Most nodes one cache grid holds (64 MiB of distances).
pub const MAX_NODES: f64 = (1u64 << 24) as f64;

/// Nodes of the box `lo..hi` at spacing `h` (a flat axis has one layer).
pub fn node_count(lo: Vec3, hi: Vec3, h: f32) -> f64 {
    let extent = (hi - lo).max(Vec3::ZERO);
    if !(extent.is_finite() && h.is_finite() && h > 0.0) {
        return 1.0;
    }
    node_counts(extent, h).iter().map(|&d| d as f64).product()
}

/// Nodes along each axis of a box of `extent` (finite, non-negative) at spacing `h`.
fn node_counts(extent: Vec3, h: f32) -> [usize; 3] {
    [0, 1, 2].map(|a| (extent[a] / h).ceil().min(1e9) as usize + 1)
}

impl SdfGrid {
    /// Samples `f` at the nodes of the box `lo..hi` with spacing `h` (an axis where `lo` and
    /// `hi` coincide gets a single layer, as for the cut plane of a 2D scene).
    /// The spacing grows (the cache is an acceleration only: [`SdfGrid::sample`] trusts a
    /// node farther than a cell diagonal from the surface) until the grid holds at most
    /// [`MAX_NODES`]; a box with a non-finite extent gets a single node.
    pub fn build(lo: Vec3, hi: Vec3, h: f32, f: impl Fn(Vec3) -> f32 + Sync) -> Self {
        Self::build_within(lo, hi, h, MAX_NODES, f)
    }

    /// [`SdfGrid::build`] with at most `max_nodes` nodes (and at most [`MAX_NODES`]).
    pub fn build_within(
        lo: Vec3,
        hi: Vec3,
        h: f32,
        max_nodes: f64,
        f: impl Fn(Vec3) -> f32 + Sync,
    ) -> Self {
        let max_nodes = max_nodes.min(MAX_NODES);
        let extent = (hi - lo).max(Vec3::ZERO);
        let extent = if extent.is_finite() {
            extent
        } else {
            Vec3::ZERO
        };
        let mut h = if h.is_finite() && h > 0.0 { h } else { 1.0 };
        let mut dims = node_counts(extent, h);
        while dims.iter().map(|&d| d as f64).product::<f64>() > max_nodes {
            h *= 1.25;
            dims = node_counts(extent, h);
        }
        let mut values = vec![0.0f32; dims[0] * dims[1] * dims[2]];
        values
            .par_chunks_mut(dims[0])
            .enumerate()
            .for_each(|(row, out)| {
                let (j, k) = (row % dims[1], row / dims[1]);
                for (i, v) in out.iter_mut().enumerate() {
                    *v = f(lo + h * Vec3::new(i as f32, j as f32, k as f32));
                }
            });
        Self {
            origin: lo,
            h,
            dims,
            values,
            band: h * 3f32.sqrt(),
        }
    }

    /// Node spacing.
    pub fn spacing(&self) -> f32 {
        self.h
    }

    /// Nodes along each axis.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The interpolated distance at `p` when its cell is trusted (module docs), else `None`.
    #[inline]
    pub fn sample(&self, p: Vec3) -> Option<f32> {
        let g = (p - self.origin) / self.h;
        let (mut base, mut t, mut step) = ([0usize; 3], [0.0f32; 3], [0usize; 3]);
        let stride = [1, self.dims[0], self.dims[0] * self.dims[1]];
        for a in 0..3 {
            let n = self.dims[a];
            if n == 1 {
                if g[a].abs() > 0.5 {
                    return None;
                }
                continue;
            }
            // Also false for NaN.
            if !(g[a] >= 0.0 && g[a] <= (n - 1) as f32) {
                return None;
            }
            let i = (g[a] as usize).min(n - 2);
            (base[a], t[a], step[a]) = (i, g[a] - i as f32, stride[a]);
        }
        let at = base[0] + base[1] * stride[1] + base[2] * stride[2];
        let mut c = [0.0f32; 8];
        for (m, v) in c.iter_mut().enumerate() {
            let o = (m & 1) * step[0] + (m >> 1 & 1) * step[1] + (m >> 2) * step[2];
            *v = self.values[at + o];
        }
        let positive = c[0] > 0.0;
        if c.iter()
            .any(|&v| (v > 0.0) != positive || v.abs() <= self.band)
        {
            return None;
        }
        let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
        let x: [f32; 4] = std::array::from_fn(|q| lerp(c[2 * q], c[2 * q + 1], t[0]));
        let y = [lerp(x[0], x[1], t[1]), lerp(x[2], x[3], t[1])];
        Some(lerp(y[0], y[1], t[2]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_from_the_surface_it_interpolates_and_near_it_declines() {
        let sphere = |p: Vec3| p.length() - 0.5;
        let grid = SdfGrid::build(Vec3::splat(-1.0), Vec3::splat(1.0), 0.05, sphere);
        assert_eq!(grid.dims(), [41, 41, 41]);
        let far = Vec3::new(0.9, 0.1, -0.3);
        let v = grid.sample(far).expect("far from the surface");
        assert!((v - sphere(far)).abs() < 1e-3, "{v}");
        assert!(grid.sample(Vec3::new(0.0, 0.0, 0.0)).unwrap() < 0.0);
        assert_eq!(
            grid.sample(Vec3::new(0.51, 0.0, 0.0)),
            None,
            "at the surface"
        );
        assert_eq!(grid.sample(Vec3::splat(1.5)), None, "outside the grid");
        assert_eq!(grid.sample(Vec3::splat(f32::NAN)), None);
        // A single layer (the cut plane of a 2D scene).
        let flat = SdfGrid::build(
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            0.05,
            sphere,
        );
        assert_eq!(flat.dims()[2], 1);
        assert!((flat.sample(Vec3::new(0.9, 0.0, 0.0)).unwrap() - 0.4).abs() < 1e-3);
        assert_eq!(flat.sample(Vec3::new(0.9, 0.0, 0.2)), None);
    }

    #[test]
    fn a_huge_or_broken_box_is_sampled_coarser_not_allocated_whole() {
        // a mesh scaled up 10⁴× around a 1 cm grid: 10¹⁵ nodes at the asked spacing
        let plane = |p: Vec3| p.y;
        let big = SdfGrid::build(Vec3::splat(-5e3), Vec3::splat(5e3), 0.01, plane);
        let nodes: f64 = big.dims().iter().map(|&d| d as f64).product();
        assert!(nodes <= MAX_NODES, "{:?}", big.dims());
        assert!(big.spacing() > 10.0);
        let p = Vec3::new(0.0, 2e3, 0.0);
        assert!((big.sample(p).expect("far from the surface") - 2e3).abs() < 1.0);
        for (lo, hi) in [
            (Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY)),
            (Vec3::splat(f32::NAN), Vec3::ONE),
        ] {
            assert_eq!(SdfGrid::build(lo, hi, 0.01, plane).dims(), [1, 1, 1]);
        }
    }
}
