//! A rigid body: its shape, its density, the mass and inertia that follow from them, and its
//! state (2D: position, angle, velocity and spin, per metre of depth).

use crate::solids::{Placement, Shape, ShapeKind};
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// The shape of a body, centred on its position at angle 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum BodyShape {
    /// A rectangle of these side lengths (m).
    Box {
        /// Width along x and height along y at angle 0 (m).
        size: [f64; 2],
    },
    /// A disc.
    Disc {
        /// Radius (m).
        radius: f64,
    },
}

impl BodyShape {
    /// Area (m², per metre of depth: volume in m³).
    pub fn area(&self) -> f64 {
        match *self {
            Self::Box { size } => size[0] * size[1],
            Self::Disc { radius } => std::f64::consts::PI * radius * radius,
        }
    }

    /// Polar second moment of area about the centre: `(w² + h²) w h / 12` for a rectangle,
    /// `π r⁴ / 2` for a disc (m⁴).
    pub fn polar_moment(&self) -> f64 {
        match *self {
            Self::Box { size: [w, h] } => (w * w + h * h) * w * h / 12.0,
            Self::Disc { radius } => 0.5 * std::f64::consts::PI * radius.powi(4),
        }
    }

    /// Largest distance from the centre to a point of the shape (m).
    pub fn reach(&self) -> f64 {
        match *self {
            Self::Box { size: [w, h] } => 0.5 * w.hypot(h),
            Self::Disc { radius } => radius,
        }
    }

    /// Whether every dimension is finite and positive.
    pub fn is_valid(&self) -> bool {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        match *self {
            Self::Box { size } => ok(size[0]) && ok(size[1]),
            Self::Disc { radius } => ok(radius),
        }
    }
}

/// Where a body is and how fast it moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Centre (m).
    pub position: [f64; 2],
    /// Rotation about z, counter-clockwise (rad).
    pub angle: f64,
    /// Velocity of the centre (m/s).
    pub velocity: [f64; 2],
    /// Angular velocity about z (rad/s).
    pub spin: f64,
}

impl BodyState {
    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        let s = self;
        [
            s.position[0],
            s.position[1],
            s.angle,
            s.velocity[0],
            s.velocity[1],
            s.spin,
        ]
        .iter()
        .all(|x| x.is_finite())
    }

    /// The velocity as the three degrees of freedom `(vx, vy, ω)`.
    pub fn dof(&self) -> [f64; 3] {
        [self.velocity[0], self.velocity[1], self.spin]
    }
}

/// One body: a shape of uniform density.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RigidBody {
    /// The shape.
    pub shape: BodyShape,
    /// Density (kg/m³).
    pub density: f64,
    /// Where the liquid sees it this substep, moving at the substep's velocity.
    pub state: BodyState,
}

impl RigidBody {
    /// Mass per metre of depth (kg/m).
    pub fn mass(&self) -> f64 {
        self.density * self.shape.area()
    }

    /// Moment of inertia about the centre per metre of depth (kg·m).
    pub fn inertia(&self) -> f64 {
        self.density * self.shape.polar_moment()
    }

    /// The body as a solid shape where `state` puts it, moving with it.
    pub fn solid(&self, state: &BodyState) -> Shape {
        let kind = match self.shape {
            BodyShape::Box { size } => {
                let half = Vec3::new(0.5 * size[0] as f32, 0.5 * size[1] as f32, 0.0);
                ShapeKind::Box {
                    min: -half,
                    max: half,
                }
            }
            BodyShape::Disc { radius } => ShapeKind::Sphere {
                center: Vec3::ZERO,
                radius: radius as f32,
            },
        };
        let [x, y] = state.position;
        let [vx, vy] = state.velocity;
        Shape {
            kind,
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: Some(Placement {
                pivot: Vec3::ZERO,
                position: Vec3::new(x as f32, y as f32, 0.0),
                rotation: Quat::from_rotation_z(state.angle as f32),
                velocity: Vec3::new(vx as f32, vy as f32, 0.0),
                spin: Vec3::new(0.0, 0.0, state.spin as f32),
            }),
        }
    }

    /// Signed distance of `p` to the body placed by `state` (negative inside).
    pub fn distance(&self, state: &BodyState, p: [f64; 2]) -> f64 {
        let (s, c) = (-state.angle).sin_cos();
        let d = [p[0] - state.position[0], p[1] - state.position[1]];
        let local = [c * d[0] - s * d[1], s * d[0] + c * d[1]];
        match self.shape {
            BodyShape::Box { size } => {
                let q = [
                    local[0].abs() - 0.5 * size[0],
                    local[1].abs() - 0.5 * size[1],
                ];
                q[0].max(0.0).hypot(q[1].max(0.0)) + q[0].max(q[1]).min(0.0)
            }
            BodyShape::Disc { radius } => local[0].hypot(local[1]) - radius,
        }
    }
}

/// The bodies of a scene, carried from substep to substep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bodies {
    /// Every body where the liquid sees it this substep (moved at the velocity the previous
    /// pressure solve left it), moving at the velocity gravity and the contacts give it.
    pub bodies: Vec<RigidBody>,
    /// Where each body heads by the end of the substep at that velocity (contacts resolved:
    /// the particles are kept out of it there); after the pressure solve its velocity holds
    /// the pressure's push too, which the next substep moves the body at from `bodies`'
    /// poses. Empty before the first substep has been advanced.
    pub end: Vec<BodyState>,
    /// Each body's velocity `(vx, vy, ω)` where the previous pressure solve left it: the
    /// liquid beside it carries that solve's extrapolated flux (see
    /// [`super::Coupling::add_extrapolated_flux`]). Zero (or empty) before the first solve.
    #[serde(default)]
    pub solved: Vec<[f64; 3]>,
}

impl Bodies {
    /// Whether every state is finite.
    pub fn is_finite(&self) -> bool {
        self.bodies.iter().all(|b| b.state.is_finite()) && self.end.iter().all(|s| s.is_finite())
    }

    /// The largest speed of any point of any body (m/s).
    pub fn max_speed(&self) -> f64 {
        self.bodies
            .iter()
            .zip(
                self.end
                    .iter()
                    .chain(std::iter::repeat(&BodyState::default())),
            )
            .map(|(b, e)| {
                let speed = |s: &BodyState| {
                    s.velocity[0].hypot(s.velocity[1]) + s.spin.abs() * b.shape.reach()
                };
                speed(&b.state).max(speed(e))
            })
            .fold(0.0, f64::max)
    }

    /// The states the next substep starts from: where the liquid last saw each body, moving
    /// at the velocity the pressure left it (the end states' velocity), so the next substep
    /// moves it with the pressure's push included (symplectic Euler); the bodies' own states
    /// before the first substep.
    pub fn next_states(&self) -> Vec<BodyState> {
        if self.end.len() == self.bodies.len() {
            (self.bodies.iter().zip(&self.end))
                .map(|(b, e)| BodyState {
                    velocity: e.velocity,
                    spin: e.spin,
                    ..b.state
                })
                .collect()
        } else {
            self.bodies.iter().map(|b| b.state).collect()
        }
    }

    /// Adds the pressure's velocity change `dv` (`(vx, vy, ω)` per body) to the end states'
    /// velocities. The poses stay: the next substep moves the bodies at these velocities
    /// under its contacts, so the pressure never pushes a body into a wall or another body.
    pub fn add_impulse(&mut self, dv: &[[f64; 3]]) {
        assert_eq!(dv.len(), self.end.len(), "one velocity change per body");
        for (e, d) in self.end.iter_mut().zip(dv) {
            e.velocity[0] += d[0];
            e.velocity[1] += d[1];
            e.spin += d[2];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mass_and_inertia_follow_from_the_shape() {
        let b = RigidBody {
            shape: BodyShape::Box { size: [0.2, 0.1] },
            density: 500.0,
            state: BodyState::default(),
        };
        assert!((b.mass() - 10.0).abs() < 1e-12);
        assert!((b.inertia() - 500.0 * 0.05 * 0.02 / 12.0).abs() < 1e-12);
        let d = RigidBody {
            shape: BodyShape::Disc { radius: 0.1 },
            ..b
        };
        let m = d.mass();
        assert!((d.inertia() - 0.5 * m * 0.01).abs() < 1e-12);
    }

    #[test]
    fn the_distance_turns_with_the_body_and_matches_its_solid() {
        let b = RigidBody {
            shape: BodyShape::Box { size: [0.4, 0.1] },
            density: 1.0,
            state: BodyState::default(),
        };
        let state = BodyState {
            position: [0.5, 0.5],
            angle: std::f64::consts::FRAC_PI_2,
            ..BodyState::default()
        };
        // turned upright: 0.15 m above the centre is inside, 0.15 m to the side outside
        assert!(b.distance(&state, [0.5, 0.65]) < 0.0);
        assert!(b.distance(&state, [0.65, 0.5]) > 0.0);
        let spec = crate::GridSpec::new(16, 16, 1, 1.0 / 16.0);
        let solid = b.solid(&state);
        for p in [[0.5, 0.65], [0.65, 0.5], [0.52, 0.3]] {
            let q = Vec3::new(p[0] as f32, p[1] as f32, 0.5 / 16.0);
            let d = f64::from(solid.distance(q, &spec));
            assert!((d - b.distance(&state, p)).abs() < 1e-5, "{p:?}");
        }
    }
}
