//! Generation (Ihmsen et al. 2012 §3.1-3.2): how many diffuse particles each liquid particle
//! emits over a frame, and where, in a cylinder around it along its velocity.

use super::potentials::{clamp_potential, Potentials};
use super::{Diffuse, WhitewaterParams};
use crate::grid::{Grid3, GridSpec};
use crate::particles::Particles;
use crate::random::stream_seed;
use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use rayon::prelude::*;
use std::f32::consts::TAU;

/// Liquid particles per parallel work item: fixed, so the result never depends on the thread
/// count.
const CHUNK: usize = 8192;

/// A new diffuse particle before it gets an id.
#[derive(Clone, Copy)]
struct Birth {
    pos: Vec3,
    vel: Vec3,
}

/// Emits the frame's diffuse particles from `liquid` into `out`, at most `room` of them, in
/// liquid-particle order; returns how many the cap left out.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit(
    spec: &GridSpec,
    liquid: &Particles,
    phi: &Grid3<f32>,
    pot: &Potentials,
    params: &WhitewaterParams,
    frame: u64,
    dt: f32,
    room: usize,
    out: &mut Diffuse,
) -> usize {
    let births: Vec<Vec<Birth>> = liquid
        .pos
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk, pos)| {
            let mut born = Vec::new();
            for (k, &x) in pos.iter().enumerate() {
                let i = chunk * CHUNK + k;
                emit_one(spec, liquid, i, x, phi, pot, params, frame, dt, &mut born);
            }
            born
        })
        .collect();
    let total: usize = births.iter().map(Vec::len).sum();
    for b in births.into_iter().flatten().take(room) {
        out.push(b.pos, b.vel, params.lifetime);
    }
    total.saturating_sub(room)
}

/// Eq. 5-7 for liquid particle `i` at `x`.
#[allow(clippy::too_many_arguments)]
fn emit_one(
    spec: &GridSpec,
    liquid: &Particles,
    i: usize,
    x: Vec3,
    phi: &Grid3<f32>,
    pot: &Potentials,
    params: &WhitewaterParams,
    frame: u64,
    dt: f32,
    born: &mut Vec<Birth>,
) {
    let [ci, cj, ck] = spec.cell_of(x);
    let c = phi.index(ci, cj, ck);
    if phi.data[c] < -params.emit_depth * spec.dx {
        return;
    }
    let v = liquid.vel[i];
    let speed = v.length();
    if speed == 0.0 {
        return;
    }
    let dir = v / speed;
    let energy = clamp_potential(0.5 * speed * speed, params.energy); // I_k, per unit mass
    let trapped = clamp_potential(pot.trapped_air[c], params.trapped_air);
    // δ_vn: only a crest moving outwards breaks (eq. 4)
    let crest = if dir.dot(pot.normal[c]) >= 0.6 {
        clamp_potential(pot.curvature[c], params.wave_crest)
    } else {
        0.0
    };
    let count = energy * (params.k_trapped_air * trapped + params.k_wave_crest * crest) * dt; // eq. 5
    if count <= 0.0 {
        return;
    }
    let mut rng = Pcg32::seed_from_u64(stream_seed(params.seed, [liquid.id_of(i), frame]));
    let whole = count.floor();
    let n = whole as usize + usize::from(rng.gen::<f32>() < count - whole);
    let (e1, e2) = if spec.is_2d() {
        (Vec3::new(-dir.y, dir.x, 0.0), Vec3::ZERO)
    } else {
        dir.any_orthonormal_pair()
    };
    let radius = params.radius * spec.dx;
    let reach = speed * dt;
    let lo = Vec3::splat(0.0);
    let hi = spec.extent() - Vec3::splat(1e-4 * spec.dx);
    for _ in 0..n {
        let (xr, xt, xh) = (rng.gen::<f32>(), rng.gen::<f32>(), rng.gen::<f32>());
        let (r, theta) = (radius * xr.sqrt(), TAU * xt);
        let radial = if spec.is_2d() {
            // the cylinder's 2D section is a strip across the velocity
            radius * (2.0 * xr - 1.0) * e1
        } else {
            r * theta.cos() * e1 + r * theta.sin() * e2
        };
        let mut pos = (x + radial + xh * reach * dir).clamp(lo, hi); // eq. 6
        if spec.is_2d() {
            pos.z = x.z;
        }
        born.push(Birth {
            pos,
            vel: radial + v, // eq. 7
        });
    }
}
