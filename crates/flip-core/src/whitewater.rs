//! Whitewater after Ihmsen, Akinci, Akinci & Teschner 2012 ("Unified spray, foam and bubbles
//! for particle-based fluids"), on a FLIP grid: each liquid particle emits diffuse particles at
//! a rate set by its trapped-air, wave-crest and kinetic-energy potentials ([`potentials`]);
//! the diffuse particles are classified by their depth in the liquid's level set and advected
//! one way ([`advance`]). The liquid never sees them.
//!
//! The paper's neighbourhood sums run over SPH neighbours; here a particle's neighbours are the
//! cells around its cell, with the cell-centred velocity and the level set's normal, and its
//! neighbour-count classification becomes the signed distance to the surface.

mod advance;
mod diffuse;
mod emit;
mod potentials;

pub use advance::{classify, Removed};
pub use diffuse::{Diffuse, DiffuseType};
pub use potentials::clamp_potential;

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::particles::Particles;
use crate::solids::Solids;
use glam::Vec3;

/// The model's parameters (Ihmsen et al. 2012, Table 1 for the clamping ranges).
#[derive(Clone, Debug, PartialEq)]
pub struct WhitewaterParams {
    /// `[τ_ta^min, τ_ta^max]` of the trapped-air potential (m/s).
    pub trapped_air: [f32; 2],
    /// `[τ_wc^min, τ_wc^max]` of the wave-crest potential.
    pub wave_crest: [f32; 2],
    /// `[τ_k^min, τ_k^max]` of the kinetic energy per unit mass (J/kg).
    pub energy: [f32; 2],
    /// `k_ta`: particles per second a liquid particle emits at full trapped-air potential.
    pub k_trapped_air: f32,
    /// `k_wc`: particles per second at full wave-crest potential.
    pub k_wave_crest: f32,
    /// Emitting liquid lies at most this many cells below the surface.
    pub emit_depth: f32,
    /// Radius of the emission cylinder, in cells.
    pub radius: f32,
    /// Foam lies within this many cells of the surface; above is spray, below are bubbles.
    pub foam_band: f32,
    /// Seconds a foam particle lives.
    pub lifetime: f32,
    /// `k_b`: bubble buoyancy as a multiple of gravity.
    pub bubble_buoyancy: f32,
    /// `k_d` as a rate (1/s): how fast bubbles take the liquid's velocity.
    pub bubble_drag: f32,
    /// Air drag on spray (1/s).
    pub spray_drag: f32,
    /// Gravity (m/s²).
    pub gravity: Vec3,
    /// Most diffuse particles alive at once.
    pub max_particles: usize,
    /// Seed of the emission's random streams.
    pub seed: u64,
}

impl Default for WhitewaterParams {
    fn default() -> Self {
        Self {
            trapped_air: [0.2, 1.5],
            wave_crest: [0.5, 1.0],
            energy: [0.5, 5.0],
            k_trapped_air: 250.0,
            k_wave_crest: 250.0,
            emit_depth: 2.0,
            radius: 0.5,
            foam_band: 1.0,
            lifetime: 2.0,
            bubble_buoyancy: 2.0,
            bubble_drag: 8.0,
            spray_drag: 0.0,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            max_particles: 2_000_000,
            seed: 1,
        }
    }
}

/// The liquid of one frame, as the whitewater reads it.
pub struct LiquidFrame<'a> {
    /// Grid geometry.
    pub spec: &'a GridSpec,
    /// The liquid's particles (positions, velocities, ids).
    pub particles: &'a Particles,
    /// The liquid's grid velocity, extrapolated into the air.
    pub velocity: &'a MacGrid,
    /// The liquid's signed distance at cell centres (negative inside).
    pub level_set: &'a Grid3<f32>,
    /// Solids: diffuse particles that enter them are removed.
    pub solids: Option<&'a Solids>,
}

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameReport {
    /// Particles born this frame.
    pub emitted: usize,
    /// Births the cap left out.
    pub capped: usize,
    /// Particles removed this frame.
    pub removed: Removed,
    /// Advection substeps.
    pub substeps: usize,
}

/// Advances `diffuse` over one frame of `dt` seconds: the frame's births (numbered `frame`
/// for their random streams), then classification and advection (new particles move too).
pub fn advance_frame(
    liquid: &LiquidFrame,
    params: &WhitewaterParams,
    diffuse: &mut Diffuse,
    frame: u64,
    dt: f32,
) -> FrameReport {
    let pot = potentials::potentials(
        liquid.spec,
        liquid.velocity,
        liquid.level_set,
        params.emit_depth,
    );
    let room = params.max_particles.saturating_sub(diffuse.len());
    let before = diffuse.len();
    let capped = emit::emit(
        liquid.spec,
        liquid.particles,
        liquid.level_set,
        &pot,
        params,
        frame,
        dt,
        room,
        diffuse,
    );
    let flow = advance::Flow {
        spec: liquid.spec,
        vel: liquid.velocity,
        phi: liquid.level_set,
        solids: liquid.solids,
    };
    let substeps = advance::substeps(&flow, diffuse, dt);
    let emitted = diffuse.len() - before;
    let removed = advance::advance(&flow, params, diffuse, dt, substeps);
    FrameReport {
        emitted,
        capped,
        removed,
        substeps,
    }
}

#[cfg(test)]
mod tests;
