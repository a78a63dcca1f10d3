//! Reading fields stored on the tall-cell grid at any position: the paper's whole-cell rule
//! ([`TallGrid::lookup`]) with a per-quantity value below the terrain and above the regular
//! cells, and bilinear interpolation between whole-cell positions.

use super::grid::{Lookup, Stagger, TallGrid};

/// What a field reads outside its samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outside {
    /// Velocity: zero in solids, the highest sample's value above the regular cells.
    Velocity,
    /// Level set: the lowest sample's value in solids, the highest sample's value plus the
    /// distance above it (a signed distance keeps growing into the air).
    LevelSet,
    /// Pressure: zero in the air (and solids are never read).
    Pressure,
}

/// The value of `field` that `lookup` describes, in double precision.
#[inline]
pub fn value64(grid: &TallGrid, field: &[f32], lookup: Lookup, outside: Outside) -> f64 {
    match lookup {
        Lookup::Mix([(a, wa), (b, wb)]) => {
            let vb = if wb == 0.0 {
                0.0
            } else {
                wb * f64::from(field[b])
            };
            wa * f64::from(field[a]) + vb
        }
        _ => f64::from(value(grid, field, lookup, outside)),
    }
}

/// The value of `field` that `lookup` describes.
#[inline]
pub fn value(grid: &TallGrid, field: &[f32], lookup: Lookup, outside: Outside) -> f32 {
    match (lookup, outside) {
        (Lookup::Mix(_), _) => value64(grid, field, lookup, outside) as f32,
        (Lookup::Solid { bottom }, Outside::LevelSet) => field[bottom],
        (Lookup::Solid { .. }, _) => 0.0,
        (Lookup::Air { top, above }, Outside::LevelSet) => field[top] + above * grid.dx,
        (Lookup::Air { top, .. }, Outside::Velocity) => field[top],
        (Lookup::Air { .. }, Outside::Pressure) => 0.0,
    }
}

/// `field` at whole-cell position (`i`, `y`); columns (faces) beyond the domain read the
/// nearest one.
#[inline]
pub fn at(
    grid: &TallGrid,
    field: &[f32],
    stagger: Stagger,
    i: i64,
    y: i64,
    outside: Outside,
) -> f32 {
    let last = match stagger {
        Stagger::FaceX => grid.columns,
        _ => grid.columns - 1,
    };
    let i = i.clamp(0, last as i64) as usize;
    value(grid, field, grid.lookup(stagger, i, y), outside)
}

/// Bilinear interpolation of `field` at world position (`x`, `y`) in metres.
pub fn sample(
    grid: &TallGrid,
    field: &[f32],
    stagger: Stagger,
    (x, y): (f32, f32),
    outside: Outside,
) -> f32 {
    let (ox, oy) = match stagger {
        Stagger::Centre => (0.5, 0.5),
        Stagger::FaceX => (0.0, 0.5),
        Stagger::FaceY => (0.5, 0.0),
    };
    let fx = x / grid.dx - ox;
    let fy = y / grid.dx - oy;
    let (i0, j0) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - i0, fy - j0);
    let (i0, j0) = (i0 as i64, j0 as i64);
    let q = |di: i64, dj: i64| at(grid, field, stagger, i0 + di, j0 + dj, outside);
    let lo = q(0, 0) + tx * (q(1, 0) - q(0, 0));
    let hi = q(0, 1) + tx * (q(1, 1) - q(0, 1));
    lo + ty * (hi - lo)
}

/// World position (m) of slot `s` of column (x face) `i`.
pub fn position(grid: &TallGrid, stagger: Stagger, i: usize, s: usize) -> (f32, f32) {
    let row = grid.row(stagger, i, s) as f32;
    let dx = grid.dx;
    match stagger {
        Stagger::Centre => ((i as f32 + 0.5) * dx, (row + 0.5) * dx),
        Stagger::FaceX => (i as f32 * dx, (row + 0.5) * dx),
        Stagger::FaceY => ((i as f32 + 0.5) * dx, row * dx),
    }
}

/// Re-samples `field` from layout `old` to layout `new` (the same columns; the paper's rule
/// of `old` at each of `new`'s sample rows).
pub fn resample(
    old: &TallGrid,
    new: &TallGrid,
    field: &[f32],
    stagger: Stagger,
    outside: Outside,
) -> Vec<f32> {
    let mut out = vec![0.0; new.sample_count()];
    for i in 0..new.columns {
        for s in 0..new.slots() {
            let y = new.row(stagger, i, s) as i64;
            out[new.index(i, s)] = value(old, field, old.lookup(stagger, i, y), outside);
        }
    }
    out
}
