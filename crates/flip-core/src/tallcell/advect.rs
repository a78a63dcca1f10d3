//! Semi-Lagrangian transport on the tall-cell grid (Stam 1999; Chentanez & Müller 2011 §4):
//! every sample, tall-cell bottoms and tops included, takes the value found where its RK2
//! characteristic started, read with the paper's interpolation rule. And gravity.

use super::grid::{Stagger, TallGrid};
use super::sample::{position, sample, Outside};
use super::state::TallLiquid;
use rayon::prelude::*;

/// Velocity at world position `p` (m/s); `w` is zero in 2D.
fn velocity(liquid: &TallLiquid, p: [f32; 3]) -> [f32; 3] {
    let g = &liquid.grid;
    let at = |field: &[f32], stagger| sample(g, field, stagger, p, Outside::Velocity);
    let w = if g.is_3d() {
        at(&liquid.w, Stagger::FaceZ)
    } else {
        0.0
    };
    [
        at(&liquid.u, Stagger::FaceX),
        at(&liquid.v, Stagger::FaceY),
        w,
    ]
}

/// Start of the RK2 (midpoint) characteristic ending at `p` after `dt`, clamped to the domain.
fn backtrace(liquid: &TallLiquid, p: [f32; 3], dt: f32) -> [f32; 3] {
    let g = &liquid.grid;
    let size = [g.columns[0], g.height, g.columns[1]].map(|n| n as f32 * g.dx);
    let v0 = velocity(liquid, p);
    let mid = std::array::from_fn(|a| p[a] - 0.5 * dt * v0[a]);
    let v1 = velocity(liquid, mid);
    std::array::from_fn(|a| (p[a] - dt * v1[a]).clamp(0.0, size[a]))
}

/// Half-width (m) of the band around the surface in which samples are carried: a step moves
/// the surface by at most `dt·|u|max`, and extrapolation reaches a few cells beyond it; samples
/// farther into the air or the liquid keep their value (the level set keeps its sign there,
/// and air velocity that far is never read before extrapolation rewrites it).
fn band(liquid: &TallLiquid, dt: f32) -> f32 {
    let top = |f: &[f32]| f.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let mut speed = top(&liquid.u).max(top(&liquid.v));
    if liquid.grid.is_3d() {
        speed = speed.max(top(&liquid.w));
    }
    6.0 * liquid.grid.dx + 2.0 * dt * speed
}

/// Whether the cells beside sample (`c`, `s`) of `stagger` all lie farther than `band` from
/// the surface (into the air for velocity; either way for the level set).
pub(super) fn far(
    liquid: &TallLiquid,
    stagger: Stagger,
    (c, s): (usize, usize),
    band: f32,
) -> bool {
    let g = &liquid.grid;
    let phi = |c: usize, s: usize| liquid.phi[g.index(c, s)];
    match stagger {
        Stagger::Centre => phi(c, s).abs() > band,
        Stagger::FaceY => phi(c, s) > band && (s == 0 || phi(c, s - 1) > band),
        _ => {
            let nb = stagger.axis().and_then(|a| g.low_neighbour(a, c));
            phi(c, s) > band && nb.is_none_or(|n| phi(n, s) > band)
        }
    }
}

/// `field` (staggered as `stagger`) carried by the liquid's velocity over `dt`; samples for
/// which `keep` holds, or far from the surface, keep their value.
fn advect_field(
    liquid: &TallLiquid,
    field: &[f32],
    stagger: Stagger,
    outside: Outside,
    dt: f32,
    keep: impl Fn(&TallGrid, usize, usize) -> bool + Sync,
) -> Vec<f32> {
    let g = &liquid.grid;
    let (slots, band) = (g.slots(), band(liquid, dt));
    let mut out = field.to_vec();
    out.par_chunks_mut(slots).enumerate().for_each(|(c, col)| {
        for (s, q) in col.iter_mut().enumerate() {
            if keep(g, c, s) || far(liquid, stagger, (c, s), band) {
                continue;
            }
            let start = backtrace(liquid, position(g, stagger, c, s), dt);
            *q = sample(g, field, stagger, start, outside);
        }
    });
    out
}

/// Level-set advection (the paper's LA stage).
pub fn advect_level_set(liquid: &mut TallLiquid, dt: f32) {
    let outside_lid = |g: &TallGrid, c: usize, s: usize| g.row(Stagger::Centre, c, s) >= g.height;
    liquid.phi = advect_field(
        liquid,
        &liquid.phi,
        Stagger::Centre,
        Outside::LevelSet,
        dt,
        outside_lid,
    );
}

/// Velocity advection by itself (the paper's VA stage): every component reads the old field.
pub fn advect_velocity(liquid: &mut TallLiquid, dt: f32) {
    let carry = |field: &[f32], stagger: Stagger| {
        let closed = move |g: &TallGrid, c: usize, s: usize| closed(g, stagger, c, s);
        advect_field(liquid, field, stagger, Outside::Velocity, dt, closed)
    };
    let u = carry(&liquid.u, Stagger::FaceX);
    let v = carry(&liquid.v, Stagger::FaceY);
    let w = if liquid.grid.is_3d() {
        carry(&liquid.w, Stagger::FaceZ)
    } else {
        liquid.w.clone()
    };
    (liquid.u, liquid.v, liquid.w) = (u, v, w);
    enforce_walls(liquid);
}

/// A velocity sample on a face with no open part: walls and terrain for the side faces, the
/// terrain face and the lid for y faces.
pub fn closed(g: &TallGrid, stagger: Stagger, c: usize, s: usize) -> bool {
    match stagger.axis() {
        Some(axis) => g.open(axis, g.ik(c), g.row(stagger, c, s) as i64) <= 0.0,
        None => g.closed_y(c, s),
    }
}

/// Zero normal velocity on closed faces (static walls and terrain).
pub fn enforce_walls(liquid: &mut TallLiquid) {
    let g = &liquid.grid;
    let three = g.is_3d();
    for c in 0..g.column_count() {
        for s in 0..g.slots() {
            let n = g.index(c, s);
            if closed(g, Stagger::FaceX, c, s) {
                liquid.u[n] = 0.0;
            }
            if g.closed_y(c, s) {
                liquid.v[n] = 0.0;
            }
            if three && closed(g, Stagger::FaceZ, c, s) {
                liquid.w[n] = 0.0;
            }
        }
    }
}

/// Gravity on the vertical velocity: `v += g_y·dt` on every open y face.
pub fn add_gravity(liquid: &mut TallLiquid, gravity_y: f32, dt: f32) {
    let g = &liquid.grid;
    for c in 0..g.column_count() {
        for s in 0..g.slots() {
            if !g.closed_y(c, s) {
                liquid.v[g.index(c, s)] += gravity_y * dt;
            }
        }
    }
}
