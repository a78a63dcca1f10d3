//! Classification and advection (Ihmsen et al. 2012 §4): by its depth in the liquid's level set
//! a diffuse particle is spray (ballistic), foam (carried on the surface, ageing) or a bubble
//! (buoyant, dragged towards the liquid).

use super::{Diffuse, DiffuseType, WhitewaterParams};
use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::solids::Solids;
use crate::transfer::Lattice;
use glam::Vec3;
use rayon::prelude::*;

/// What one frame's advection removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// Foam whose lifetime ran out.
    pub expired: usize,
    /// Particles that left the domain or entered a solid.
    pub outside: usize,
}

/// The class of a particle at signed distance `phi` from the surface.
pub fn classify(phi: f32, band: f32) -> DiffuseType {
    if phi > band {
        DiffuseType::Spray
    } else if phi < -band {
        DiffuseType::Bubble
    } else {
        DiffuseType::Foam
    }
}

/// The grid the particles move through this frame.
pub(crate) struct Flow<'a> {
    pub spec: &'a GridSpec,
    pub vel: &'a MacGrid,
    pub phi: &'a Grid3<f32>,
    pub solids: Option<&'a Solids>,
}

/// Substeps for `dt`: no particle (diffuse or liquid velocity) moves more than a cell in one.
pub(crate) fn substeps(flow: &Flow, diffuse: &Diffuse, dt: f32) -> usize {
    let fastest = diffuse
        .vel
        .par_iter()
        .map(|v| v.length())
        .reduce(|| 0.0, f32::max)
        .max(flow.vel.max_abs());
    ((fastest * dt / flow.spec.dx).ceil() as usize).clamp(1, 64)
}

/// Moves every particle over `dt` in `steps` substeps (each classifies it where it starts),
/// classifies it where it ends, then drops expired foam and particles outside the domain or
/// inside solids.
pub(crate) fn advance(
    flow: &Flow,
    params: &WhitewaterParams,
    diffuse: &mut Diffuse,
    dt: f32,
    steps: usize,
) -> Removed {
    let lattice = Lattice::new(flow.spec);
    let h = dt / steps as f32;
    let band = params.foam_band * flow.spec.dx;
    let extent = flow.spec.extent();
    let is_2d = flow.spec.is_2d();
    let keep: Vec<u8> = (
        &mut diffuse.pos,
        &mut diffuse.vel,
        &mut diffuse.kind,
        &mut diffuse.lifetime,
    )
        .into_par_iter()
        .with_min_len(1024)
        .map(|(x, v, kind, life)| {
            for _ in 0..steps {
                let (phi, fluid) = sample(&lattice, flow, *x);
                *kind = classify(phi, band);
                step(params, *kind, fluid, h, x, v, life);
                if is_2d {
                    v.z = 0.0;
                }
            }
            // the class where the particle ends, as it is exported
            *kind = classify(sample(&lattice, flow, *x).0, band);
            let inside = (0..3).all(|a| x[a] >= 0.0 && x[a] <= extent[a])
                && flow.solids.is_none_or(|s| s.distance(*x) >= 0.0);
            match (inside, *life > 0.0) {
                (false, _) => 1,
                (true, false) => 2,
                (true, true) => 0,
            }
        })
        .collect();
    let removed = Removed {
        outside: keep.iter().filter(|&&k| k == 1).count(),
        expired: keep.iter().filter(|&&k| k == 2).count(),
    };
    if removed != Removed::default() {
        let mask: Vec<bool> = keep.iter().map(|&k| k == 0).collect();
        diffuse.retain_mask(&mask);
    }
    removed
}

/// The level set and the liquid's velocity at `x`, from one stencil.
#[inline(always)]
fn sample(lattice: &Lattice, flow: &Flow, x: Vec3) -> (f32, Vec3) {
    let st = lattice.stencil(x);
    let vel = flow.vel;
    let w = if flow.spec.is_2d() {
        0.0
    } else {
        st.block::<2>().sample(&vel.w.data)
    };
    let fluid = Vec3::new(
        st.block::<0>().sample(&vel.u.data),
        st.block::<1>().sample(&vel.v.data),
        w,
    );
    (st.cell_block().sample(&flow.phi.data), fluid)
}

/// One substep of eq. 8-10 for a particle of class `kind` where the liquid moves at `fluid`.
fn step(
    params: &WhitewaterParams,
    kind: DiffuseType,
    fluid: Vec3,
    h: f32,
    x: &mut Vec3,
    v: &mut Vec3,
    life: &mut f32,
) {
    let g = params.gravity;
    match kind {
        // eq. 8, with air drag towards still air
        DiffuseType::Spray => {
            *v += h * (g - params.spray_drag * *v);
            *x += h * *v;
        }
        // eq. 10: foam is carried by the liquid and ages
        DiffuseType::Foam => {
            *v = fluid;
            *x += h * fluid;
            *life -= h;
        }
        // eq. 9: buoyancy k_b against gravity and drag k_d towards the liquid, as a rate and
        // integrated exactly over the substep, so the terminal speed does not depend on it
        DiffuseType::Bubble => {
            let kd = params.bubble_drag;
            let lift = -params.bubble_buoyancy * g;
            if kd > 0.0 {
                let terminal = fluid + lift / kd;
                *v = terminal + (*v - terminal) * (-kd * h).exp();
            } else {
                *v += h * lift;
            }
            *x += h * *v;
        }
    }
}
