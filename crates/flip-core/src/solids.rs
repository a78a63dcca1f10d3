//! Solid geometry as signed distance functions (negative inside the solid).
//!
//! The domain box always has walls: the outermost layer of cells is solid (Karlsson §6: "walls
//! one cell thick"). Shapes add to that; an `inverted` shape is solid *outside* its surface, which
//! makes containers (liquid inside a solid circle/sphere).

use crate::grid::{Grid3, GridSpec};
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Primitive solid shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ShapeKind {
    /// Axis-aligned box.
    Box {
        /// Minimum corner (m).
        min: Vec3,
        /// Maximum corner (m).
        max: Vec3,
    },
    /// Sphere (a disc in 2D: z is ignored).
    Sphere {
        /// Centre (m).
        center: Vec3,
        /// Radius (m).
        radius: f32,
    },
    /// Solid cells from a mask image (2D mazes): dark pixels are solid; the image is stretched
    /// over the whole domain in x/y.
    Mask {
        /// Row-major, top row first, `width * height` values; `true` = solid.
        solid: Vec<bool>,
        /// Pixels along x.
        width: usize,
        /// Pixels along y.
        height: usize,
    },
}

/// One solid: a shape, optionally inverted (solid outside), optionally hollow (a shell of the
/// given thickness).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// The primitive.
    pub kind: ShapeKind,
    /// Solid outside the surface instead of inside (a container).
    pub inverted: bool,
    /// If > 0: only a shell of this thickness around the surface is solid.
    pub shell: f32,
}

/// All solids of a scene: the domain walls plus a union of shapes, in a grid of size `spec`.
#[derive(Clone, Debug, PartialEq)]
pub struct Solids {
    /// The grid the solids are sampled on.
    pub spec: GridSpec,
    /// The shapes (union).
    pub shapes: Vec<Shape>,
    /// Solid signed distance at cell centres (negative inside), walls included.
    pub phi: Grid3<f32>,
}

impl Shape {
    /// Signed distance of `p` to this shape (negative inside the solid). `is_2d` ignores z.
    pub fn distance(&self, p: Vec3, spec: &GridSpec) -> f32 {
        let is_2d = spec.is_2d();
        let flat = |v: Vec3| if is_2d { Vec3::new(v.x, v.y, 0.0) } else { v };
        let d = match &self.kind {
            ShapeKind::Box { min, max } => {
                let c = flat((*min + *max) * 0.5);
                let h = flat((*max - *min) * 0.5);
                let q = (flat(p) - c).abs() - h;
                q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
            }
            ShapeKind::Sphere { center, radius } => (flat(p) - flat(*center)).length() - radius,
            ShapeKind::Mask {
                solid,
                width,
                height,
            } => {
                let e = spec.extent();
                let px = ((p.x / e.x) * *width as f32)
                    .floor()
                    .clamp(0.0, *width as f32 - 1.0);
                let py = ((1.0 - p.y / e.y) * *height as f32)
                    .floor()
                    .clamp(0.0, *height as f32 - 1.0);
                if solid[py as usize * width + px as usize] {
                    -0.5 * spec.dx
                } else {
                    0.5 * spec.dx
                }
            }
        };
        let d = if self.shell > 0.0 {
            d.abs() - 0.5 * self.shell
        } else {
            d
        };
        if self.inverted {
            -d
        } else {
            d
        }
    }
}

impl Solids {
    /// Samples the domain walls and `shapes` onto cell centres of `spec`.
    pub fn new(spec: GridSpec, shapes: Vec<Shape>) -> Self {
        let mut phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
        let ext = spec.extent();
        let wall = spec.dx; // walls one cell thick
        for k in 0..spec.nk {
            for j in 0..spec.nj {
                for i in 0..spec.ni {
                    let p = spec.cell_center(i, j, k);
                    // distance to the inner faces of the wall layer (negative inside the wall)
                    let mut d = (p.x - wall)
                        .min(ext.x - wall - p.x)
                        .min(p.y - wall)
                        .min(ext.y - wall - p.y);
                    if !spec.is_2d() {
                        d = d.min(p.z - wall).min(ext.z - wall - p.z);
                    }
                    for s in &shapes {
                        d = d.min(s.distance(p, &spec));
                    }
                    phi[(i, j, k)] = d;
                }
            }
        }
        Self { spec, shapes, phi }
    }

    /// Only the domain walls.
    pub fn walls(spec: GridSpec) -> Self {
        Self::new(spec, Vec::new())
    }

    /// Signed distance at an arbitrary point (walls and shapes, evaluated exactly).
    pub fn distance(&self, p: Vec3) -> f32 {
        let ext = self.spec.extent();
        let wall = self.spec.dx;
        let mut d = (p.x - wall)
            .min(ext.x - wall - p.x)
            .min(p.y - wall)
            .min(ext.y - wall - p.y);
        if !self.spec.is_2d() {
            d = d.min(p.z - wall).min(ext.z - wall - p.z);
        }
        self.shapes
            .iter()
            .fold(d, |d, s| d.min(s.distance(p, &self.spec)))
    }

    /// Outward normal (pointing out of the solid) at `p`, by central differences.
    pub fn normal(&self, p: Vec3) -> Vec3 {
        let h = 0.25 * self.spec.dx;
        let dx = self.distance(p + Vec3::X * h) - self.distance(p - Vec3::X * h);
        let dy = self.distance(p + Vec3::Y * h) - self.distance(p - Vec3::Y * h);
        let dz = if self.spec.is_2d() {
            0.0
        } else {
            self.distance(p + Vec3::Z * h) - self.distance(p - Vec3::Z * h)
        };
        Vec3::new(dx, dy, dz).normalize_or_zero()
    }

    /// Whether cell `(i, j, k)` is solid (its centre is inside a solid).
    #[inline]
    pub fn is_solid_cell(&self, i: usize, j: usize, k: usize) -> bool {
        self.phi[(i, j, k)] < 0.0
    }
}
