//! Velocity of moving solids on the MAC faces they cover: each partly or wholly closed face
//! takes the rigid-body velocity `v + ω × r` of the nearest shape (Batty et al. 2007: the
//! solid part of a face moves with the solid); the domain walls stand still.

use super::Solids;
use crate::grid::par_for_each_mut;
use crate::mac::MacGrid;
use glam::Vec3;

/// Face velocities of the moving shapes of `solids`, `None` when nothing moves.
pub(super) fn face_velocities(solids: &Solids) -> Option<MacGrid> {
    let moving = solids
        .shapes
        .iter()
        .any(|s| s.placement.is_some_and(|p| p.is_moving()));
    if !moving {
        return None;
    }
    let spec = solids.spec;
    let mut vel = MacGrid::zeros(&spec);
    let open = solids.face_open.axes();
    for (axis, g) in vel
        .axes_mut()
        .into_iter()
        .enumerate()
        .take(spec.dimension())
    {
        let closed = open[axis];
        let dims = g.dims();
        par_for_each_mut(dims, &mut g.data, |i, j, k, u| {
            if closed[(i, j, k)] < 1.0 {
                *u = solids.velocity_at(spec.face_center(axis, i, j, k))[axis];
            }
        });
    }
    Some(vel)
}

impl Solids {
    /// Velocity of the solid surface nearest to `p`: the rigid motion of the shape whose
    /// distance is smallest in magnitude; zero in the domain walls (so no flow crosses the
    /// domain's boundary) and for resting shapes.
    pub fn velocity_at(&self, p: Vec3) -> Vec3 {
        let wall = self.wall_distance(p);
        if wall <= 0.0 {
            return Vec3::ZERO;
        }
        let mut best = (wall, Vec3::ZERO);
        for s in &self.shapes {
            let p = p + self.origin;
            let d = s.distance(p, &self.domain).abs();
            if d < best.0 {
                let v = s.placement.map_or(Vec3::ZERO, |pl| pl.velocity_at(p));
                best = (d, v);
            }
        }
        if self.spec.is_2d() {
            best.1.z = 0.0;
        }
        best.1
    }
}

/// Sets the domain-boundary faces of every inflow side to the inflow velocity (into the
/// domain), where the cell inside is open and, on x and z sides, its centre lies below the
/// inflow height: the prescribed normal velocity the pressure solve keeps on those faces
/// (Batty et al. 2007 eq. 5 with `u_solid` the inflow).
pub(super) fn add_inflow(solids: &mut Solids) {
    use super::Side;
    let spec = solids.spec;
    let axes = spec.dimension();
    let inflows: Vec<_> = (0..2 * axes)
        .filter_map(|s| match solids.sides.0[s] {
            Side::Inflow(f) => Some((s / 2, s % 2 == 1, f)),
            _ => None,
        })
        .collect();
    if inflows.is_empty() {
        return;
    }
    let mut vel = solids
        .velocity
        .take()
        .unwrap_or_else(|| MacGrid::zeros(&spec));
    let dims = spec.dims();
    for (axis, hi, inflow) in inflows {
        let sign = if hi { -1.0 } else { 1.0 };
        let g = &mut vel.axes_mut()[axis];
        let phi = &solids.phi;
        par_for_each_mut(g.dims(), &mut g.data, |i, j, k, u| {
            let f = [i, j, k];
            let boundary = if hi { dims[axis] } else { 0 };
            if f[axis] != boundary {
                return;
            }
            let mut c = f;
            if hi {
                c[axis] -= 1;
            }
            let centre = spec.cell_center(c[0], c[1], c[2]);
            let below = axis == 1 || inflow.height <= 0.0 || centre.y < inflow.height;
            if below && phi[(c[0], c[1], c[2])] > 0.0 {
                *u = sign * inflow.speed;
            }
        });
    }
    solids.velocity = Some(vel);
}

#[cfg(test)]
mod tests {
    use crate::grid::GridSpec;
    use crate::solids::{Placement, Shape, ShapeKind, Solids};
    use glam::Vec3;

    #[test]
    fn faces_in_a_spinning_paddle_move_with_it_and_the_walls_stay() {
        let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
        let centre = Vec3::new(0.5, 0.5, 0.0);
        let paddle = Shape {
            kind: ShapeKind::Box {
                min: Vec3::new(0.3, 0.47, 0.0),
                max: Vec3::new(0.7, 0.53, 0.0),
            },
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: Some(Placement {
                spin: Vec3::new(0.0, 0.0, 2.0),
                ..Placement::fixed(centre)
            }),
        };
        let s = Solids::new(spec, vec![paddle.clone()]);
        let vel = s
            .velocity
            .as_ref()
            .expect("a moving solid has face velocities");
        // v face at x = 0.640625 (cell 20), y = 0.5: inside the paddle, v = ω r = 2 · 0.1406
        let (i, j) = (20, 16);
        assert_eq!(s.face_open.v[(i, j, 0)], 0.0, "closed");
        let r = spec.face_center(1, i, j, 0).x - 0.5;
        assert!(
            (vel.v[(i, j, 0)] - 2.0 * r).abs() < 1e-6,
            "{}",
            vel.v[(i, j, 0)]
        );
        // open faces far from the paddle and the domain boundary stand still
        assert_eq!(vel.v[(16, 28, 0)], 0.0);
        assert_eq!(vel.u[(0, 16, 0)], 0.0);
        let still = Solids::new(
            spec,
            vec![Shape {
                placement: None,
                ..paddle
            }],
        );
        assert!(still.velocity.is_none());
    }
}
