//! One substep of the bodies' own motion: gravity, and contact with the domain walls, the
//! static boxes and spheres of the scene and each other, integrated by rapier (f64):
//! `rapier2d-f64` on 2D grids ([`planar`]), `rapier3d-f64` on 3D grids ([`spatial`]).
//!
//! The rapier world is built afresh from the carried states every substep and dropped after
//! it, so the states are all there is to save: a resumed run steps exactly as the first did.
//! The liquid's push is not here but in the pressure solve ([`super::coupling`]), whose
//! velocity change the caller adds to the end states.

mod planar;
mod spatial;

use super::body::{BodyState, RigidBody};
use crate::solids::{Shape, ShapeKind, Solids};
use glam::{DQuat, DVec3};

/// Surface and gravity parameters of the bodies' contacts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactParams {
    /// Coulomb friction coefficient between bodies and with walls.
    pub friction: f64,
    /// Restitution (0: contacts do not bounce).
    pub restitution: f64,
    /// Gravity (m/s²; z is not used in 2D).
    pub gravity: [f64; 3],
}

/// The states of `bodies` after one step of `dt` from `start` (one state per body) under
/// gravity, with contacts against `scene`'s walls (the sides that are walls), its static
/// boxes and spheres (solid, not hollow, not inverted, not carved) and each other; in the
/// plane on 2D grids, in space on 3D ones.
pub fn advance(
    bodies: &[RigidBody],
    start: &[BodyState],
    scene: &Solids,
    params: &ContactParams,
    dt: f64,
) -> Vec<BodyState> {
    assert_eq!(bodies.len(), start.len(), "one state per body");
    if scene.spec.is_2d() {
        planar::advance(bodies, start, scene, params, dt)
    } else {
        spatial::advance(bodies, start, scene, params, dt)
    }
}

/// rapier lets bodies overlap by its allowed error (5 mm by default): a hundredth of a cell.
fn allowed_overlap(scene: &Solids) -> f64 {
    0.01 * f64::from(scene.spec.dx)
}

/// A slab behind one wall side of the domain: its centre and half extents (m). Its inner face
/// is the wall's (one cell in from the domain's side); it reaches far beyond the domain.
struct Slab {
    centre: DVec3,
    half: DVec3,
}

/// The slabs behind the sides of `scene`'s domain that are walls.
fn wall_slabs(scene: &Solids) -> Vec<Slab> {
    let spec = scene.spec;
    let dimension = spec.dimension();
    let extent = spec.extent().as_dvec3();
    let dx = f64::from(spec.dx);
    let t = extent.max_element();
    let mut out = Vec::new();
    for axis in 0..dimension {
        for hi in [false, true] {
            if scene.sides.get(axis, hi) != crate::solids::Side::Wall {
                continue;
            }
            let inner = if hi { extent[axis] - dx } else { dx };
            let mut centre = 0.5 * extent;
            centre[axis] = if hi { inner + t } else { inner - t };
            let mut half = DVec3::splat(2.0 * t);
            half[axis] = t;
            out.push(Slab { centre, half });
        }
    }
    out
}

/// A static box or ball of the scene where it stands (domain coordinates less the origin).
enum Obstacle {
    Box {
        centre: DVec3,
        rotation: DQuat,
        half: DVec3,
    },
    Ball {
        centre: DVec3,
        radius: f64,
    },
}

/// The scene's solid boxes and spheres (not inverted, carved or hollow) where they stand.
fn obstacles(scene: &Solids) -> Vec<Obstacle> {
    let solid = |s: &&Shape| !s.inverted && !s.subtract && s.shell <= 0.0;
    let origin = scene.origin.as_dvec3();
    scene
        .shapes
        .iter()
        .filter(solid)
        .filter_map(|s| {
            let (centre, half) = match &s.kind {
                ShapeKind::Box { min, max } => (0.5 * (*min + *max), Some(0.5 * (*max - *min))),
                ShapeKind::Sphere { center, .. } => (*center, None),
                _ => return None,
            };
            let (at, rotation) = match s.placement {
                Some(pl) => (
                    pl.position + pl.rotation * (centre - pl.pivot),
                    pl.rotation.as_dquat(),
                ),
                None => (centre, DQuat::IDENTITY),
            };
            let centre = at.as_dvec3() - origin;
            Some(match (&s.kind, half) {
                (_, Some(half)) => Obstacle::Box {
                    centre,
                    rotation,
                    half: half.as_dvec3(),
                },
                (ShapeKind::Sphere { radius, .. }, None) => Obstacle::Ball {
                    centre,
                    radius: f64::from(*radius),
                },
                _ => return None,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "contact_tests.rs"]
mod tests;
