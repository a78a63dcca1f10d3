//! Velocity extrapolation on the tall-cell grid (the paper's VE stage; Karlsson §4.3's
//! layer-by-layer averaging): samples of faces with no liquid on either side take the mean of
//! their valid neighbours (the next and previous slot of the column, and the neighbouring
//! columns along x and z at the same height through the paper's rule), one layer at a time
//! in Jacobi order.

use super::advect::far;
use super::grid::{Lookup, Stagger, TallGrid};
use super::sample::{at, last, value, Outside};
use super::state::TallLiquid;
use super::PAR_MIN;
use rayon::prelude::*;

/// Whether a velocity sample touches liquid: an open face with a liquid cell on a side.
fn touches_liquid(liquid: &TallLiquid, stagger: Stagger, c: usize, s: usize) -> bool {
    let g = &liquid.grid;
    let y = g.row(stagger, c, s) as i64;
    let wet =
        |ik: [i64; 2], r: i64| at(g, &liquid.phi, Stagger::Centre, ik, r, Outside::LevelSet) < 0.0;
    let (i, k) = g.ik(c);
    let ik = [i as i64, k as i64];
    match stagger {
        Stagger::FaceX => g.open(0, (i, k), y) > 0.0 && (wet([ik[0] - 1, ik[1]], y) || wet(ik, y)),
        Stagger::FaceZ => g.open(1, (i, k), y) > 0.0 && (wet([ik[0], ik[1] - 1], y) || wet(ik, y)),
        Stagger::FaceY => !g.closed_y(c, s) && (wet(ik, y - 1) || wet(ik, y)),
        Stagger::Centre => liquid.phi[g.index(c, s)] < 0.0,
    }
}

/// Valid neighbours' mean of sample (`c`, `s`), if it has any.
fn neighbour_mean(
    g: &TallGrid,
    field: &[f32],
    valid: &[bool],
    stagger: Stagger,
    (c, s): (usize, usize),
) -> Option<f32> {
    let (mut sum, mut n) = (0.0, 0u32);
    let y = g.row(stagger, c, s) as i64;
    for t in [s.wrapping_sub(1), s + 1] {
        if t < g.slots() && valid[g.index(c, t)] {
            sum += field[g.index(c, t)];
            n += 1;
        }
    }
    let (i, k) = g.ik(c);
    let [li, lk] = last(g, stagger).map(|v| v as usize);
    let across = [
        (i.wrapping_sub(1), k),
        (i + 1, k),
        (i, k.wrapping_sub(1)),
        (i, k + 1),
    ];
    for (j, m) in across {
        if j > li || m > lk {
            continue;
        }
        let lk = g.lookup(stagger, (j, m), y);
        if let Lookup::Mix(parts) = lk {
            if parts.iter().all(|&(c, w)| w == 0.0 || valid[c]) {
                sum += value(g, field, lk, Outside::Velocity);
                n += 1;
            }
        }
    }
    (n > 0).then(|| sum / n as f32)
}

/// Extrapolates one velocity component (`field`, staggered as `stagger`) `layers` samples
/// into the air.
fn extrapolate_component(
    liquid: &TallLiquid,
    field: &[f32],
    stagger: Stagger,
    layers: usize,
) -> Vec<f32> {
    let g = &liquid.grid;
    let mut field = field.to_vec();
    let mut valid: Vec<bool> = (0..g.sample_count())
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .map(|n| touches_liquid(liquid, stagger, n / g.slots(), n % g.slots()))
        .collect();
    // samples the layers can reach: within `layers` cells (and a margin) of the surface
    let reach = (layers + 2) as f32 * g.dx;
    let near: Vec<usize> = (0..g.sample_count())
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .filter(|&n| !far(liquid, stagger, (n / g.slots(), n % g.slots()), reach))
        .collect();
    for _ in 0..layers {
        let filled: Vec<(usize, f32)> = near
            .par_iter()
            .with_min_len(PAR_MIN)
            .copied()
            .filter(|&n| !valid[n])
            .filter_map(|n| {
                let cs = (n / g.slots(), n % g.slots());
                neighbour_mean(g, &field, &valid, stagger, cs).map(|m| (n, m))
            })
            .collect();
        if filled.is_empty() {
            break;
        }
        for (n, m) in filled {
            field[n] = m;
            valid[n] = true;
        }
    }
    field
}

/// Extrapolates every component into the air (`layers` samples), keeping walls closed.
pub fn extrapolate_velocity(liquid: &mut TallLiquid, layers: usize) {
    let u = extrapolate_component(liquid, &liquid.u, Stagger::FaceX, layers);
    let v = extrapolate_component(liquid, &liquid.v, Stagger::FaceY, layers);
    if liquid.grid.is_3d() {
        liquid.w = extrapolate_component(liquid, &liquid.w, Stagger::FaceZ, layers);
    }
    (liquid.u, liquid.v) = (u, v);
    super::advect::enforce_walls(liquid);
}
