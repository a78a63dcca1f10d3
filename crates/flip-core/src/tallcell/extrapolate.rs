//! Velocity extrapolation on the tall-cell grid (the paper's VE stage; Karlsson §4.3's
//! layer-by-layer averaging): samples of faces with no liquid on either side take the mean of
//! their valid neighbours (the next and previous slot of the column, and the neighbouring
//! columns at the same height through the paper's rule), one layer at a time in Jacobi order.

use super::grid::{Lookup, Stagger, TallGrid};
use super::sample::{at, value, Outside};
use super::state::TallLiquid;

/// Whether a velocity sample touches liquid: an open face with a liquid cell on a side.
fn touches_liquid(liquid: &TallLiquid, stagger: Stagger, i: usize, s: usize) -> bool {
    let g = &liquid.grid;
    let y = g.row(stagger, i, s) as i64;
    let wet = |c: i64, r: i64| at(g, &liquid.phi, Stagger::Centre, c, r, Outside::LevelSet) < 0.0;
    let (i_, c) = (i as i64, g.index(i, s));
    match stagger {
        Stagger::FaceX => g.open_x(i, y) > 0.0 && (wet(i_ - 1, y) || wet(i_, y)),
        Stagger::FaceY => !g.closed_y(i, s) && (wet(i_, y - 1) || wet(i_, y)),
        Stagger::Centre => liquid.phi[c] < 0.0,
    }
}

/// Valid neighbours' mean of sample (`i`, `s`), if it has any.
fn neighbour_mean(
    g: &TallGrid,
    field: &[f32],
    valid: &[bool],
    stagger: Stagger,
    (i, s): (usize, usize),
) -> Option<f32> {
    let (mut sum, mut n) = (0.0, 0u32);
    let y = g.row(stagger, i, s) as i64;
    for t in [s.wrapping_sub(1), s + 1] {
        if t < g.slots() && valid[g.index(i, t)] {
            sum += field[g.index(i, t)];
            n += 1;
        }
    }
    let last = if stagger == Stagger::FaceX {
        g.columns
    } else {
        g.columns - 1
    };
    for j in [i.wrapping_sub(1), i + 1] {
        if j > last {
            continue;
        }
        let lk = g.lookup(stagger, j, y);
        if let Lookup::Mix(parts) = lk {
            if parts.iter().all(|&(c, w)| w == 0.0 || valid[c]) {
                sum += value(g, field, lk, Outside::Velocity);
                n += 1;
            }
        }
    }
    (n > 0).then(|| sum / n as f32)
}

/// Extrapolates one velocity component `layers` samples into the air.
fn extrapolate_component(liquid: &TallLiquid, stagger: Stagger, layers: usize) -> Vec<f32> {
    let g = &liquid.grid;
    let mut field = match stagger {
        Stagger::FaceX => liquid.u.clone(),
        _ => liquid.v.clone(),
    };
    let mut valid: Vec<bool> = (0..g.columns)
        .flat_map(|i| (0..g.slots()).map(move |s| (i, s)))
        .map(|(i, s)| touches_liquid(liquid, stagger, i, s))
        .collect();
    for _ in 0..layers {
        let mut filled = Vec::new();
        for i in 0..g.columns {
            for s in 0..g.slots() {
                let c = g.index(i, s);
                if valid[c] {
                    continue;
                }
                if let Some(m) = neighbour_mean(g, &field, &valid, stagger, (i, s)) {
                    filled.push((c, m));
                }
            }
        }
        if filled.is_empty() {
            break;
        }
        for (c, m) in filled {
            field[c] = m;
            valid[c] = true;
        }
    }
    field
}

/// Extrapolates both components into the air (`layers` samples), keeping walls closed.
pub fn extrapolate_velocity(liquid: &mut TallLiquid, layers: usize) {
    let u = extrapolate_component(liquid, Stagger::FaceX, layers);
    let v = extrapolate_component(liquid, Stagger::FaceY, layers);
    (liquid.u, liquid.v) = (u, v);
    super::advect::enforce_walls(liquid);
}
