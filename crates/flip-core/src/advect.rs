//! Particle advection: RK2 midpoint through the grid velocity (Karlsson eq. 24-26), solid
//! push-out (eq. 27, β = 1.5) and the CFL time step.

use crate::grid::GridSpec;
use crate::mac::MacGrid;
use crate::particles::Particles;
use crate::solids::{DomainSides, Side, Solids};
use crate::transfer::{matches_spec, Lattice};
use glam::Vec3;
use rayon::prelude::*;

/// Push-out factor β of eq. 27 (Karlsson uses 1.5).
pub const BETA: f32 = 1.5;
/// Push-out attempts along the solid normal before falling back to the nearest open cell.
const PUSH_TRIES: usize = 4;
/// Margin (in cells) kept from the inner face of the wall layer when clamping.
const WALL_MARGIN: f32 = 1e-3;

/// Moves every particle by the RK2 midpoint rule (Karlsson eq. 24-26), clamps it into the
/// fluid part of the domain (inside the one-cell wall layer) and pushes it out of solids along
/// the solid normal (eq. 27, β = 1.5), so that afterwards `solids.distance(p) >= 0`.
///
/// Eq. 24's `vel(x)` is the PIC/FLIP velocity field; at the particle itself it is the
/// particle's velocity as G2P (eq. 22) just set it, so the half step (eq. 25) uses `v_p`, and
/// the full step (eq. 26) uses `vel` interpolated at the midpoint. Run it after
/// [`g2p`](crate::transfer::g2p): the displacement is always `dt · vel(x_mid)`, and a stale
/// `v_p` only moves the point where `vel` is sampled. Velocities are left unchanged except that
/// in 2D `z = dx/2` and `v.z = 0`.
pub fn advect(spec: &GridSpec, particles: &mut Particles, vel: &MacGrid, solids: &Solids, dt: f32) {
    advect_shifted(spec, particles, vel, None, solids, dt);
}

/// [`advect`] plus a displacement field `shift` (metres, on the faces) sampled at each
/// particle's start and added to its move, its length clamped to
/// [`volume::MAX_SHIFT`](crate::volume::MAX_SHIFT) cells: the volume correction's
/// `d = −∇q`, measured on the particles before they moved, applied in the same pass.
pub fn advect_shifted(
    spec: &GridSpec,
    particles: &mut Particles,
    vel: &MacGrid,
    shift: Option<&MacGrid>,
    solids: &Solids,
    dt: f32,
) {
    assert!(
        matches_spec(spec, vel) && shift.is_none_or(|d| matches_spec(spec, d)),
        "advect: velocity or shift grid does not match spec"
    );
    let bounds = FluidBox::new(spec, &solids.sides);
    let lattice = Lattice::new(spec);
    let is_2d = spec.is_2d();
    let limit = crate::volume::MAX_SHIFT * spec.dx;
    let Particles { pos, vel: pvel, .. } = particles;
    pos.par_iter_mut()
        .zip(pvel.par_iter_mut())
        .with_min_len(1024)
        .for_each(|(p, v)| {
            let x0 = *p;
            let mid = x0 + 0.5 * dt * *v; // eq. 25 with vel(x_p) = v_p
            let mut x = x0 + dt * lattice.sample(vel, mid); // eq. 26
            if let Some(d) = shift {
                x += lattice.sample(d, x0).clamp_length_max(limit);
            }
            let x = bounds.clamp(x);
            *p = keep_side(spec, solids, x0, x, push_out(spec, solids, &bounds, x));
            if is_2d {
                v.z = 0.0;
            }
        });
}

/// Moves every particle by `shift(x)`, then keeps it in the open part of the domain and out of
/// solids as [`advect`] does.
pub(crate) fn shift_confined(
    spec: &GridSpec,
    solids: &Solids,
    pos: &mut [Vec3],
    shift: impl Fn(Vec3) -> Vec3 + Sync,
) {
    let bounds = FluidBox::new(spec, &solids.sides);
    pos.par_iter_mut().with_min_len(1024).for_each(|p| {
        let x = bounds.clamp(*p + shift(*p));
        *p = push_out(spec, solids, &bounds, x);
    });
}

/// CFL time step `cfl · dx / max(max_speed, 1e-6)`.
pub fn cfl_dt(spec: &GridSpec, max_speed: f32, cfl: f32) -> f32 {
    cfl * spec.dx / max_speed.max(1e-6)
}

/// The open part of the domain: inside the wall layer, with a small margin; on an inflow face
/// (no wall layer) inside the face; beyond an open face up to two cells out, where the
/// particles that left are removed ([`crate::boundary`]).
struct FluidBox {
    lo: Vec3,
    hi: Vec3,
    is_2d: bool,
    z2d: f32,
}

impl FluidBox {
    fn new(spec: &GridSpec, sides: &DomainSides) -> Self {
        let m = (1.0 + WALL_MARGIN) * spec.dx;
        let e = spec.extent();
        let (mut lo, mut hi) = (Vec3::splat(m), e - m);
        for a in 0..spec.dimension() {
            let margin = |hi: bool| match sides.get(a, hi) {
                Side::Wall => m,
                Side::Inflow(_) => WALL_MARGIN * spec.dx,
                Side::Open => -2.0 * spec.dx,
            };
            lo[a] = margin(false);
            hi[a] = e[a] - margin(true);
        }
        Self {
            lo,
            hi,
            is_2d: spec.is_2d(),
            z2d: 0.5 * spec.dx,
        }
    }
    #[inline]
    fn clamp(&self, p: Vec3) -> Vec3 {
        let p = if p.is_finite() {
            p
        } else {
            0.5 * (self.lo + self.hi)
        };
        let mut c = p.clamp(self.lo, self.hi.max(self.lo));
        if self.is_2d {
            c.z = self.z2d;
        }
        c
    }
}

/// Eq. 27: while `p` is inside a solid, move it by `β·|φ_s|` along the solid normal; if that
/// fails (thin or mask solids with no usable normal), move to the nearest open cell centre.
fn push_out(spec: &GridSpec, solids: &Solids, bounds: &FluidBox, mut p: Vec3) -> Vec3 {
    // Walls only: the clamp into the fluid box already keeps p outside them.
    if solids.shapes.is_empty() {
        return p;
    }
    // phi is exact at cell centres and Lipschitz-1, so a cell centre further than the cell's
    // half-diagonal from any solid proves p outside without evaluating the shapes.
    let [i, j, k] = spec.cell_of(p);
    if solids.phi[(i, j, k)] > 0.87 * spec.dx {
        return p;
    }
    for _ in 0..PUSH_TRIES {
        let d = solids.distance(p);
        if d >= 0.0 {
            return p;
        }
        let n = solids.normal(p);
        if n == Vec3::ZERO {
            break;
        }
        p = bounds.clamp(p + BETA * (-d) * n);
    }
    if solids.distance(p) >= 0.0 {
        return p;
    }
    nearest_open_cell(spec, solids, p).unwrap_or(p)
}

/// Whether the way from open point `centre` to `p` (inside a solid) enters the solid only near
/// `p`: a centre on the far side of a thin wall is not a way out.
fn reachable(spec: &GridSpec, solids: &Solids, centre: Vec3, p: Vec3) -> bool {
    let depth = -solids.distance(p);
    let len = centre.distance(p);
    let steps = (len / (0.25 * spec.dx)).ceil().max(1.0) as usize;
    (1..steps).all(|s| {
        let x = centre.lerp(p, s as f32 / steps as f32);
        x.distance(p) <= depth + 0.5 * spec.dx || solids.distance(x) >= 0.0
    })
}

/// Guards thin walls: when the push-out moved a particle that had entered a solid to a point
/// whose path from the particle's start `x0` runs through solid (it crossed more than half of
/// a thin wall and was pushed out on the far side), it stops instead at the last point outside
/// on its way `x0 → x`, found by bisection. A move that ends outside but is a cell or longer
/// may have jumped a wall one cell thick whole: it stops before the first solid on its way.
/// Other particles keep the eq. 27 push-out.
fn keep_side(spec: &GridSpec, solids: &Solids, x0: Vec3, x: Vec3, pushed: Vec3) -> Vec3 {
    // Walls only: the fluid box's clamp keeps every move inside them.
    if solids.shapes.is_empty() {
        return pushed;
    }
    if pushed == x {
        return if x0.distance(x) < spec.dx || solids.distance(x0) < 0.0 {
            x
        } else {
            stop_before_solid(spec, solids, x0, x)
        };
    }
    if solids.distance(x0) < 0.0 {
        return pushed;
    }
    let steps = (x0.distance(pushed) / (0.25 * spec.dx)).ceil().max(1.0) as usize;
    let crosses = (1..steps).any(|s| {
        let t = s as f32 / steps as f32;
        solids.distance(x0.lerp(pushed, t)) < 0.0
    });
    if !crosses {
        return pushed;
    }
    last_outside(solids, x0, x)
}

/// The last point outside every solid on the way `x0 → x` (both outside) before the first
/// solid it meets (sampled every quarter cell, then bisected); `x` when it meets none.
fn stop_before_solid(spec: &GridSpec, solids: &Solids, x0: Vec3, x: Vec3) -> Vec3 {
    let steps = (x0.distance(x) / (0.25 * spec.dx)).ceil().max(1.0) as usize;
    let first_inside = (1..steps)
        .map(|s| x0.lerp(x, s as f32 / steps as f32))
        .find(|&p| solids.distance(p) < 0.0);
    match first_inside {
        Some(inside) => last_outside(solids, x0, inside),
        None => x,
    }
}

/// The boundary point between `outside` (outside every solid) and `inside` (in one), by 12
/// bisections, on the outer side.
fn last_outside(solids: &Solids, mut outside: Vec3, mut inside: Vec3) -> Vec3 {
    for _ in 0..12 {
        let mid = 0.5 * (outside + inside);
        if solids.distance(mid) >= 0.0 {
            outside = mid;
        } else {
            inside = mid;
        }
    }
    outside
}

/// Centre of the nearest cell (within 3 cells) whose centre lies outside every solid.
fn nearest_open_cell(spec: &GridSpec, solids: &Solids, p: Vec3) -> Option<Vec3> {
    let [i, j, k] = spec.cell_of(p);
    let r = 3isize;
    let rk = if spec.is_2d() { 0 } else { r };
    let mut best: Option<(f32, Vec3)> = None;
    for dk in -rk..=rk {
        for dj in -r..=r {
            for di in -r..=r {
                let (a, b, c) = (i as isize + di, j as isize + dj, k as isize + dk);
                if !solids.phi.contains(a, b, c) {
                    continue;
                }
                let centre = spec.cell_center(a as usize, b as usize, c as usize);
                if solids.phi[(a as usize, b as usize, c as usize)] <= 0.0
                    || solids.distance(centre) < 0.0
                    || !reachable(spec, solids, centre, p)
                {
                    continue;
                }
                let d2 = centre.distance_squared(p);
                if !matches!(best, Some((bd, _)) if bd <= d2) {
                    best = Some((d2, centre));
                }
            }
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests;
