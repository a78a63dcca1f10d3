//! Diffuse particles: positions, velocities, their class and the foam's remaining lifetime.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// What a diffuse particle is this step, from its depth in the liquid (Ihmsen et al. 2012 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum DiffuseType {
    /// Above the surface: ballistic, with air drag.
    Spray = 0,
    /// At the surface: carried by the liquid, ageing.
    Foam = 1,
    /// Below the surface: buoyant, dragged towards the liquid's velocity.
    Bubble = 2,
}

impl DiffuseType {
    /// Every type, in the order of their numbers.
    pub const ALL: [DiffuseType; 3] = [Self::Spray, Self::Foam, Self::Bubble];

    /// The lower-case name (`spray`, `foam`, `bubble`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Spray => "spray",
            Self::Foam => "foam",
            Self::Bubble => "bubble",
        }
    }
}

/// Diffuse particles, structure of arrays; every vector has one entry per particle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diffuse {
    /// Positions in metres.
    pub pos: Vec<Vec3>,
    /// Velocities in m/s.
    pub vel: Vec<Vec3>,
    /// The class of each particle where it is now.
    pub kind: Vec<DiffuseType>,
    /// Seconds left; foam loses its lifetime, spray and bubbles keep theirs.
    pub lifetime: Vec<f32>,
    /// Identifier, kept for the particle's life and never reused within a run.
    pub id: Vec<u64>,
    /// The id the next particle gets.
    pub next_id: u64,
}

impl Diffuse {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Number of particles of each type, indexed by the type's number.
    pub fn counts(&self) -> [usize; 3] {
        let mut n = [0; 3];
        for k in &self.kind {
            n[*k as usize] += 1;
        }
        n
    }

    /// Appends a particle with the next id (as a bubble until it is first classified).
    pub fn push(&mut self, pos: Vec3, vel: Vec3, lifetime: f32) {
        self.pos.push(pos);
        self.vel.push(vel);
        self.kind.push(DiffuseType::Bubble);
        self.lifetime.push(lifetime);
        self.id.push(self.next_id);
        self.next_id += 1;
    }

    /// Keeps the particles whose `keep` entry is true, in order.
    pub fn retain_mask(&mut self, keep: &[bool]) {
        let mut at = 0;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                self.pos[at] = self.pos[i];
                self.vel[at] = self.vel[i];
                self.kind[at] = self.kind[i];
                self.lifetime[at] = self.lifetime[i];
                self.id[at] = self.id[i];
                at += 1;
            }
        }
        self.pos.truncate(at);
        self.vel.truncate(at);
        self.kind.truncate(at);
        self.lifetime.truncate(at);
        self.id.truncate(at);
    }
}
