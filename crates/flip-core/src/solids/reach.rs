//! Where a shape can matter. A ball that holds a shape bounds its signed distance from below,
//! so a union of shapes can skip every shape whose ball is no nearer than the nearest solid
//! found so far: the minimum, and so the distance, is exactly the same.

use super::{Shape, ShapeKind};
use glam::Vec3;

/// A ball (domain coordinates) that holds one shape where it is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reach {
    centre: Vec3,
    /// The ball's radius, widened by more than the f32 rounding of the shape's distance.
    radius: f32,
}

/// Relative and absolute widening of a ball (m): far above the rounding of a shape's distance
/// in f32, far below a cell.
const SLACK: f32 = 1e-5;

impl Reach {
    /// The ball of a box, a sphere or a mesh that is a plain member of the union (not
    /// inverted, hollow or carving); `None` for a mask, which is always evaluated. A mesh's
    /// ball holds its bounds: outside it the distance to the nearest triangle is no less, and
    /// a cached distance, a trilinear mean of such distances, is no less either (the bound is
    /// convex). In 2D a shape is extruded along its own z, so only a shape turned about z
    /// alone has a ball in the plane.
    fn of(shape: &Shape, is_2d: bool) -> Option<Self> {
        if shape.inverted || shape.shell > 0.0 || shape.subtract {
            return None;
        }
        let tilted = shape
            .placement
            .is_some_and(|pl| pl.rotation.x != 0.0 || pl.rotation.y != 0.0);
        if is_2d && tilted {
            return None;
        }
        let (centre, radius) = match &shape.kind {
            ShapeKind::Box { min, max } => ((*min + *max) * 0.5, (*max - *min).length() * 0.5),
            ShapeKind::Sphere { center, radius } => (*center, *radius),
            ShapeKind::Mesh(mesh) => {
                let (lo, hi) = mesh.0.bounds();
                ((lo + hi) * 0.5, (hi - lo).length() * 0.5)
            }
            ShapeKind::Mask { .. } => return None,
        };
        let centre = shape.placement.map_or(centre, |pl| pl.to_world(centre));
        let radius = radius * (1.0 + SLACK) + SLACK * (1.0 + centre.length());
        Some(Self { centre, radius })
    }

    /// A lower bound of the shape's distance at domain point `p` (2D: in the plane, as the
    /// shapes measure it).
    #[inline]
    fn below(&self, p: Vec3, is_2d: bool) -> f32 {
        let mut d = p - self.centre;
        if is_2d {
            d.z = 0.0;
        }
        d.length() - self.radius
    }
}

/// Each shape's ball when the shapes form a plain union (none carves), so that their
/// distance is the minimum of theirs in any order; `None` otherwise.
pub(crate) fn reaches(shapes: &[Shape], is_2d: bool) -> Option<Vec<Option<Reach>>> {
    let ball = |s: &Shape| Reach::of(s, is_2d);
    (!shapes.iter().any(|s| s.subtract)).then(|| shapes.iter().map(ball).collect())
}

/// The union of `shapes` with `so_far` at domain point `p` (`is_2d` as the shapes measure):
/// the shape with the nearest ball first, then every shape whose ball is nearer than the
/// nearest solid found; `reach` from [`reaches`].
pub(crate) fn nearest_union(
    shapes: &[Shape],
    reach: &[Option<Reach>],
    so_far: f32,
    p: Vec3,
    distance: impl Fn(&Shape) -> f32,
    is_2d: bool,
) -> f32 {
    let bound = |r: &Option<Reach>| r.map_or(f32::MIN, |r| r.below(p, is_2d));
    let first = (reach.iter().enumerate())
        .filter(|(_, r)| r.is_some())
        .map(|(i, r)| (i, bound(r)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let mut d = so_far;
    if let Some((i, b)) = first {
        if b < d {
            d = d.min(distance(&shapes[i]));
        }
    }
    for (i, (shape, r)) in shapes.iter().zip(reach).enumerate() {
        if first.is_some_and(|f| f.0 == i) || bound(r) >= d {
            continue;
        }
        d = d.min(distance(shape));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridSpec;
    use crate::solids::{MeshSdf, MeshShape, Placement, Solids};
    use crate::surface::TriMesh;
    use glam::Quat;
    use std::sync::Arc;

    fn ball(center: Vec3, radius: f32) -> Shape {
        Shape {
            kind: ShapeKind::Sphere { center, radius },
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: None,
        }
    }

    /// A lopsided closed wedge (a hull-like prism with a slanted end) around `c`, its
    /// distances cached on `spec`'s cells as an imported mesh's are.
    fn wedge(c: Vec3, spec: &GridSpec) -> ShapeKind {
        let v = |x: f32, y: f32, z: f32| c + Vec3::new(x, y, z);
        let positions = vec![
            v(-0.09, 0.02, -0.04),
            v(0.07, 0.02, -0.04),
            v(-0.01, -0.05, -0.04),
            v(-0.09, 0.03, 0.05),
            v(0.11, 0.03, 0.05),
            v(-0.01, -0.05, 0.03),
        ];
        let triangles = vec![
            [0, 1, 2],
            [3, 5, 4],
            [0, 3, 4],
            [0, 4, 1],
            [1, 4, 5],
            [1, 5, 2],
            [2, 5, 3],
            [2, 3, 0],
        ];
        let mesh = TriMesh {
            positions,
            normals: Vec::new(),
            triangles,
        };
        crate::surface::check_closed_manifold(&mesh).expect("a closed wedge");
        let sdf = MeshSdf::cached(&mesh, (Vec3::ZERO, spec.extent()), spec.dx, spec.is_2d());
        ShapeKind::Mesh(MeshShape(Arc::new(sdf)))
    }

    /// Many moving boxes, balls and meshes, a container and a hollow shell: the skipping
    /// union gives every cell's distance bit for bit as the plain one does.
    #[test]
    fn skipping_far_shapes_changes_no_distance() {
        for spec in [
            GridSpec::new(24, 20, 16, 0.05),
            GridSpec::new(40, 30, 1, 0.025),
        ] {
            let mut shapes: Vec<Shape> = (0..12)
                .map(|n| {
                    let f = n as f32;
                    let c = Vec3::new(0.1 + 0.07 * f, 0.2 + 0.03 * (f * 1.7).sin(), 0.3);
                    let mut s = if n % 4 == 1 {
                        Shape {
                            kind: wedge(c, &spec),
                            ..ball(c, 0.0)
                        }
                    } else if n % 2 == 0 {
                        ball(c, 0.04 + 0.005 * f)
                    } else {
                        Shape {
                            kind: ShapeKind::Box {
                                min: c - Vec3::new(0.05, 0.02, 0.03),
                                max: c + Vec3::new(0.04, 0.03, 0.05),
                            },
                            ..ball(c, 0.0)
                        }
                    };
                    // a tilted shape in 2D has no ball: every other one is turned about z only
                    let tilt = if spec.is_2d() && n % 3 != 0 {
                        0.0
                    } else {
                        0.3 * f
                    };
                    s.placement = Some(Placement {
                        pivot: c,
                        position: c + Vec3::new(0.01, -0.02, 0.015) * f,
                        rotation: Quat::from_euler(glam::EulerRot::XYZ, tilt, -tilt, 0.1 * f),
                        velocity: Vec3::X,
                        spin: Vec3::Z,
                    });
                    s
                })
                .collect();
            shapes.push(Shape {
                inverted: true,
                ..ball(Vec3::new(0.6, 0.5, 0.4), 0.7)
            });
            shapes.push(Shape {
                shell: 0.02,
                ..ball(Vec3::new(0.3, 0.6, 0.4), 0.1)
            });
            let solids = Solids::new(spec, shapes.clone());
            let balls = solids.reach.as_ref().expect("a plain union skips");
            let meshes_with_balls = (shapes.iter().zip(balls))
                .filter(|(s, r)| matches!(s.kind, ShapeKind::Mesh(_)) && r.is_some())
                .count();
            assert!(
                meshes_with_balls >= 2,
                "{meshes_with_balls} meshes have balls"
            );
            let plain = |p: Vec3| {
                let d = solids.wall_distance(p);
                (shapes.iter()).fold(d, |d, s| s.combine(d, s.distance(p, &spec)))
            };
            for (c, &d) in solids.phi.data.iter().enumerate() {
                let (i, j, k) = (
                    c % spec.ni,
                    (c / spec.ni) % spec.nj,
                    c / (spec.ni * spec.nj),
                );
                let p = spec.cell_center(i, j, k);
                assert_eq!(d.to_bits(), plain(p).to_bits(), "cell ({i}, {j}, {k})");
                let q = p + Vec3::new(0.013, -0.007, 0.004);
                assert_eq!(solids.distance(q).to_bits(), plain(q).to_bits());
            }
        }
    }

    #[test]
    fn a_carving_shape_turns_skipping_off() {
        let carve = Shape {
            subtract: true,
            ..ball(Vec3::splat(0.5), 0.1)
        };
        assert!(reaches(&[ball(Vec3::ZERO, 0.1), carve], false).is_none());
    }
}
