use glam::Vec3;

/// Marker particles, structure of arrays. In 2D, z is `dx/2` and z-velocity is 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Particles {
    /// Positions in metres.
    pub pos: Vec<Vec3>,
    /// Velocities in m/s.
    pub vel: Vec<Vec3>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
    /// Appends one particle.
    pub fn push(&mut self, pos: Vec3, vel: Vec3) {
        self.pos.push(pos);
        self.vel.push(vel);
    }
    /// Largest speed.
    pub fn max_speed(&self) -> f32 {
        self.vel.iter().fold(0.0f32, |m, v| m.max(v.length()))
    }
    /// Largest speed, or `None` if any position or velocity is not finite; one parallel pass.
    pub fn checked_max_speed(&self) -> Option<f32> {
        use rayon::prelude::*;
        self.pos
            .par_iter()
            .zip(&self.vel)
            .map(|(p, v)| {
                if p.is_finite() && v.is_finite() {
                    Some(v.length())
                } else {
                    None
                }
            })
            .try_reduce(|| 0.0, |a, b| Some(a.max(b)))
    }

    /// Whether every position and velocity is finite.
    pub fn all_finite(&self) -> bool {
        self.pos.iter().chain(&self.vel).all(|v| v.is_finite())
    }
}
