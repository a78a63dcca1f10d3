use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Reordering by cell.
mod sort;

/// Marker particles, structure of arrays. In 2D, z is `dx/2` and z-velocity is 0.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Particles {
    /// Positions in metres.
    pub pos: Vec<Vec3>,
    /// Velocities in m/s.
    pub vel: Vec<Vec3>,
    /// APIC affine velocity (Jiang et al. 2015): row `c` is the gradient of velocity component
    /// `c` at the particle (1/s). Empty unless an APIC transfer is in use; then one per particle.
    pub affine: Vec<[Vec3; 3]>,
    /// Identifier of every particle, kept for its life and never reused within a run (the
    /// `id` attribute of Houdini and of the exported PLY). Empty for particles built by hand
    /// without ids; [`Particles::push`] keeps them when every particle has one.
    #[serde(default)]
    pub id: Vec<u64>,
    /// The id the next pushed particle gets (one more than any given so far).
    #[serde(default)]
    pub next_id: u64,
    /// Kinematic viscosity (m²/s) of every particle, set by emitters that give one (the
    /// `viscosity` attribute of Houdini's FLIP). Empty when no particle carries one; otherwise
    /// one per particle, NaN for a particle that has none (emitted by an emitter without one).
    #[serde(default)]
    pub viscosity: Vec<f32>,
}

/// A copy of `v` with room for `v.len() / 64` more elements (see `Clone for Particles`).
fn with_headroom<T: Clone>(v: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len() + v.len() / 64);
    out.extend_from_slice(v);
    out
}

/// A copy keeps room for 1/64 more particles: a node that changes shared particles copies
/// them every step, and a decomposed run's exchange then appends about as many ghosts and
/// migrants as it dropped; without room, the rank that gained a few reallocates (and copies)
/// all its particles again (6 ms of a 160 ms step of the 3D weak-scaling bench).
impl Clone for Particles {
    fn clone(&self) -> Self {
        Self {
            pos: with_headroom(&self.pos),
            vel: with_headroom(&self.vel),
            affine: with_headroom(&self.affine),
            id: with_headroom(&self.id),
            next_id: self.next_id,
            viscosity: with_headroom(&self.viscosity),
        }
    }
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
    /// Appends one particle (with a zero affine velocity when the particles carry one, no
    /// viscosity (NaN) when they carry one, and the next id when every particle has one, as all
    /// do that were only ever pushed).
    pub fn push(&mut self, pos: Vec3, vel: Vec3) {
        if self.has_ids() {
            self.id.push(self.next_id);
            self.next_id += 1;
        }
        if self.has_viscosity() {
            self.viscosity.push(f32::NAN);
        }
        let affine = self.has_affine();
        self.pos.push(pos);
        self.vel.push(vel);
        if affine {
            self.affine.push([Vec3::ZERO; 3]);
        }
    }
    /// Whether every particle has an id.
    pub fn has_ids(&self) -> bool {
        self.id.len() == self.pos.len()
    }
    /// Particle `i`'s id, or its index when the particles carry none.
    pub fn id_of(&self, i: usize) -> u64 {
        if self.has_ids() {
            self.id[i]
        } else {
            i as u64
        }
    }
    /// Whether every particle carries an APIC affine velocity.
    pub fn has_affine(&self) -> bool {
        !self.affine.is_empty() && self.affine.len() == self.pos.len()
    }
    /// Whether every particle has a viscosity entry (NaN for none).
    pub fn has_viscosity(&self) -> bool {
        !self.viscosity.is_empty() && self.viscosity.len() == self.pos.len()
    }
    /// Gives the particles from `first` on the viscosity `nu` (m²/s); the particles before
    /// them get the attribute as NaN (none) if they did not carry it.
    pub fn set_viscosity_from(&mut self, first: usize, nu: f32) {
        if !self.has_viscosity() {
            self.viscosity = vec![f32::NAN; self.len()];
        }
        self.viscosity[first..].fill(nu);
    }
    /// Keeps the particles whose entry in `keep` is true, in order.
    pub fn retain_mask(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.len(), "one flag per particle");
        let (affine, ids) = (self.has_affine(), self.has_ids());
        let viscosity = self.has_viscosity();
        let mut at = 0;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                self.pos[at] = self.pos[i];
                self.vel[at] = self.vel[i];
                if affine {
                    self.affine[at] = self.affine[i];
                }
                if ids {
                    self.id[at] = self.id[i];
                }
                if viscosity {
                    self.viscosity[at] = self.viscosity[i];
                }
                at += 1;
            }
        }
        self.pos.truncate(at);
        self.vel.truncate(at);
        if ids {
            self.id.truncate(at);
        } else {
            self.id.clear();
        }
        if affine {
            self.affine.truncate(at);
        } else {
            self.affine.clear();
        }
        if viscosity {
            self.viscosity.truncate(at);
        } else {
            self.viscosity.clear();
        }
    }
    /// Largest speed.
    pub fn max_speed(&self) -> f32 {
        self.vel.iter().fold(0.0f32, |m, v| m.max(v.length()))
    }
    /// Largest speed, or `None` if any position or velocity is not finite; one parallel pass.
    pub fn checked_max_speed(&self) -> Option<f32> {
        self.checked_max_speed_of(|_| true)
    }

    /// [`Self::checked_max_speed`] with the speed taken over the particles whose id `counts`
    /// (particles without ids count); every particle must still be finite. The inner loops
    /// reduce integer bit patterns (monotonic for non-negative floats, and above infinity's
    /// for NaN), so they vectorise where float folds would not.
    pub fn checked_max_speed_of(&self, counts: impl Fn(u64) -> bool + Sync) -> Option<f32> {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 14;
        const EXP: u32 = 0x7f80_0000;
        let n = self.len();
        let ids = (self.id.len() == n).then_some(&self.id[..]);
        let (max_bits, bad) = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let r = c * CHUNK..((c + 1) * CHUNK).min(n);
                let ps: &[f32] = bytemuck::cast_slice(&self.pos[r.clone()]);
                let bad = ps
                    .iter()
                    .fold(0u32, |b, x| b | u32::from(x.to_bits() & EXP == EXP));
                let vs = self.vel[r.clone()].iter().enumerate();
                vs.fold((0u32, bad), |(m, bad), (k, v)| {
                    let bits = v.length_squared().to_bits();
                    // A non-finite velocity fails the check whether or not it counts.
                    let bad = bad | u32::from(bits >= EXP);
                    let counted = ids.is_none_or(|ids| counts(ids[r.start + k]));
                    (if counted { m.max(bits) } else { m }, bad)
                })
            })
            .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1 | b.1));
        (bad == 0 && max_bits < EXP).then(|| f32::from_bits(max_bits).sqrt())
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

    #[test]
    fn ids_are_given_once_and_kept_through_removals() {
        let mut p = many(6);
        assert_eq!(p.id, [0, 1, 2, 3, 4, 5]);
        p.retain_mask(&[true, false, true, false, false, true]);
        assert_eq!(p.id, [0, 2, 5]);
        assert_eq!(p.pos.len(), 3);
        p.push(Vec3::ZERO, Vec3::ZERO);
        assert_eq!(
            p.id,
            [0, 2, 5, 6],
            "a removed particle's id is not given again"
        );
        assert_eq!(p.id_of(3), 6);
        // particles built by hand carry none; their index stands in
        let mut bare = Particles {
            pos: vec![Vec3::ZERO; 2],
            vel: vec![Vec3::ZERO; 2],
            ..Particles::default()
        };
        bare.push(Vec3::ONE, Vec3::ZERO);
        assert!(!bare.has_ids() && bare.id.is_empty());
        assert_eq!(bare.id_of(2), 2);
    }

    #[test]
    fn a_pushed_particle_gets_a_zero_affine_velocity_when_the_others_carry_one() {
        let mut p = many(2);
        p.affine = vec![[Vec3::ONE; 3]; 2];
        p.push(Vec3::ZERO, Vec3::ZERO);
        assert!(p.has_affine());
        assert_eq!(p.affine[2], [Vec3::ZERO; 3]);
    }

    #[test]
    fn the_viscosity_attribute_follows_its_particles() {
        let mut p = many(3);
        assert!(!p.has_viscosity());
        p.push(Vec3::ONE, Vec3::ZERO);
        p.set_viscosity_from(3, 0.5);
        assert!(p.viscosity[..3].iter().all(|v| v.is_nan()));
        p.push(Vec3::ONE, Vec3::ZERO);
        assert!(p.has_viscosity() && p.viscosity[4].is_nan());
        p.retain_mask(&[false, true, false, true, true]);
        assert_eq!(p.id, [1, 3, 4]);
        assert_eq!(p.viscosity[1], 0.5);
        assert!(p.viscosity[0].is_nan() && p.viscosity[2].is_nan());
    }
}
