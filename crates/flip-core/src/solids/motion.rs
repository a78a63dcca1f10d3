//! Rigid placement of a solid and keyframed motion: positions interpolated linearly,
//! rotations by slerp, and the rigid-body velocity `v + ω × r` of every point of the solid.

use glam::{Quat, Vec3};

/// Where a shape is at one instant, and how fast it moves: the shape as described at rest is
/// rotated by `rotation` about `pivot` and the pivot moved to `position`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The point of the rest shape that the motion carries (box/sphere centre, mesh origin).
    pub pivot: Vec3,
    /// Where the pivot is now (m).
    pub position: Vec3,
    /// Rotation from rest (applied about the pivot).
    pub rotation: Quat,
    /// Velocity of the pivot (m/s).
    pub velocity: Vec3,
    /// Angular velocity (rad/s, world axes).
    pub spin: Vec3,
}

impl Placement {
    /// At rest: no rotation, no motion.
    pub fn fixed(pivot: Vec3) -> Self {
        Self {
            pivot,
            position: pivot,
            rotation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            spin: Vec3::ZERO,
        }
    }

    /// The rest-shape point that lies at world point `x`.
    #[inline]
    pub fn to_rest(&self, x: Vec3) -> Vec3 {
        self.pivot + self.rotation.inverse() * (x - self.position)
    }

    /// The world point where rest-shape point `r` lies ([`Placement::to_rest`]'s inverse).
    #[inline]
    pub fn to_world(&self, r: Vec3) -> Vec3 {
        self.position + self.rotation * (r - self.pivot)
    }

    /// Velocity of the solid at world point `x`: `v + ω × (x − position)`.
    #[inline]
    pub fn velocity_at(&self, x: Vec3) -> Vec3 {
        self.velocity + self.spin.cross(x - self.position)
    }

    /// Whether the solid moves at all.
    pub fn is_moving(&self) -> bool {
        self.velocity != Vec3::ZERO || self.spin != Vec3::ZERO
    }
}

/// One key: at `time` the pivot is at `position` and the shape rotated by `rotation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Keyframe {
    /// Time (s).
    pub time: f64,
    /// Pivot position (m).
    pub position: Vec3,
    /// Rotation from rest.
    pub rotation: Quat,
}

/// Keyframes sorted by time; before the first and after the last the solid stands still.
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    keys: Vec<Keyframe>,
}

/// Why keyframes were refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MotionError {
    /// No key at all.
    #[error("no keyframe")]
    Empty,
    /// Two keys at the same time or out of order.
    #[error("keyframe {0} is not later than the one before it")]
    NotIncreasing(usize),
    /// A value that is not finite.
    #[error("keyframe {0} has a non-finite value")]
    NotFinite(usize),
}

impl Motion {
    /// Keys in increasing time.
    ///
    /// # Errors
    /// [`MotionError`] for no keys, keys out of order, or non-finite values.
    pub fn new(keys: Vec<Keyframe>) -> Result<Self, MotionError> {
        if keys.is_empty() {
            return Err(MotionError::Empty);
        }
        for (i, k) in keys.iter().enumerate() {
            if !(k.time.is_finite() && k.position.is_finite() && k.rotation.is_finite()) {
                return Err(MotionError::NotFinite(i));
            }
            if i > 0 && k.time <= keys[i - 1].time {
                return Err(MotionError::NotIncreasing(i));
            }
        }
        Ok(Self { keys })
    }

    /// The keys.
    pub fn keys(&self) -> &[Keyframe] {
        &self.keys
    }

    /// Placement at time `t` of a shape whose rest pivot is `pivot` and rest rotation `rest`
    /// (applied before the keyed rotation); the velocities are those of the segment holding
    /// `t_velocity` (so a caller can take the pose at a step's end and the velocity over it).
    pub fn placement(&self, pivot: Vec3, rest: Quat, t: f64, t_velocity: f64) -> Placement {
        let (position, rotation) = self.pose(t);
        let (velocity, spin) = self.rates(t_velocity);
        Placement {
            pivot,
            position,
            rotation: (rotation * rest).normalize(),
            velocity,
            spin,
        }
    }

    /// Interpolated position and rotation at `t`.
    pub fn pose(&self, t: f64) -> (Vec3, Quat) {
        match self.segment(t) {
            Ok((a, b)) => {
                let s = ((t - a.time) / (b.time - a.time)) as f32;
                (
                    a.position.lerp(b.position, s),
                    a.rotation.slerp(b.rotation, s),
                )
            }
            Err(k) => (k.position, k.rotation),
        }
    }

    /// Linear and angular velocity on the segment holding `t` (zero outside the keys).
    pub fn rates(&self, t: f64) -> (Vec3, Vec3) {
        match self.segment(t) {
            Ok((a, b)) => segment_rates(a, b),
            Err(_) => (Vec3::ZERO, Vec3::ZERO),
        }
    }

    /// Largest speed of any point within `reach` of the pivot over all segments.
    pub fn max_speed(&self, reach: f32) -> f32 {
        self.keys
            .windows(2)
            .map(|w| {
                let (v, w) = segment_rates(&w[0], &w[1]);
                v.length() + w.length() * reach
            })
            .fold(0.0, f32::max)
    }

    /// The two keys around `t`, or the key the solid rests at.
    fn segment(&self, t: f64) -> Result<(&Keyframe, &Keyframe), &Keyframe> {
        let first = &self.keys[0];
        let last = &self.keys[self.keys.len() - 1];
        if t <= first.time {
            return Err(first);
        }
        if t >= last.time {
            return Err(last);
        }
        let i = self.keys.partition_point(|k| k.time <= t);
        Ok((&self.keys[i - 1], &self.keys[i]))
    }
}

/// Velocity and angular velocity (world axes) of the segment `a → b`; the rotation takes the
/// shorter way, as slerp does.
fn segment_rates(a: &Keyframe, b: &Keyframe) -> (Vec3, Vec3) {
    let dt = (b.time - a.time) as f32;
    let mut delta = b.rotation * a.rotation.inverse();
    if delta.w < 0.0 {
        delta = -delta;
    }
    let (axis, angle) = delta.normalize().to_axis_angle();
    ((b.position - a.position) / dt, axis * (angle / dt))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f64, x: f32, degrees: f32) -> Keyframe {
        Keyframe {
            time,
            position: Vec3::new(x, 0.5, 0.0),
            rotation: Quat::from_rotation_z(degrees.to_radians()),
        }
    }

    #[test]
    fn interpolates_position_linearly_and_rotation_by_slerp() {
        let m = Motion::new(vec![key(0.0, 0.2, 0.0), key(1.0, 0.6, 90.0)]).unwrap();
        let (p, q) = m.pose(0.5);
        assert!((p.x - 0.4).abs() < 1e-6);
        let angle = q.to_axis_angle().1.to_degrees();
        assert!((angle - 45.0).abs() < 1e-3, "{angle}");
        let (v, w) = m.rates(0.5);
        assert!((v.x - 0.4).abs() < 1e-6);
        assert!((w.z - std::f32::consts::FRAC_PI_2).abs() < 1e-4, "{w}");
        // rests before and after the keys
        assert_eq!(m.rates(2.0), (Vec3::ZERO, Vec3::ZERO));
        assert_eq!(m.pose(-1.0).0.x, 0.2);
    }

    #[test]
    fn rigid_velocity_is_v_plus_omega_cross_r() {
        let m = Motion::new(vec![key(0.0, 0.5, 0.0), key(1.0, 0.5, 90.0)]).unwrap();
        let pl = m.placement(Vec3::new(0.5, 0.5, 0.0), Quat::IDENTITY, 0.5, 0.5);
        // a point 0.1 m to the right of the axis turning at π/2 rad/s moves up at 0.157 m/s
        let v = pl.velocity_at(Vec3::new(0.6, 0.5, 0.0));
        assert!((v - Vec3::new(0.0, 0.1 * std::f32::consts::FRAC_PI_2, 0.0)).length() < 1e-5);
        // the rest point carried to x = (0.5, 0.6): rotated back by 45°
        let r = pl.to_rest(Vec3::new(0.5, 0.6, 0.0)) - Vec3::new(0.5, 0.5, 0.0);
        let expect = Vec3::new(0.1 * 0.5f32.sqrt(), 0.1 * 0.5f32.sqrt(), 0.0);
        assert!((r - expect).length() < 1e-5, "{r}");
        assert!((m.max_speed(0.2) - 0.2 * std::f32::consts::FRAC_PI_2).abs() < 1e-5);
    }

    #[test]
    fn refuses_keys_out_of_order() {
        let e = Motion::new(vec![key(1.0, 0.0, 0.0), key(1.0, 0.0, 0.0)]).unwrap_err();
        assert_eq!(e, MotionError::NotIncreasing(1));
        assert_eq!(Motion::new(vec![]).unwrap_err(), MotionError::Empty);
    }
}
