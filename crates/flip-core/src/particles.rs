use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Marker particles, structure of arrays. In 2D, z is `dx/2` and z-velocity is 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Particles {
    /// Positions in metres.
    pub pos: Vec<Vec3>,
    /// Velocities in m/s.
    pub vel: Vec<Vec3>,
    /// APIC affine velocity (Jiang et al. 2015): row `c` is the gradient of velocity component
    /// `c` at the particle (1/s). Empty unless an APIC transfer is in use; then one per particle.
    pub affine: Vec<[Vec3; 3]>,
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
    /// Appends one particle (with a zero affine velocity when the particles carry one).
    pub fn push(&mut self, pos: Vec3, vel: Vec3) {
        self.pos.push(pos);
        self.vel.push(vel);
        if self.has_affine() {
            self.affine.push([Vec3::ZERO; 3]);
        }
    }
    /// Whether every particle carries an APIC affine velocity.
    pub fn has_affine(&self) -> bool {
        !self.affine.is_empty() && self.affine.len() == self.pos.len()
    }
    /// Keeps the particles whose entry in `keep` is true, in order.
    pub fn retain_mask(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.len(), "one flag per particle");
        let affine = self.has_affine();
        let mut at = 0;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                self.pos[at] = self.pos[i];
                self.vel[at] = self.vel[i];
                if affine {
                    self.affine[at] = self.affine[i];
                }
                at += 1;
            }
        }
        self.pos.truncate(at);
        self.vel.truncate(at);
        if affine {
            self.affine.truncate(at);
        } else {
            self.affine.clear();
        }
    }
    /// Largest speed.
    pub fn max_speed(&self) -> f32 {
        self.vel.iter().fold(0.0f32, |m, v| m.max(v.length()))
    }
    /// Largest speed, or `None` if any position or velocity is not finite; one parallel pass.
    /// The inner loops reduce integer bit patterns (monotonic for non-negative floats, and
    /// above infinity's for NaN), so they vectorise where float folds would not.
    pub fn checked_max_speed(&self) -> Option<f32> {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 14;
        const EXP: u32 = 0x7f80_0000;
        let pos: &[f32] = bytemuck::cast_slice(&self.pos);
        let (max_bits, pos_bad) = pos
            .par_chunks(3 * CHUNK)
            .zip(self.vel.par_chunks(CHUNK))
            .map(|(ps, vs)| {
                let bad = ps
                    .iter()
                    .fold(0u32, |b, x| b | u32::from(x.to_bits() & EXP == EXP));
                let m = vs
                    .iter()
                    .fold(0u32, |m, v| m.max(v.length_squared().to_bits()));
                (m, bad)
            })
            .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1 | b.1));
        (pos_bad == 0 && max_bits < EXP).then(|| f32::from_bits(max_bits).sqrt())
    }

    /// Whether every position and velocity is finite.
    pub fn all_finite(&self) -> bool {
        self.pos.iter().chain(&self.vel).all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn many(n: usize) -> Particles {
        let mut p = Particles::default();
        for i in 0..n {
            let s = i as f32 * 1e-3;
            p.push(Vec3::new(s, 0.5, -s), Vec3::new(-s, 2.0 * s, 0.1));
        }
        p
    }

    #[test]
    fn checked_max_speed_matches_the_plain_maximum() {
        let p = many(100_000);
        let exact = p.max_speed();
        let got = p.checked_max_speed().expect("all finite");
        assert!((got - exact).abs() <= 1e-6 * exact, "{got} vs {exact}");
        assert_eq!(Particles::default().checked_max_speed(), Some(0.0));
    }

    #[test]
    fn checked_max_speed_refuses_any_non_finite_component() {
        for bad in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            for (field, axis) in [(0, 0), (0, 2), (1, 1), (1, 2)] {
                let mut p = many(70_000);
                let v = if field == 0 { &mut p.pos } else { &mut p.vel };
                v[54_321][axis] = bad;
                assert_eq!(
                    p.checked_max_speed(),
                    None,
                    "{bad} in field {field} axis {axis}"
                );
            }
        }
    }
}
