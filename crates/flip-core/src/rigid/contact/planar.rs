//! The bodies' step in the plane (2D grids): rapier2d-f64, bodies turning about z.

use super::{allowed_overlap, obstacles, wall_slabs, ContactParams, Obstacle};
use crate::rigid::body::{BodyShape, BodyState, RigidBody};
use crate::solids::Solids;
use glam::DQuat;
use rapier2d_f64::prelude::{
    ColliderBuilder, MassProperties, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, Vector,
};

pub(super) fn advance(
    bodies: &[RigidBody],
    start: &[BodyState],
    scene: &Solids,
    params: &ContactParams,
    dt: f64,
) -> Vec<BodyState> {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(params.gravity[0], params.gravity[1]);
    world.integration_parameters.dt = dt;
    world.integration_parameters.normalized_allowed_linear_error = allowed_overlap(scene);
    let surface = |c: ColliderBuilder| c.friction(params.friction).restitution(params.restitution);
    for slab in wall_slabs(scene) {
        let c = ColliderBuilder::cuboid(slab.half.x, slab.half.y)
            .translation(Vector::new(slab.centre.x, slab.centre.y));
        world.insert_collider(surface(c), None);
    }
    for obstacle in obstacles(scene) {
        let c = match obstacle {
            Obstacle::Box {
                centre,
                rotation,
                half,
            } => {
                // the angle about z of a rotation in the plane
                let angle = 2.0 * rotation.z.atan2(rotation.w);
                ColliderBuilder::cuboid(half.x, half.y)
                    .translation(Vector::new(centre.x, centre.y))
                    .rotation(angle)
            }
            Obstacle::Ball { centre, radius } => {
                ColliderBuilder::ball(radius).translation(Vector::new(centre.x, centre.y))
            }
        };
        world.insert_collider(surface(c), None);
    }
    let handles: Vec<RigidBodyHandle> = bodies
        .iter()
        .zip(start)
        .map(|(b, s)| {
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(s.position[0], s.position[1]))
                .rotation(s.angle_z())
                .linvel(Vector::new(s.velocity[0], s.velocity[1]))
                .angvel(s.spin[2])
                .can_sleep(false)
                .additional_mass_properties(MassProperties::new(
                    Vector::ZERO,
                    b.mass(),
                    b.principal_inertia()[2],
                ));
            let collider = match b.shape {
                BodyShape::Box { size } => ColliderBuilder::cuboid(0.5 * size[0], 0.5 * size[1]),
                BodyShape::Disc { radius } | BodyShape::Sphere { radius } => {
                    ColliderBuilder::ball(radius)
                }
                // a mesh seen along z (the bodies node takes meshes in 3D only)
                BodyShape::Mesh(ref mesh) => {
                    let points: Vec<Vector> = (mesh.vertices().iter())
                        .map(|v| Vector::new(v[0], v[1]))
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
            let (p, v) = (b.translation(), b.linvel());
            let mut state = BodyState {
                position: [p.x, p.y, 0.0],
                velocity: [v.x, v.y, 0.0],
                spin: [0.0, 0.0, b.angvel()],
                ..BodyState::default()
            };
            state.set_rotation(DQuat::from_rotation_z(b.rotation().angle()));
            state
        })
        .collect()
}
