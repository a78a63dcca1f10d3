//! The bodies' step in space (3D grids): rapier3d-f64, six degrees of freedom a body.

use super::{allowed_overlap, obstacles, wall_slabs, ContactParams, Obstacle};
use crate::rigid::body::{BodyShape, BodyState, RigidBody};
use crate::solids::Solids;
use glam::{DQuat, DVec3};
use rapier3d_f64::math::{Pose, Rotation};
use rapier3d_f64::prelude::{
    ColliderBuilder, MassProperties, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, Vector,
};

/// Our vector in rapier's (rapier's glam is another version than flipgraph's).
fn vector(v: DVec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

fn rotation(q: DQuat) -> Rotation {
    Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

fn pose(centre: DVec3, q: DQuat) -> Pose {
    Pose::from_parts(vector(centre), rotation(q))
}

pub(super) fn advance(
    bodies: &[RigidBody],
    start: &[BodyState],
    scene: &Solids,
    params: &ContactParams,
    dt: f64,
) -> Vec<BodyState> {
    let mut world = PhysicsWorld::new();
    world.gravity = vector(DVec3::from_array(params.gravity));
    world.integration_parameters.dt = dt;
    world.integration_parameters.normalized_allowed_linear_error = allowed_overlap(scene);
    let surface = |c: ColliderBuilder| c.friction(params.friction).restitution(params.restitution);
    for slab in wall_slabs(scene) {
        let c = ColliderBuilder::cuboid(slab.half.x, slab.half.y, slab.half.z)
            .translation(vector(slab.centre));
        world.insert_collider(surface(c), None);
    }
    for obstacle in obstacles(scene) {
        let c = match obstacle {
            Obstacle::Box {
                centre,
                rotation,
                half,
            } => ColliderBuilder::cuboid(half.x, half.y, half.z).position(pose(centre, rotation)),
            Obstacle::Ball { centre, radius } => {
                ColliderBuilder::ball(radius).translation(vector(centre))
            }
        };
        world.insert_collider(surface(c), None);
    }
    let handles: Vec<RigidBodyHandle> = bodies
        .iter()
        .zip(start)
        .map(|(b, s)| {
            let body = RigidBodyBuilder::dynamic()
                .pose(pose(DVec3::from_array(s.position), s.rotation()))
                .linvel(vector(DVec3::from_array(s.velocity)))
                .angvel(vector(DVec3::from_array(s.spin)))
                .can_sleep(false)
                .additional_mass_properties(MassProperties::new(
                    Vector::ZERO,
                    b.mass(),
                    vector(DVec3::from_array(b.principal_inertia())),
                ));
            let collider = match b.shape {
                BodyShape::Box { size: [w, h, d] } => {
                    ColliderBuilder::cuboid(0.5 * w, 0.5 * h, 0.5 * d)
                }
                BodyShape::Disc { radius } | BodyShape::Sphere { radius } => {
                    ColliderBuilder::ball(radius)
                }
                // contacts see a mesh's convex hull (checked to exist when it was loaded)
                BodyShape::Mesh(ref mesh) => {
                    let points: Vec<Vector> = (mesh.vertices().iter())
                        .map(|&v| vector(DVec3::from_array(v)))
                        .collect();
                    ColliderBuilder::convex_hull(&points)
                        .unwrap_or_else(|| ColliderBuilder::ball(mesh.reach()))
                }
            };
            world.insert(body, surface(collider).density(0.0)).0
        })
        .collect();
    world.step();
    handles
        .iter()
        .map(|h| {
            let b = &world.bodies[*h];
            let (p, v, w) = (b.translation(), b.linvel(), b.angvel());
            let q = b.rotation();
            let mut state = BodyState {
                position: [p.x, p.y, p.z],
                velocity: [v.x, v.y, v.z],
                spin: [w.x, w.y, w.z],
                ..BodyState::default()
            };
            state.set_rotation(DQuat::from_xyzw(q.x, q.y, q.z, q.w).normalize());
            state
        })
        .collect()
}
