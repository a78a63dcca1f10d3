//! Reading fields stored on the tall-cell grid at any position: the paper's whole-cell rule
//! ([`TallGrid::lookup`]) with a per-quantity value below the terrain and above the regular
//! cells, and trilinear interpolation between whole-cell positions (bilinear across the
//! columns times the tall-cell rule vertically; bilinear in x-y in 2D).

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

/// The largest (`i`, `k`) of `stagger`'s sample positions: columns, or faces up to the far
/// wall along the face's axis.
#[inline]
pub fn last(grid: &TallGrid, stagger: Stagger) -> [i64; 2] {
    let [nx, nz] = grid.columns.map(|n| n as i64);
    match stagger {
        Stagger::FaceX => [nx, nz - 1],
        Stagger::FaceZ => [nx - 1, nz],
        _ => [nx - 1, nz - 1],
    }
}

/// `field` at whole-cell position (`i`, `k`, `y`); columns (faces) beyond the domain read
/// the nearest one.
#[inline]
pub fn at(
    grid: &TallGrid,
    field: &[f32],
    stagger: Stagger,
    [i, k]: [i64; 2],
    y: i64,
    outside: Outside,
) -> f32 {
    let [li, lk] = last(grid, stagger);
    let ik = (i.clamp(0, li) as usize, k.clamp(0, lk) as usize);
    value(grid, field, grid.lookup(stagger, ik, y), outside)
}

/// Offsets (cells) of `stagger`'s samples from the cell corner, x, y, z.
fn offsets(stagger: Stagger) -> [f32; 3] {
    match stagger {
        Stagger::Centre => [0.5, 0.5, 0.5],
        Stagger::FaceX => [0.0, 0.5, 0.5],
        Stagger::FaceY => [0.5, 0.0, 0.5],
        Stagger::FaceZ => [0.5, 0.5, 0.0],
    }
}

/// Trilinear interpolation of `field` at world position `p` = (x, y, z) in metres (in 2D
/// the z coordinate is ignored for every field but `w`).
pub fn sample(
    grid: &TallGrid,
    field: &[f32],
    stagger: Stagger,
    p: [f32; 3],
    outside: Outside,
) -> f32 {
    let o = offsets(stagger);
    let f: [f32; 3] = std::array::from_fn(|a| p[a] / grid.dx - o[a]);
    let base = f.map(f32::floor);
    let [tx, ty, tz] = std::array::from_fn(|a| f[a] - base[a]);
    let [i0, j0, k0] = base.map(|b| b as i64);
    let q =
        |di: i64, dj: i64, dk: i64| at(grid, field, stagger, [i0 + di, k0 + dk], j0 + dj, outside);
    let plane = |dk: i64| {
        let lo = q(0, 0, dk) + tx * (q(1, 0, dk) - q(0, 0, dk));
        let hi = q(0, 1, dk) + tx * (q(1, 1, dk) - q(0, 1, dk));
        lo + ty * (hi - lo)
    };
    let near = plane(0);
    if !grid.is_3d() && stagger != Stagger::FaceZ {
        return near;
    }
    near + tz * (plane(1) - near)
}

/// World position (m) of slot `s` of column (side face) `c`.
pub fn position(grid: &TallGrid, stagger: Stagger, c: usize, s: usize) -> [f32; 3] {
    let row = grid.row(stagger, c, s) as f32;
    let (i, k) = grid.ik(c);
    let o = offsets(stagger);
    [i as f32 + o[0], row + o[1], k as f32 + o[2]].map(|v| v * grid.dx)
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
    for c in 0..new.column_count() {
        for s in 0..new.slots() {
            let y = new.row(stagger, c, s) as i64;
            let lk = old.lookup(stagger, new.ik(c), y);
            out[new.index(c, s)] = value(old, field, lk, outside);
        }
    }
    out
}
