//! Semi-Lagrangian transport on the tall-cell grid (Stam 1999; Chentanez & Müller 2011 §4):
//! every sample, tall-cell bottoms and tops included, takes the value found where its RK2
//! characteristic started, read with the paper's interpolation rule. And gravity.

use super::grid::{Stagger, TallGrid};
use super::sample::{position, sample, Outside};
use super::state::TallLiquid;
use rayon::prelude::*;

/// Velocity at world position `p` (m/s).
fn velocity(liquid: &TallLiquid, p: (f32, f32)) -> (f32, f32) {
    let g = &liquid.grid;
    (
        sample(g, &liquid.u, Stagger::FaceX, p, Outside::Velocity),
        sample(g, &liquid.v, Stagger::FaceY, p, Outside::Velocity),
    )
}

/// Start of the RK2 (midpoint) characteristic ending at `p` after `dt`, clamped to the domain.
fn backtrace(liquid: &TallLiquid, p: (f32, f32), dt: f32) -> (f32, f32) {
    let g = &liquid.grid;
    let (w, h) = (g.columns as f32 * g.dx, g.height as f32 * g.dx);
    let v0 = velocity(liquid, p);
    let mid = (p.0 - 0.5 * dt * v0.0, p.1 - 0.5 * dt * v0.1);
    let v1 = velocity(liquid, mid);
    (
        (p.0 - dt * v1.0).clamp(0.0, w),
        (p.1 - dt * v1.1).clamp(0.0, h),
    )
}

/// `field` (staggered as `stagger`) carried by the liquid's velocity over `dt`; samples for
/// which `keep` holds keep their value.
fn advect_field(
    liquid: &TallLiquid,
    field: &[f32],
    stagger: Stagger,
    outside: Outside,
    dt: f32,
    keep: impl Fn(&TallGrid, usize, usize) -> bool + Sync,
) -> Vec<f32> {
    let g = &liquid.grid;
    let slots = g.slots();
    let mut out = field.to_vec();
    out.par_chunks_mut(slots).enumerate().for_each(|(i, col)| {
        for (s, q) in col.iter_mut().enumerate() {
            if keep(g, i, s) {
                continue;
            }
            let start = backtrace(liquid, position(g, stagger, i, s), dt);
            *q = sample(g, field, stagger, start, outside);
        }
    });
    out
}

/// Level-set advection (the paper's LA stage).
pub fn advect_level_set(liquid: &mut TallLiquid, dt: f32) {
    let outside_lid = |g: &TallGrid, i: usize, s: usize| g.row(Stagger::Centre, i, s) >= g.height;
    liquid.phi = advect_field(
        liquid,
        &liquid.phi,
        Stagger::Centre,
        Outside::LevelSet,
        dt,
        outside_lid,
    );
}

/// Velocity advection by itself (the paper's VA stage): both components read the old field.
pub fn advect_velocity(liquid: &mut TallLiquid, dt: f32) {
    let u = advect_field(
        liquid,
        &liquid.u,
        Stagger::FaceX,
        Outside::Velocity,
        dt,
        closed_x,
    );
    let v = advect_field(
        liquid,
        &liquid.v,
        Stagger::FaceY,
        Outside::Velocity,
        dt,
        closed_y,
    );
    (liquid.u, liquid.v) = (u, v);
    enforce_walls(liquid);
}

/// An x-face sample with no open part (walls, terrain).
fn closed_x(g: &TallGrid, i: usize, s: usize) -> bool {
    g.open_x(i, g.row(Stagger::FaceX, i, s) as i64) <= 0.0
}

/// A y-face sample on the terrain or the lid.
fn closed_y(g: &TallGrid, i: usize, s: usize) -> bool {
    g.closed_y(i, s)
}

/// Zero normal velocity on closed faces (static walls and terrain).
pub fn enforce_walls(liquid: &mut TallLiquid) {
    let g = &liquid.grid;
    for i in 0..g.columns {
        for s in 0..g.slots() {
            let c = g.index(i, s);
            if closed_x(g, i, s) {
                liquid.u[c] = 0.0;
            }
            if g.closed_y(i, s) {
                liquid.v[c] = 0.0;
            }
        }
    }
}

/// Gravity on the vertical velocity: `v += g_y·dt` on every open y face.
pub fn add_gravity(liquid: &mut TallLiquid, gravity_y: f32, dt: f32) {
    let g = &liquid.grid;
    for i in 0..g.columns {
        for s in 0..g.slots() {
            if !closed_y(g, i, s) {
                liquid.v[g.index(i, s)] += gravity_y * dt;
            }
        }
    }
}
