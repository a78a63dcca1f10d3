//! Liquid crossing the domain's faces and sinks: particles beyond an open face are removed and
//! counted per face; inflow faces seed particles as liquid enters; sinks remove particles
//! inside a shape, completely or at a rate.
//!
//! Volumes are counted in particles; one particle stands for `dx^d / c_p` (Karlsson's seeding
//! density `c_p`, 4 in 2D and 8 in 3D), the nominal volume the emitter seeds at.

use crate::grid::GridSpec;
use crate::particles::Particles;
use crate::solids::{Shape, Side, Solids};
use glam::Vec3;

/// Sub-cells per axis of the inflow's seeding lattice (2×2 in 2D, 2×2×2 in 3D: `c_p` = 4 / 8,
/// the emitter's default).
pub const INFLOW_STRATA: usize = 2;

/// Removes the particles that lie beyond an open face of `solids`; returns how many left
/// through each face ([`crate::solids::DomainSides`] order).
pub fn remove_outside(spec: &GridSpec, solids: &Solids, particles: &mut Particles) -> [usize; 6] {
    let mut left = [0usize; 6];
    if !solids.sides.any_open() {
        return left;
    }
    let (ext, axes) = (spec.extent(), spec.dimension());
    let keep: Vec<bool> = particles
        .pos
        .iter()
        .map(|&p| match solids.sides.left_through(p, ext, axes) {
            Some(side) => {
                left[side] += 1;
                false
            }
            None => true,
        })
        .collect();
    if left.iter().any(|&n| n > 0) {
        particles.retain_mask(&keep);
    }
    left
}

/// The particles an inflow face has fed so far: liquid moving in at the inflow speed fills a
/// column of seeding layers `h = dx / 2` apart; layer `n` crosses the face once the distance
/// fed `s·t` exceeds `(n + ½) h` and is seeded at its position past the face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InflowFeed {
    /// Distance the liquid moved in so far (m).
    pub fed: f64,
    /// Layers seeded so far.
    pub layers: u64,
}

use serde::{Deserialize, Serialize};

/// SplitMix64 (Steele et al. 2014): a counter-based hash, so a seed does not depend on order.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform number in `[0, 1)` from a hash.
#[inline]
fn unit(h: u64) -> f32 {
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Advances the inflow faces of `solids` by `dt` and seeds the layers that entered, jittered
/// within their sub-cell by `jitter` (the emitter's: 1 = anywhere in it), outside solids and,
/// on x and z faces, below the inflow height. `feeds` holds one entry per face. Returns the
/// particles seeded through each face.
pub fn feed_inflow(
    spec: &GridSpec,
    solids: &Solids,
    feeds: &mut [InflowFeed; 6],
    dt: f32,
    jitter: f32,
    seed: u64,
    particles: &mut Particles,
) -> [usize; 6] {
    let mut entered = [0usize; 6];
    let axes = spec.dimension();
    let h = spec.dx / INFLOW_STRATA as f32;
    let ext = spec.extent();
    for side in 0..2 * axes {
        let Side::Inflow(inflow) = solids.sides.0[side] else {
            continue;
        };
        let (a, hi) = (side / 2, side % 2 == 1);
        let feed = &mut feeds[side];
        feed.fed += f64::from(inflow.speed) * f64::from(dt);
        let inward = if hi { -1.0 } else { 1.0 };
        let mut vel = Vec3::ZERO;
        vel[a] = inward * inflow.speed;
        // the tangential lattice: the other axes, h apart
        let tangents: Vec<usize> = (0..axes).filter(|&t| t != a).collect();
        let counts: Vec<usize> = tangents
            .iter()
            .map(|&t| (ext[t] / h).round() as usize)
            .collect();
        let total: usize = counts.iter().product();
        loop {
            let depth = feed.fed - (feed.layers as f64 + 0.5) * f64::from(h);
            if depth < 0.0 {
                break;
            }
            let layer = feed.layers;
            feed.layers += 1;
            for cell in 0..total {
                let key = seed ^ mix((side as u64) << 56 ^ layer << 24 ^ cell as u64);
                let mut p = Vec3::splat(0.5 * spec.dx);
                let mut rest = cell;
                for (n, (&t, &count)) in tangents.iter().zip(&counts).enumerate() {
                    let r = unit(mix(key ^ (n as u64 + 1))) - 0.5;
                    p[t] = ((rest % count) as f32 + 0.5 + jitter * r) * h;
                    rest /= count;
                }
                let r = unit(mix(key ^ 0xa5a5)) - 0.5;
                let d = (depth as f32 + jitter * r * h).max(1e-3 * spec.dx);
                p[a] = if hi { ext[a] - d } else { d };
                let below = a == 1 || inflow.height <= 0.0 || p.y < inflow.height;
                if below && solids.distance(p) > 0.0 {
                    particles.push(p, vel);
                    entered[side] += 1;
                }
            }
        }
    }
    entered
}

/// A sink: removes the liquid inside `shape`, completely (`rate` = `None`) or at `rate` (fraction
/// per second: each particle inside leaves in a step with probability `1 − e^{−rate·dt}`, the
/// exponential decay `dV/dt = −rate·V`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sink {
    /// Where liquid is removed.
    pub shape: Shape,
    /// Fraction per second, or everything at once.
    pub rate: Option<f32>,
}

impl Sink {
    /// Removes the particles inside, drawing per particle id and `step` for the rate; returns
    /// how many left.
    pub fn drain(&self, spec: &GridSpec, particles: &mut Particles, dt: f32, step: u64) -> usize {
        let chance = self
            .rate
            .map(|r| 1.0 - (-f64::from(r) * f64::from(dt)).exp());
        if chance.is_some_and(|c| c <= 0.0) {
            return 0;
        }
        let key = mix(step);
        let mut removed = 0;
        let keep: Vec<bool> = (0..particles.len())
            .map(|i| {
                let inside = self.shape.distance(particles.pos[i], spec) < 0.0;
                let leaves = inside
                    && chance.is_none_or(|c| f64::from(unit(mix(key ^ particles.id_of(i)))) < c);
                removed += usize::from(leaves);
                !leaves
            })
            .collect();
        if removed > 0 {
            particles.retain_mask(&keep);
        }
        removed
    }
}
