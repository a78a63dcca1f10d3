//! Solid geometry as signed distance functions (negative inside the solid).
//!
//! The domain box has walls by default: the outermost layer of cells is solid (Karlsson §6:
//! "walls one cell thick"); a face can instead be open or an inflow ([`DomainSides`]), which
//! removes its wall layer. Shapes add to that; an `inverted` shape is solid *outside* its surface, which
//! makes containers (liquid inside a solid circle/sphere).

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use glam::Vec3;

mod bvh;
mod faces;
pub mod import;
mod mask;
mod mesh;
pub mod motion;
mod reach;
mod sdf_grid;
mod sides;
mod velocity;
pub use import::{load_mesh, load_triangles, ImportedMesh, MeshImportError};
pub use mesh::{MeshSdf, MeshShape};
pub use motion::{Keyframe, Motion, MotionError, Placement};
pub use sdf_grid::SdfGrid;
use serde::{Deserialize, Serialize};
pub use sides::{DomainSides, Inflow, Side, SIDE_NAMES};

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
    /// A triangle mesh (imported OBJ/STL), signed by its generalised winding number; in 2D
    /// it is cut by the plane through the middle of its bounds.
    #[serde(skip)]
    Mesh(MeshShape),
}

/// One solid: a shape, optionally inverted (solid outside), optionally hollow (a shell of the
/// given thickness), either added to the solids before it or carved out of them (`subtract`,
/// e.g. holes in a hollow shell).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// The primitive.
    pub kind: ShapeKind,
    /// Solid outside the surface instead of inside (a container).
    pub inverted: bool,
    /// If > 0: only a shell of this thickness around the surface is solid.
    pub shell: f32,
    /// Carve this shape out of the solids listed before it instead of adding it.
    #[serde(default)]
    pub subtract: bool,
    /// Where the shape is now and how it moves; `None` = at rest where it was described.
    #[serde(skip)]
    pub placement: Option<Placement>,
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
    /// Open fraction of every MAC face (1 = no solid in the face, 0 = closed; Batty et al.
    /// 2007): the variational weights of the pressure solve. Domain-boundary faces are 0.
    pub face_open: MacGrid,
    /// Velocity of the solids on the MAC faces (m/s); `None` for static solids.
    pub velocity: Option<MacGrid>,
    /// Moving solids: the same solids at the end of the substep, where advected particles are
    /// pushed out (this value holds them at its start, for the pressure solve).
    pub end: Option<std::sync::Arc<Solids>>,
    /// Where `spec`'s origin lies in the domain (m): zero, except in a rank's window of a
    /// decomposed run, whose shapes are described in domain coordinates.
    pub origin: Vec3,
    /// The grid the shapes are described on (masks stretch over its extent): `spec`, except in
    /// a window.
    pub domain: GridSpec,
    /// What each face of the domain box is (all walls by default).
    pub sides: DomainSides,
    /// Each shape's bounding ball when the shapes form a plain union: distances skip the
    /// shapes too far to matter ([`reach::nearest_union`]).
    reach: Option<Vec<Option<reach::Reach>>>,
}

impl Shape {
    /// Combines the signed distance of the solids so far with this shape's (union or carve).
    #[inline]
    pub fn combine(&self, so_far: f32, own: f32) -> f32 {
        if self.subtract {
            so_far.max(-own)
        } else {
            so_far.min(own)
        }
    }

    /// Signed distance of `p` to this shape (negative inside the solid). `is_2d` ignores z.
    pub fn distance(&self, p: Vec3, spec: &GridSpec) -> f32 {
        let p = self.placement.map_or(p, |pl| pl.to_rest(p));
        let is_2d = spec.is_2d();
        let flat = |v: Vec3| if is_2d { Vec3::new(v.x, v.y, 0.0) } else { v };
        let d = match &self.kind {
            ShapeKind::Box { min, max } => {
                let c = flat((*min + *max) * 0.5);
                let h = flat((*max - *min) * 0.5);
                let mut q = (flat(p) - c).abs() - h;
                if is_2d {
                    q.z = -f32::MAX; // a rectangle: z must not cap the depth inside at 0
                }
                q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
            }
            ShapeKind::Sphere { center, radius } => (flat(p) - flat(*center)).length() - radius,
            ShapeKind::Mask {
                solid,
                width,
                height,
            } => mask::distance(solid, *width, *height, spec.extent(), p),
            ShapeKind::Mesh(mesh) => mesh.distance(p, is_2d),
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
    /// Samples the domain walls and `shapes` onto cell centres of `spec` and measures the open
    /// fraction of every face.
    pub fn new(spec: GridSpec, shapes: Vec<Shape>) -> Self {
        Self::in_window(spec, shapes, Vec3::ZERO, spec)
    }

    /// [`Solids::new`] on a window of `domain` whose origin lies at `origin`: the shapes are
    /// placed in `domain`, the walls are the window's own.
    pub fn in_window(spec: GridSpec, shapes: Vec<Shape>, origin: Vec3, domain: GridSpec) -> Self {
        Self::with_sides(spec, shapes, origin, domain, DomainSides::default())
    }

    /// [`Solids::in_window`] with the domain faces `sides`: open and inflow faces have no wall
    /// layer, and an inflow face moves at its speed.
    pub fn with_sides(
        spec: GridSpec,
        shapes: Vec<Shape>,
        origin: Vec3,
        domain: GridSpec,
        sides: DomainSides,
    ) -> Self {
        let mut solids = Self {
            spec,
            reach: reach::reaches(&shapes, domain.is_2d()),
            shapes,
            phi: Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32),
            face_open: MacGrid::zeros(&spec),
            velocity: None,
            end: None,
            origin,
            domain,
            sides,
        };
        let mut phi = std::mem::replace(&mut solids.phi, Grid3::new(0, 0, 0, 0.0));
        crate::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, d| {
            *d = solids.distance(spec.cell_center(i, j, k));
        });
        solids.phi = phi;
        let nodes = faces::nodal_distance(&spec, |p| solids.distance(p));
        solids.face_open = faces::open_fractions(&spec, &nodes);
        solids.velocity = velocity::face_velocities(&solids);
        velocity::add_inflow(&mut solids);
        solids
    }

    /// Moving solids: `shapes` as placed at the start of a substep (sampled here, with their
    /// velocities) and `at_end` as placed at its end (kept in [`Solids::end`]).
    pub fn moving(spec: GridSpec, shapes: Vec<Shape>, at_end: Vec<Shape>) -> Self {
        Self::moving_in_window(spec, shapes, at_end, Vec3::ZERO, spec)
    }

    /// [`Solids::moving`] on a window ([`Solids::in_window`]).
    pub fn moving_in_window(
        spec: GridSpec,
        shapes: Vec<Shape>,
        at_end: Vec<Shape>,
        origin: Vec3,
        domain: GridSpec,
    ) -> Self {
        Self::moving_with_sides(spec, shapes, at_end, origin, domain, DomainSides::default())
    }

    /// [`Solids::moving_in_window`] with the domain faces `sides` ([`Solids::with_sides`]).
    pub fn moving_with_sides(
        spec: GridSpec,
        shapes: Vec<Shape>,
        at_end: Vec<Shape>,
        origin: Vec3,
        domain: GridSpec,
        sides: DomainSides,
    ) -> Self {
        let mut solids = Self::with_sides(spec, shapes, origin, domain, sides);
        if at_end != solids.shapes {
            let end = Self::with_sides(spec, at_end, origin, domain, sides);
            solids.end = Some(std::sync::Arc::new(end));
        }
        solids
    }

    /// The solids at the end of the substep (themselves when nothing moves).
    pub fn at_end(&self) -> &Solids {
        self.end.as_deref().unwrap_or(self)
    }

    /// Only the domain walls.
    pub fn walls(spec: GridSpec) -> Self {
        Self::new(spec, Vec::new())
    }

    /// Signed distance at an arbitrary point (walls and shapes, evaluated exactly).
    pub fn distance(&self, p: Vec3) -> f32 {
        self.with_shapes(self.wall_distance(p), p)
    }

    /// Signed distance to the shapes alone (no domain walls); `f32::MAX` without shapes.
    pub fn shapes_distance(&self, p: Vec3) -> f32 {
        self.with_shapes(f32::MAX, p)
    }

    /// `so_far` combined with every shape's distance at `p`, in order; a plain union skips
    /// the shapes too far to change it.
    fn with_shapes(&self, so_far: f32, p: Vec3) -> f32 {
        let q = p + self.origin;
        let distance = |s: &Shape| s.distance(q, &self.domain);
        match &self.reach {
            Some(reach) => {
                let is_2d = self.domain.is_2d();
                reach::nearest_union(&self.shapes, reach, so_far, q, distance, is_2d)
            }
            None => (self.shapes.iter()).fold(so_far, |d, s| s.combine(d, distance(s))),
        }
    }

    /// Signed distance to the inner faces of the domain walls alone (one cell thick); faces
    /// that are not walls add nothing (`f32::MAX` with no wall at all).
    pub fn wall_distance(&self, p: Vec3) -> f32 {
        let ext = self.spec.extent();
        let wall = self.spec.dx;
        if self.sides.all_walls() {
            let mut d = (p.x - wall)
                .min(ext.x - wall - p.x)
                .min(p.y - wall)
                .min(ext.y - wall - p.y);
            if !self.spec.is_2d() {
                d = d.min(p.z - wall).min(ext.z - wall - p.z);
            }
            return d;
        }
        let mut d = f32::MAX;
        for a in 0..self.spec.dimension() {
            if self.sides.get(a, false) == Side::Wall {
                d = d.min(p[a] - wall);
            }
            if self.sides.get(a, true) == Side::Wall {
                d = d.min(ext[a] - wall - p[a]);
            }
        }
        d
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

    /// Whether every face of cell `(i, j, k)` is closed: no liquid can enter it.
    pub fn is_closed_cell(&self, i: usize, j: usize, k: usize) -> bool {
        let f = &self.face_open;
        let z = !self.spec.is_2d();
        f.u[(i, j, k)] == 0.0
            && f.u[(i + 1, j, k)] == 0.0
            && f.v[(i, j, k)] == 0.0
            && f.v[(i, j + 1, k)] == 0.0
            && (!z || (f.w[(i, j, k)] == 0.0 && f.w[(i, j, k + 1)] == 0.0))
    }

    /// Whether cell `(i, j, k)` is solid (its centre is inside a solid).
    #[inline]
    pub fn is_solid_cell(&self, i: usize, j: usize, k: usize) -> bool {
        self.phi[(i, j, k)] < 0.0
    }
}

#[cfg(test)]
mod carve_tests {
    use super::*;

    #[test]
    fn a_subtracted_box_cuts_a_hole_in_a_hollow_sphere() {
        let spec = GridSpec::new(32, 32, 32, 1.0 / 32.0);
        let shell = Shape {
            kind: ShapeKind::Sphere {
                center: Vec3::splat(0.5),
                radius: 0.25,
            },
            inverted: false,
            shell: 0.06,
            subtract: false,
            placement: None,
        };
        let hole = Shape {
            kind: ShapeKind::Box {
                min: Vec3::new(0.45, 0.6, 0.45),
                max: Vec3::new(0.55, 0.9, 0.55),
            },
            inverted: false,
            shell: 0.0,
            subtract: true,
            placement: None,
        };
        let solids = Solids::new(spec, vec![shell.clone(), hole]);
        let on_top = Vec3::new(0.5, 0.75, 0.5); // on the shell, inside the hole
        let on_side = Vec3::new(0.75, 0.5, 0.5); // on the shell, away from the hole
        assert!(solids.distance(on_top) > 0.0, "the hole is open");
        assert!(
            solids.distance(on_side) < 0.0,
            "the rest of the shell is solid"
        );
        assert!(
            solids.distance(Vec3::splat(0.5)) > 0.0,
            "the shell is hollow"
        );
        assert!(
            Solids::new(spec, vec![shell]).distance(on_top) < 0.0,
            "without the hole it is closed"
        );
    }
}
