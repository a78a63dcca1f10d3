//! A rigid body: its shape, its density, the mass and inertia that follow from them, and its
//! state (position, orientation, velocity and angular velocity). One type serves 2D and 3D: a
//! 2D body lies in the plane z = 0, one metre deep (its mass and inertia are per metre of
//! depth), turns about z only and moves in x and y; its generalised velocity is the three of
//! the six 3D degrees of freedom ([`dofs`]).

use super::mesh_body::BodyMesh;
use crate::solids::{Placement, Shape, ShapeKind};
use glam::{DMat3, DQuat, DVec3, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A body's generalised velocity `(vx, vy, vz, ωx, ωy, ωz)` (m/s, rad/s, world axes).
pub type Twist = [f64; 6];

/// The degrees of freedom a body has in a grid of `dimension` 2 or 3, as indices into a
/// [`Twist`]: `vx, vy, ωz` in 2D, all six in 3D.
pub fn dofs(dimension: usize) -> &'static [usize] {
    if dimension == 2 {
        &[0, 1, 5]
    } else {
        &[0, 1, 2, 3, 4, 5]
    }
}

/// The shape of a body, centred on its position in its own frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BodyShape {
    /// A box of these side lengths along its own x, y and z (m); a 2D box is one metre deep.
    Box {
        /// Side lengths (m).
        size: [f64; 3],
    },
    /// A disc (2D): a cylinder along z, one metre deep.
    Disc {
        /// Radius (m).
        radius: f64,
    },
    /// A ball (3D).
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// A closed triangle mesh (3D), centred on its centre of mass along its principal axes.
    Mesh(BodyMesh),
}

impl BodyShape {
    /// Volume (m³; a 2D shape's is its area times one metre of depth).
    pub fn volume(&self) -> f64 {
        use std::f64::consts::PI;
        match *self {
            Self::Box { size } => size[0] * size[1] * size[2],
            Self::Disc { radius } => PI * radius * radius,
            Self::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
            Self::Mesh(ref mesh) => mesh.volume(),
        }
    }

    /// The principal second moments of the volume about the centre along the shape's own axes
    /// (the inertia tensor over the density, m⁵): `V (h² + d², w² + d², w² + h²) / 12` for a
    /// box, `V r² / 2` about z for a disc (its other two are not used), `2 V r² / 5` for a ball.
    pub fn principal_moments(&self) -> [f64; 3] {
        let v = self.volume();
        match *self {
            Self::Box { size: [w, h, d] } => {
                let (w, h, d) = (w * w, h * h, d * d);
                [v * (h + d) / 12.0, v * (w + d) / 12.0, v * (w + h) / 12.0]
            }
            Self::Disc { radius } => {
                let r2 = radius * radius;
                [
                    v * (3.0 * r2 + 1.0) / 12.0,
                    v * (3.0 * r2 + 1.0) / 12.0,
                    0.5 * v * r2,
                ]
            }
            Self::Sphere { radius } => [0.4 * v * radius * radius; 3],
            Self::Mesh(ref mesh) => mesh.moments(),
        }
    }

    /// Largest distance from the centre to a point of the shape in the plane of motion (2D:
    /// x and y; 3D: all three) (m).
    pub fn reach(&self, dimension: usize) -> f64 {
        match *self {
            Self::Box { size: [w, h, d] } => {
                let d = if dimension == 2 { 0.0 } else { d };
                0.5 * (w * w + h * h + d * d).sqrt()
            }
            Self::Disc { radius } | Self::Sphere { radius } => radius,
            Self::Mesh(ref mesh) => mesh.reach(),
        }
    }

    /// Whether every dimension is finite and positive.
    pub fn is_valid(&self) -> bool {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        match *self {
            Self::Box { size } => size.iter().all(|&s| ok(s)),
            Self::Disc { radius } | Self::Sphere { radius } => ok(radius),
            Self::Mesh(ref mesh) => ok(mesh.volume()),
        }
    }

    /// Signed distance of `local` (in the shape's own frame, centred) to the shape (negative
    /// inside); a disc ignores z.
    pub fn distance(&self, local: DVec3) -> f64 {
        match *self {
            Self::Box { size } => {
                let q = local.abs() - 0.5 * DVec3::from_array(size);
                q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
            }
            Self::Disc { radius } => local.x.hypot(local.y) - radius,
            Self::Sphere { radius } => local.length() - radius,
            Self::Mesh(ref mesh) => mesh.distance(local),
        }
    }
}

/// Where a body is and how fast it moves.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Centre (m; z = 0 in 2D).
    pub position: [f64; 3],
    /// Rotation from the body's own frame to the world, a unit quaternion `[w, x, y, z]`
    /// (2D: about z).
    pub orientation: [f64; 4],
    /// Velocity of the centre (m/s).
    pub velocity: [f64; 3],
    /// Angular velocity about the centre, world axes (rad/s; 2D: about z only).
    pub spin: [f64; 3],
}

impl Default for BodyState {
    fn default() -> Self {
        Self {
            position: [0.0; 3],
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.0; 3],
            spin: [0.0; 3],
        }
    }
}

impl BodyState {
    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        let s = self;
        (s.position.iter().chain(&s.orientation))
            .chain(s.velocity.iter().chain(&s.spin))
            .all(|x| x.is_finite())
    }

    /// The orientation as a rotation.
    pub fn rotation(&self) -> DQuat {
        let [w, x, y, z] = self.orientation;
        DQuat::from_xyzw(x, y, z, w)
    }

    /// Sets the orientation from a rotation.
    pub fn set_rotation(&mut self, q: DQuat) {
        self.orientation = [q.w, q.x, q.y, q.z];
    }

    /// The rotation about z (rad, in (−π, π]): a 2D body's angle.
    pub fn angle_z(&self) -> f64 {
        let [w, _, _, z] = self.orientation;
        2.0 * z.atan2(w)
    }

    /// The generalised velocity `(v, ω)`.
    pub fn twist(&self) -> Twist {
        let (v, w) = (self.velocity, self.spin);
        [v[0], v[1], v[2], w[0], w[1], w[2]]
    }

    /// Sets the generalised velocity `(v, ω)`.
    pub fn set_twist(&mut self, t: &Twist) {
        self.velocity = [t[0], t[1], t[2]];
        self.spin = [t[3], t[4], t[5]];
    }

    /// The velocity of the body's point at `r` from its centre: `v + ω × r`.
    pub fn point_velocity(&self, r: DVec3) -> DVec3 {
        DVec3::from_array(self.velocity) + DVec3::from_array(self.spin).cross(r)
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
    /// Mass (kg; 2D: per metre of depth).
    pub fn mass(&self) -> f64 {
        self.density * self.shape.volume()
    }

    /// The principal moments of inertia about the centre along the body's own axes (kg·m²;
    /// 2D: per metre of depth, and only z's is used).
    pub fn principal_inertia(&self) -> [f64; 3] {
        self.shape.principal_moments().map(|m| self.density * m)
    }

    /// The inertia tensor about the centre in world axes where `state` turns it: `R I Rᵀ`.
    pub fn inertia(&self, state: &BodyState) -> DMat3 {
        let r = DMat3::from_quat(state.rotation());
        r * DMat3::from_diagonal(DVec3::from_array(self.principal_inertia())) * r.transpose()
    }

    /// The body as a solid shape where `state` puts it, moving with it.
    pub fn solid(&self, state: &BodyState) -> Shape {
        let kind = match self.shape {
            BodyShape::Box { size } => {
                let half = 0.5 * DVec3::from_array(size).as_vec3();
                ShapeKind::Box {
                    min: -half,
                    max: half,
                }
            }
            BodyShape::Disc { radius } | BodyShape::Sphere { radius } => ShapeKind::Sphere {
                center: Vec3::ZERO,
                radius: radius as f32,
            },
            BodyShape::Mesh(ref mesh) => ShapeKind::Mesh(mesh.solid()),
        };
        let q = state.rotation();
        Shape {
            kind,
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: Some(Placement {
                pivot: Vec3::ZERO,
                position: DVec3::from_array(state.position).as_vec3(),
                rotation: Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32),
                velocity: DVec3::from_array(state.velocity).as_vec3(),
                spin: DVec3::from_array(state.spin).as_vec3(),
            }),
        }
    }

    /// Signed distance of `p` to the body placed by `state` (negative inside).
    pub fn distance(&self, state: &BodyState, p: [f64; 3]) -> f64 {
        let local =
            state.rotation().inverse() * (DVec3::from_array(p) - DVec3::from_array(state.position));
        self.shape.distance(local)
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
    /// Each body's velocity where the previous pressure solve left it: the liquid beside it
    /// carries that solve's extrapolated flux (see
    /// [`super::Coupling::add_extrapolated_flux`]). Zero (or empty) before the first solve.
    #[serde(default)]
    pub solved: Vec<Twist>,
    /// Each body's contact rows against the static solids where the liquid sees it (see
    /// [`super::resting`]): found again every substep, so not saved.
    #[serde(skip)]
    pub contacts: Vec<Vec<Twist>>,
    /// Whether each body rested on a static solid in the previous pressure solve (pinned
    /// along its contacts there): the next solve starts from that guess of the active set.
    #[serde(default)]
    pub resting: Vec<bool>,
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
                    DVec3::from_array(s.velocity).length()
                        + DVec3::from_array(s.spin).length() * b.shape.reach(3)
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

    /// Adds the pressure's velocity change `dv` (one twist per body) to the end states'
    /// velocities. The poses stay: the next substep moves the bodies at these velocities
    /// under its contacts, so the pressure never pushes a body into a wall or another body.
    pub fn add_impulse(&mut self, dv: &[Twist]) {
        assert_eq!(dv.len(), self.end.len(), "one velocity change per body");
        for (e, d) in self.end.iter_mut().zip(dv) {
            let t = e.twist();
            e.set_twist(&std::array::from_fn(|i| t[i] + d[i]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(shape: BodyShape) -> RigidBody {
        RigidBody {
            shape,
            density: 500.0,
            state: BodyState::default(),
        }
    }

    #[test]
    fn mass_and_inertia_follow_from_the_shape() {
        // 2D: per metre of depth
        let b = body(BodyShape::Box {
            size: [0.2, 0.1, 1.0],
        });
        assert!((b.mass() - 10.0).abs() < 1e-12);
        let izz = b.principal_inertia()[2];
        assert!((izz - 500.0 * 0.05 * 0.02 / 12.0).abs() < 1e-12);
        let d = body(BodyShape::Disc { radius: 0.1 });
        assert!((d.principal_inertia()[2] - 0.5 * d.mass() * 0.01).abs() < 1e-12);
        // 3D: a box of three side lengths and a ball
        let b = body(BodyShape::Box {
            size: [0.2, 0.1, 0.3],
        });
        let m = b.mass();
        assert!((m - 3.0).abs() < 1e-12);
        let i = b.principal_inertia();
        let want = [0.01 + 0.09, 0.04 + 0.09, 0.04 + 0.01].map(|s| m * s / 12.0);
        for k in 0..3 {
            assert!((i[k] - want[k]).abs() < 1e-12, "{i:?} {want:?}");
        }
        let s = body(BodyShape::Sphere { radius: 0.1 });
        let m = s.mass();
        assert!((m - 500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-3).abs() < 1e-12);
        assert!((s.principal_inertia()[1] - 0.4 * m * 0.01).abs() < 1e-12);
    }

    #[test]
    fn the_inertia_tensor_turns_with_the_body() {
        let b = body(BodyShape::Box {
            size: [0.4, 0.1, 0.2],
        });
        let mut s = BodyState::default();
        // a quarter turn about z swaps the x and y moments
        s.set_rotation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
        let (i, p) = (b.inertia(&s), b.principal_inertia());
        assert!((i.x_axis.x - p[1]).abs() < 1e-12 && (i.y_axis.y - p[0]).abs() < 1e-12);
        assert!((i.z_axis.z - p[2]).abs() < 1e-12 && i.x_axis.y.abs() < 1e-12);
    }

    #[test]
    fn the_distance_turns_with_the_body_and_matches_its_solid() {
        // 2D: a box turned upright
        let b = body(BodyShape::Box {
            size: [0.4, 0.1, 1.0],
        });
        let mut state = BodyState {
            position: [0.5, 0.5, 0.0],
            ..BodyState::default()
        };
        state.set_rotation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
        assert!(b.distance(&state, [0.5, 0.65, 0.0]) < 0.0);
        assert!(b.distance(&state, [0.65, 0.5, 0.0]) > 0.0);
        let spec = crate::GridSpec::new(16, 16, 1, 1.0 / 16.0);
        let solid = b.solid(&state);
        for p in [[0.5, 0.65], [0.65, 0.5], [0.52, 0.3]] {
            let q = Vec3::new(p[0] as f32, p[1] as f32, 0.5 / 16.0);
            let d = f64::from(solid.distance(q, &spec));
            assert!(
                (d - b.distance(&state, [p[0], p[1], 0.0])).abs() < 1e-5,
                "{p:?}"
            );
        }
        // 3D: a box tipped about x, so its depth now stands along y
        let b = body(BodyShape::Box {
            size: [0.1, 0.1, 0.4],
        });
        let mut state = BodyState {
            position: [0.5, 0.5, 0.5],
            ..BodyState::default()
        };
        state.set_rotation(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
        assert!(b.distance(&state, [0.5, 0.65, 0.5]) < 0.0);
        assert!(b.distance(&state, [0.5, 0.5, 0.65]) > 0.0);
        let spec = crate::GridSpec::new(16, 16, 16, 1.0 / 16.0);
        let solid = b.solid(&state);
        for p in [[0.5, 0.65, 0.5], [0.5, 0.5, 0.65], [0.52, 0.3, 0.45]] {
            let q = Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
            let d = f64::from(solid.distance(q, &spec));
            assert!((d - b.distance(&state, p)).abs() < 1e-5, "{p:?}");
        }
    }
}
