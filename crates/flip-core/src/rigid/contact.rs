//! One substep of the bodies' own motion: gravity, and contact with the domain walls, the
//! static boxes and spheres of the scene and each other, integrated by rapier (2D, f64).
//!
//! The rapier world is built afresh from the carried states every substep and dropped after
//! it, so the states are all there is to save: a resumed run steps exactly as the first did.
//! The liquid's push is not here but in the pressure solve ([`super::coupling`]), whose
//! velocity change the caller adds to the end states.

use super::body::{BodyShape, BodyState, RigidBody};
use crate::solids::{ShapeKind, Side, Solids};
use rapier2d_f64::prelude::{
    ColliderBuilder, MassProperties, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, Vector,
};

/// Surface and gravity parameters of the bodies' contacts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactParams {
    /// Coulomb friction coefficient between bodies and with walls.
    pub friction: f64,
    /// Restitution (0: contacts do not bounce).
    pub restitution: f64,
    /// Gravity (m/s²).
    pub gravity: [f64; 2],
}

/// The states of `bodies` after one step of `dt` from `start` (one state per body) under
/// gravity, with contacts against `scene`'s walls (the sides that are walls), its static
/// boxes and spheres (solid, not hollow, not inverted, not carved) and each other.
pub fn advance(
    bodies: &[RigidBody],
    start: &[BodyState],
    scene: &Solids,
    params: &ContactParams,
    dt: f64,
) -> Vec<BodyState> {
    assert_eq!(bodies.len(), start.len(), "one state per body");
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(params.gravity[0], params.gravity[1]);
    world.integration_parameters.dt = dt;
    // rapier lets bodies overlap by its allowed error (5 mm by default): a hundredth of a cell
    world.integration_parameters.normalized_allowed_linear_error = 0.01 * f64::from(scene.spec.dx);
    let surface = |c: ColliderBuilder| c.friction(params.friction).restitution(params.restitution);
    for wall in walls(scene) {
        world.insert_collider(surface(wall), None);
    }
    for obstacle in obstacles(scene) {
        world.insert_collider(surface(obstacle), None);
    }
    let handles: Vec<RigidBodyHandle> = bodies
        .iter()
        .zip(start)
        .map(|(b, s)| {
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(s.position[0], s.position[1]))
                .rotation(s.angle)
                .linvel(Vector::new(s.velocity[0], s.velocity[1]))
                .angvel(s.spin)
                .can_sleep(false)
                .additional_mass_properties(MassProperties::new(
                    Vector::ZERO,
                    b.mass(),
                    b.inertia(),
                ));
            let collider = match b.shape {
                BodyShape::Box { size } => ColliderBuilder::cuboid(0.5 * size[0], 0.5 * size[1]),
                BodyShape::Disc { radius } => ColliderBuilder::ball(radius),
            };
            world.insert(body, surface(collider).density(0.0)).0
        })
        .collect();
    world.step();
    handles
        .iter()
        .zip(start)
        .map(|(h, s)| {
            let b = &world.bodies[*h];
            let (p, v) = (b.translation(), b.linvel());
            // the angle keeps counting turns: rapier's is wrapped to (−π, π]
            let turned = b.rotation().angle() - s.angle;
            let turned = turned - std::f64::consts::TAU * (turned / std::f64::consts::TAU).round();
            BodyState {
                position: [p.x, p.y],
                angle: s.angle + turned,
                velocity: [v.x, v.y],
                spin: b.angvel(),
            }
        })
        .collect()
}

/// Thick slabs whose inner faces are the domain walls' (one cell in from each wall side).
fn walls(scene: &Solids) -> Vec<ColliderBuilder> {
    let spec = scene.spec;
    let ext = spec.extent();
    let (w, h) = (f64::from(ext.x), f64::from(ext.y));
    let (dx, t) = (f64::from(spec.dx), w.max(h));
    let mut out = Vec::new();
    for axis in 0..2 {
        for hi in [false, true] {
            if scene.sides.get(axis, hi) != Side::Wall {
                continue;
            }
            let inner = if hi { [w, h][axis] - dx } else { dx };
            let centre = if hi { inner + t } else { inner - t };
            let (half, at) = if axis == 0 {
                ([t, 2.0 * t], [centre, 0.5 * h])
            } else {
                ([2.0 * t, t], [0.5 * w, centre])
            };
            out.push(
                ColliderBuilder::cuboid(half[0], half[1]).translation(Vector::new(at[0], at[1])),
            );
        }
    }
    out
}

/// The scene's solid boxes and spheres where they stand.
fn obstacles(scene: &Solids) -> Vec<ColliderBuilder> {
    let solid = |s: &&crate::Shape| !s.inverted && !s.subtract && s.shell <= 0.0;
    scene
        .shapes
        .iter()
        .filter(solid)
        .filter_map(|s| {
            let (centre, collider) = match &s.kind {
                ShapeKind::Box { min, max } => {
                    let half = 0.5 * (*max - *min);
                    let c = ColliderBuilder::cuboid(f64::from(half.x), f64::from(half.y));
                    (0.5 * (*min + *max), c)
                }
                ShapeKind::Sphere { center, radius } => {
                    (*center, ColliderBuilder::ball(f64::from(*radius)))
                }
                _ => return None,
            };
            let (at, angle) = match s.placement {
                Some(pl) => {
                    let at = pl.position + pl.rotation * (centre - pl.pivot);
                    let (axis, angle) = pl.rotation.to_axis_angle();
                    (at, axis.z.signum() * angle)
                }
                None => (centre, 0.0),
            };
            let at = Vector::new(f64::from(at.x) - f64::from(scene.origin.x), f64::from(at.y));
            Some(collider.translation(at).rotation(f64::from(angle)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GridSpec;

    fn ball(y: f64) -> (RigidBody, BodyState) {
        let state = BodyState {
            position: [0.5, y],
            ..BodyState::default()
        };
        let body = RigidBody {
            shape: BodyShape::Disc { radius: 0.1 },
            density: 1000.0,
            state,
        };
        (body, state)
    }

    fn run(bodies: &[RigidBody], mut states: Vec<BodyState>, steps: usize) -> Vec<BodyState> {
        let scene = Solids::walls(GridSpec::new(32, 32, 1, 1.0 / 32.0));
        let params = ContactParams {
            friction: 0.5,
            restitution: 0.0,
            gravity: [0.0, -9.81],
        };
        for _ in 0..steps {
            states = advance(bodies, &states, &scene, &params, 1e-3);
        }
        states
    }

    #[test]
    fn a_ball_falls_freely_then_rests_on_the_floor_wall() {
        let (b, s) = ball(0.6);
        let after = run(std::slice::from_ref(&b), vec![s], 100);
        // 0.1 s of free fall: v = g t, y = 0.6 − g t²/2 (symplectic Euler: within g dt t)
        assert!(
            (after[0].velocity[1] + 0.981).abs() < 1e-6,
            "{:?}",
            after[0]
        );
        assert!((after[0].position[1] - (0.6 - 0.5 * 9.81 * 0.01)).abs() < 1e-3);
        let rest = run(&[b], vec![s], 1500);
        let floor = 1.0 / 32.0 + 0.1;
        assert!(
            (rest[0].position[1] - floor).abs() < 0.1 / 32.0,
            "{:?}",
            rest[0]
        );
        assert!(rest[0].velocity[1].abs() < 1e-2);
    }

    #[test]
    fn a_ball_stacked_on_another_stays_above_it() {
        let (a, sa) = ball(0.2);
        let (b, sb) = ball(0.45);
        let after = run(&[a, b], vec![sa, sb], 1500);
        let gap = after[1].position[1] - after[0].position[1];
        assert!(
            gap > 0.2 - 0.1 / 32.0,
            "the upper ball sank into the lower one: {gap}"
        );
    }
}
