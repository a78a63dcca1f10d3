//! The signed distance to a triangle mesh: the distance to the closest triangle (through a
//! BVH) with the sign of the generalised winding number (Jacobson et al. 2013), so a mesh with
//! small holes still has a well-defined inside. The winding number is evaluated with the fast
//! approximation of Barill et al. 2018 (far nodes as dipoles, exact near the query point).
//! [`MeshSdf::cached`] adds grids of sampled distances ([`SdfGrid`]) that answer the queries
//! away from the surface; those near it stay exact.

use super::bvh::Bvh;
use super::sdf_grid::{node_count, SdfGrid};

/// Nodes a cache grid may always hold, however small the domain.
const MIN_BUDGET: f64 = (1u64 << 18) as f64;
use crate::surface::TriMesh;
use glam::Vec3;
use std::sync::Arc;

/// A mesh prepared for signed-distance queries (metres, world coordinates at rest).
#[derive(Debug)]
pub struct MeshSdf {
    bvh: Bvh,
    lo: Vec3,
    hi: Vec3,
    triangles: usize,
    /// Finest first: around the mesh, then over the whole domain.
    caches: Vec<SdfGrid>,
}

impl MeshSdf {
    /// Prepares `mesh` (triangles counter-clockwise seen from outside).
    pub fn new(mesh: &TriMesh) -> Self {
        let tris: Vec<[Vec3; 3]> = mesh
            .triangles
            .iter()
            .map(|t| t.map(|v| mesh.positions[v as usize]))
            .collect();
        let (lo, hi) = tris.iter().flatten().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), &v| (lo.min(v), hi.max(v)),
        );
        Self {
            triangles: tris.len(),
            bvh: Bvh::new(tris),
            lo,
            hi,
            caches: Vec::new(),
        }
    }

    /// Prepares `mesh` and samples its signed distance on two grids (rest-frame coordinates;
    /// in 2D only the cut plane, [`MeshShape::flat`]): spacing `h` over the box `around` grown
    /// to hold the mesh's bounds with a margin of three nodes, and spacing `h/2` over the
    /// mesh's bounds with the same margin, where queries crowd near the surface. Each grid
    /// holds at most twice the nodes of `around` at spacing `h` (at least 2¹⁸), coarser where
    /// it would need more.
    /// [`MeshSdf::distance`] reads the finest grid that is exact enough at the query (see
    /// [`SdfGrid`]: farther than its cell diagonal from the surface), else evaluates.
    pub fn cached(mesh: &TriMesh, around: (Vec3, Vec3), h: f32, is_2d: bool) -> Self {
        let mut sdf = Self::new(mesh);
        let margin = Vec3::splat(3.0 * h);
        let (bounds_lo, bounds_hi) = (sdf.lo - margin, sdf.hi + margin);
        let boxes = [
            (bounds_lo, bounds_hi, 0.5 * h),
            (around.0.min(bounds_lo), around.1.max(bounds_hi), h),
        ];
        let mid = 0.5 * (sdf.lo.z + sdf.hi.z);
        let flat = |(mut lo, mut hi): (Vec3, Vec3)| {
            if is_2d {
                (lo.z, hi.z) = (mid, mid);
            }
            (lo, hi)
        };
        // The work follows the simulation's grid, not the mesh's size in cells: a mesh far
        // larger than `around` (a domain of tiny cells) gets coarser caches.
        let (lo, hi) = flat(around);
        let budget = (2.0 * node_count(lo, hi, h)).max(MIN_BUDGET);
        let caches = boxes
            .map(|(lo, hi, h)| {
                let (lo, hi) = flat((lo, hi));
                SdfGrid::build_within(lo, hi, h, budget, |p| sdf.exact_distance(p))
            })
            .into();
        sdf.caches = caches;
        sdf
    }

    /// The grids of cached distances, finest first (none unless [`MeshSdf::cached`]).
    pub fn caches(&self) -> &[SdfGrid] {
        &self.caches
    }

    /// Signed distance of `p` (negative inside: winding number above ½): from the cache
    /// where it is trusted, else [`MeshSdf::exact_distance`].
    pub fn distance(&self, p: Vec3) -> f32 {
        self.caches
            .iter()
            .find_map(|c| c.sample(p))
            .unwrap_or_else(|| self.exact_distance(p))
    }

    /// Signed distance of `p` evaluated on the mesh (closest triangle, winding-number sign).
    pub fn exact_distance(&self, p: Vec3) -> f32 {
        let d = self.bvh.distance(p);
        if self.winding_number(p) > 0.5 {
            -d
        } else {
            d
        }
    }

    /// Generalised winding number at `p`: 1 inside, 0 outside, fractional near holes.
    pub fn winding_number(&self, p: Vec3) -> f32 {
        self.bvh.winding_number(p)
    }

    /// Axis-aligned bounds `(min, max)` of the vertices.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        (self.lo, self.hi)
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles
    }
}

/// A shared mesh solid; equal when it is the same prepared mesh.
#[derive(Clone, Debug)]
pub struct MeshShape(pub Arc<MeshSdf>);

impl PartialEq for MeshShape {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl MeshShape {
    /// Signed distance; in 2D the mesh is cut by the plane `z =` the middle of its bounds.
    pub fn distance(&self, p: Vec3, is_2d: bool) -> f32 {
        self.0.distance(self.flat(p, is_2d))
    }

    /// `p` with z moved to the middle of the mesh's bounds in 2D.
    pub fn flat(&self, p: Vec3, is_2d: bool) -> Vec3 {
        if is_2d {
            let (lo, hi) = self.0.bounds();
            Vec3::new(p.x, p.y, 0.5 * (lo.z + hi.z))
        } else {
            p
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An icosphere-like closed sphere: a UV sphere with `n` rings, counter-clockwise outside.
    pub(crate) fn uv_sphere(center: Vec3, radius: f32, n: u32) -> TriMesh {
        let mut m = TriMesh::default();
        let (rings, segs) = (n, 2 * n);
        m.positions.push(center + Vec3::Y * radius);
        for r in 1..rings {
            let th = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segs {
                let ph = std::f32::consts::TAU * s as f32 / segs as f32;
                let d = Vec3::new(th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin());
                m.positions.push(center + radius * d);
            }
        }
        m.positions.push(center - Vec3::Y * radius);
        let ring = |r: u32, s: u32| 1 + (r - 1) * segs + s % segs;
        let last = m.positions.len() as u32 - 1;
        for s in 0..segs {
            m.triangles.push([0, ring(1, s + 1), ring(1, s)]);
            m.triangles
                .push([last, ring(rings - 1, s), ring(rings - 1, s + 1)]);
            for r in 1..rings - 1 {
                let (a, b, c, d) = (
                    ring(r, s),
                    ring(r, s + 1),
                    ring(r + 1, s + 1),
                    ring(r + 1, s),
                );
                m.triangles.push([a, b, c]);
                m.triangles.push([a, c, d]);
            }
        }
        m
    }

    #[test]
    fn sphere_mesh_distance_and_sign_match_the_analytic_sphere() {
        let c = Vec3::splat(0.5);
        let mesh = uv_sphere(c, 0.3, 48);
        crate::surface::check_closed_manifold(&mesh).expect("closed sphere");
        assert!(crate::surface::enclosed_volume(&mesh) > 0.0, "outward");
        let sdf = MeshSdf::new(&mesh);
        let mut worst = 0.0f32;
        for i in 0..21 {
            for j in 0..21 {
                let p = Vec3::new(i as f32 / 20.0, j as f32 / 20.0, 0.47);
                let exact = p.distance(c) - 0.3;
                let d = sdf.distance(p);
                assert_eq!(d < 0.0, exact < 0.0, "sign at {p}: {d} vs {exact}");
                worst = worst.max((d - exact).abs());
            }
        }
        // the polygon's chord error at 48 rings is r (1 − cos(π/96)) ≈ 1.6e-4
        assert!(worst < 1e-3, "largest distance error {worst}");
        // exact solid angles sum to one turn; the dipole far field is first order (a few %)
        let exact: f32 = mesh
            .triangles
            .iter()
            .map(|t| super::super::bvh::solid_angle(c, &t.map(|v| mesh.positions[v as usize])))
            .sum::<f32>()
            / (4.0 * std::f32::consts::PI);
        assert!((exact - 1.0).abs() < 1e-4, "exact winding number {exact}");
        let w = sdf.winding_number(c);
        assert!((w - 1.0).abs() < 0.05, "winding number at the centre {w}");
        assert!(sdf.winding_number(Vec3::new(0.5, 0.5, 0.9)).abs() < 1e-3);
    }

    #[test]
    fn the_caches_follow_the_domain_not_the_mesh_in_cells() {
        // A 0.6 m sphere beside a domain of 40 µm cells of 1 µm: at the domain's spacing its
        // caches would hold ~10¹⁷ nodes; they get the domain's budget (at least 2¹⁸) instead.
        let mesh = uv_sphere(Vec3::splat(0.5), 0.3, 12);
        let around = (Vec3::ZERO, Vec3::splat(40e-6));
        let sdf = MeshSdf::cached(&mesh, around, 1e-6, false);
        let budget = (2.0 * node_count(around.0, around.1, 1e-6)).max(MIN_BUDGET);
        assert_eq!(sdf.caches().len(), 2);
        for cache in sdf.caches() {
            let nodes: f64 = cache.dims().iter().map(|&d| d as f64).product();
            assert!(nodes <= budget, "{nodes} nodes for a budget of {budget}");
        }
    }

    #[test]
    fn a_hole_does_not_flip_the_inside() {
        let c = Vec3::splat(0.5);
        let mut mesh = uv_sphere(c, 0.3, 24);
        // cut a small cap open at the top: the triangles around the pole
        mesh.triangles.retain(|t| !t.contains(&0));
        let sdf = MeshSdf::new(&mesh);
        assert!(sdf.distance(c) < 0.0, "the centre stays inside");
        assert!(sdf.distance(c + Vec3::new(0.0, 0.2, 0.0)) < 0.0);
        assert!(
            sdf.distance(Vec3::new(0.5, 0.95, 0.5)) > 0.0,
            "above the hole"
        );
        assert!(sdf.distance(Vec3::new(0.05, 0.5, 0.5)) > 0.0);
    }
}
