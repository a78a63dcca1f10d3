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
            let d = s.distance(p, &self.spec).abs();
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
