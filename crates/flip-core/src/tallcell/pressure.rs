//! The pressure projection on the tall-cell grid (the paper's PP stage): the point-wise
//! Laplacian and divergence at every liquid sample, neighbours read through the paper's rule
//! (a neighbour inside a tall cell is the linear mix of its bottom and top), the ghost-fluid
//! free surface (Gibou et al. 2002) and solid face fractions through the FLIP assembly's
//! stencil rule (`flip_sdk::stencil`), posed as a general sparse (CSR) problem.
//!
//! Unknowns are `p̂ = p·Δt/(ρ·Δx)` (m/s): the update is `u −= p̂_right − p̂_left` and the rows
//! read `Σ w·(p̂_c − p̂_nb) = −Δx·div u*`. With every tall cell two cells high the matrix is
//! the symmetric MAC matrix; with taller cells the interpolation weights make it unsymmetric
//! (a sample beside a tall cell couples to its bottom and top, which do not couple back with
//! the same weights), which [`TallPressure::csr`]'s `symmetric` flag reports.

use super::geometry::geometry;
use super::grid::{Lookup, Stagger, TallGrid};
use super::sample::{value, value64, Outside};
use super::state::TallLiquid;
use super::PAR_MIN;
use flip_sdk::stencil::{dirichlet_weight, ghost_theta};
use flip_sdk::{merge_row, OwnedCsr, OwnedTallGeometry, TallCellProblem};
use rayon::prelude::*;

/// An assembled tall-cell pressure problem.
#[derive(Clone, Debug)]
pub struct TallPressure {
    /// The system, rows in sample order (`csr.cells` holds each row's flat sample index).
    pub csr: OwnedCsr,
    /// Pascals per unit of the unknown (`ρ·Δx/Δt`).
    pub scale: f64,
    /// The grid the system lives on (for solvers that take the tall-cell kind).
    pub geometry: OwnedTallGeometry,
}

impl TallPressure {
    /// The system with its grid, as a tall-cell problem.
    pub fn tallcell(&mut self) -> TallCellProblem<'_> {
        self.geometry.problem(&mut self.csr)
    }
}

/// The side faces of cell (`c`, row `y`): open fraction and the neighbour column position,
/// x−, x+, z−, z+ (the z faces of a 2D grid are closed walls).
fn sides(g: &TallGrid, c: usize, y: i64) -> [(f32, [i64; 2]); 4] {
    let (i, k) = g.ik(c);
    let (i_, k_) = (i as i64, k as i64);
    [
        (g.open(0, (i, k), y), [i_ - 1, k_]),
        (g.open(0, (i + 1, k), y), [i_ + 1, k_]),
        (g.open(1, (i, k), y), [i_, k_ - 1]),
        (g.open(1, (i, k + 1), y), [i_, k_ + 1]),
    ]
}

/// The bottom and top faces of cell (`c`, row `y`): open fraction and the neighbour's row.
fn vertical(g: &TallGrid, c: usize, y: i64) -> [(f32, i64); 2] {
    let below = if y > g.terrain[c] as i64 { 1.0 } else { 0.0 };
    let above = if y + 1 < g.height as i64 { 1.0 } else { 0.0 };
    [(below, y - 1), (above, y + 1)]
}

/// Centre lookup at (`i`, `k`, `y`), columns clamped.
fn centre(g: &TallGrid, [i, k]: [i64; 2], y: i64) -> Lookup {
    let [nx, nz] = g.columns.map(|n| n as i64 - 1);
    let ik = (i.clamp(0, nx) as usize, k.clamp(0, nz) as usize);
    g.lookup(Stagger::Centre, ik, y)
}

/// Centre lookup at row `y` of column `c`.
fn own(g: &TallGrid, c: usize, y: i64) -> Lookup {
    g.lookup(Stagger::Centre, g.ik(c), y)
}

/// Whether sample `s` of column `c` stands for a block of cells: a tall cell's bottom stands
/// for every cell of the tall cell but the top one. `v` is linear in a tall cell from the
/// closed terrain face to the top cell's bottom face (slot 1), so the block's outflow is its
/// side faces' plus slot 1's; its row is `D·G` of that block (each row of the block coupled
/// through the paper's rule on every side), so the projection leaves no volume source inside
/// tall cells. Two-cell tall cells (the MAC grid) are ordinary samples.
fn is_block(g: &TallGrid, c: usize, s: usize) -> bool {
    s == 0 && g.tall[c] > super::grid::MIN_TALL
}

/// The rows of column `c`'s block: the tall cell's rows below its top row.
fn block_rows(g: &TallGrid, c: usize) -> std::ops::Range<i64> {
    let h0 = g.terrain[c] as i64;
    h0..h0 + g.tall[c] as i64 - 1
}

/// `Δx·(net outflow)` through the side faces of cell (`c`, row `y`), faces weighted by their
/// open fraction.
fn side_flux(liquid: &TallLiquid, c: usize, y: i64) -> f64 {
    let g = &liquid.grid;
    let (i, k) = g.ik(c);
    let flux = |field: &[f32], stagger: Stagger, axis: usize, ik: (usize, usize)| {
        let lk = g.lookup(stagger, ik, y);
        f64::from(g.open(axis, ik, y)) * value64(g, field, lk, Outside::Velocity)
    };
    let x =
        flux(&liquid.u, Stagger::FaceX, 0, (i + 1, k)) - flux(&liquid.u, Stagger::FaceX, 0, (i, k));
    if !g.is_3d() {
        return x;
    }
    x + flux(&liquid.w, Stagger::FaceZ, 1, (i, k + 1)) - flux(&liquid.w, Stagger::FaceZ, 1, (i, k))
}

/// `Δx·(outflow)` of sample `s` of column `c`: its cell's, or its block's.
fn flux_out(liquid: &TallLiquid, c: usize, s: usize) -> f64 {
    let g = &liquid.grid;
    if !is_block(g, c, s) {
        return divergence_dx(liquid, c, g.row(Stagger::Centre, c, s) as i64);
    }
    let sides: f64 = block_rows(g, c).map(|y| side_flux(liquid, c, y)).sum();
    sides + f64::from(liquid.v[g.index(c, 1)])
}

/// `Δx·div u` at cell sample (`c`, row `y`), faces weighted by their open fraction.
pub fn divergence_dx(liquid: &TallLiquid, c: usize, y: i64) -> f64 {
    let g = &liquid.grid;
    let v = |r: i64| {
        let lk = g.lookup(Stagger::FaceY, g.ik(c), r);
        value64(g, &liquid.v, lk, Outside::Velocity)
    };
    side_flux(liquid, c, y) + v(y + 1) - v(y)
}

/// Row numbers of the unknowns (liquid cell samples under the lid), `u32::MAX` elsewhere.
fn unknowns(liquid: &TallLiquid) -> Vec<u32> {
    let g = &liquid.grid;
    let mut next = 0u32;
    (0..g.sample_count())
        .map(|n| {
            let (c, s) = (n / g.slots(), n % g.slots());
            if liquid.phi[n] < 0.0 && liquid.inside(c, s) {
                next += 1;
                next - 1
            } else {
                u32::MAX
            }
        })
        .collect()
}

/// The entries of sample `n`'s row (row `r`): its cell's faces, or its block's.
fn row_entries(liquid: &TallLiquid, row_of: &[u32], n: usize, r: u32) -> Vec<(u32, f64)> {
    let g = &liquid.grid;
    let (c, s) = (n / g.slots(), n % g.slots());
    let (i, k) = g.ik(c);
    let ik = [i as i64, k as i64];
    let y = g.row(Stagger::Centre, c, s) as i64;
    let me = own(g, c, y);
    let mut row = vec![(r, 0.0f64)];
    let block = is_block(g, c, s);
    if !block {
        for (w, nb) in sides(g, c, y) {
            if w > 0.0 {
                couple(liquid, row_of, (me, w), centre(g, nb, y), &mut row);
            }
        }
    }
    for (w, ny) in vertical(g, c, y) {
        if w > 0.0 {
            couple(liquid, row_of, (me, w), centre(g, ik, ny), &mut row);
        }
    }
    for y in block_rows(g, c).filter(|_| block) {
        let me = own(g, c, y);
        for (w, nb) in sides(g, c, y) {
            if w > 0.0 {
                couple(liquid, row_of, (me, w), centre(g, nb, y), &mut row);
            }
        }
    }
    merge_row(&mut row);
    row
}

/// Assembles the problem for `liquid` after forces (`density` kg/m³, step `dt` s); the
/// previous pressure is the initial guess.
pub fn assemble(liquid: &TallLiquid, density: f32, dt: f32) -> TallPressure {
    let g = &liquid.grid;
    let scale = f64::from(density) * f64::from(g.dx) / f64::from(dt);
    let row_of = unknowns(liquid);
    let samples: Vec<(usize, u32)> = row_of
        .iter()
        .enumerate()
        .filter(|e| *e.1 != u32::MAX)
        .map(|(n, &r)| (n, r))
        .collect();
    let rows: Vec<(Vec<(u32, f64)>, f64)> = samples
        .par_iter()
        .with_min_len(PAR_MIN)
        .map(|&(n, r)| {
            let (c, s) = (n / g.slots(), n % g.slots());
            (row_entries(liquid, &row_of, n, r), -flux_out(liquid, c, s))
        })
        .collect();
    let mut csr = OwnedCsr {
        row_ptr: vec![0],
        ..OwnedCsr::default()
    };
    for (&(n, _), (row, rhs)) in samples.iter().zip(rows) {
        csr.col_idx.extend(row.iter().map(|e| e.0));
        csr.values.extend(row.iter().map(|e| e.1));
        csr.row_ptr.push(csr.col_idx.len() as u64);
        csr.rhs.push(rhs);
        csr.pressure.push(f64::from(liquid.pressure[n]) / scale);
        csr.cells.push(n);
    }
    csr.symmetric = is_symmetric(&csr);
    let geometry = geometry(liquid, &csr.cells);
    TallPressure {
        csr,
        scale,
        geometry,
    }
}

/// Adds one face of the cell at `own` (a sample, or a row inside a tall cell: the mix of its
/// bottom and top) with open fraction `w` towards the neighbour `lk` to `row`: a Dirichlet
/// term at the ghost-fluid distance towards air, else `w·(p̂_own − p̂_nb)`, each side spread
/// over the liquid samples of its mix.
fn couple(
    liquid: &TallLiquid,
    row_of: &[u32],
    (own, w): (Lookup, f32),
    lk: Lookup,
    row: &mut Vec<(u32, f64)>,
) {
    let g = &liquid.grid;
    let phi_c = value(g, &liquid.phi, own, Outside::LevelSet);
    let phi_n = value(g, &liquid.phi, lk, Outside::LevelSet);
    let mut add = |lk: Lookup, coef: f64| {
        if let Lookup::Mix(parts) = lk {
            for (sample, weight) in parts {
                if weight != 0.0 && row_of[sample] != u32::MAX {
                    row.push((row_of[sample], coef * weight));
                }
            }
        }
    };
    match lk {
        Lookup::Mix(_) if phi_n < 0.0 => {
            add(own, f64::from(w));
            add(lk, -f64::from(w));
        }
        _ => add(own, f64::from(dirichlet_weight(w, phi_c, phi_n.max(0.0)))),
    }
}

/// Whether `A = Aᵀ` to rounding.
fn is_symmetric(csr: &OwnedCsr) -> bool {
    let entry = |r: usize, c: u32| {
        let (a, b) = (csr.row_ptr[r] as usize, csr.row_ptr[r + 1] as usize);
        csr.col_idx[a..b]
            .binary_search(&c)
            .ok()
            .map(|k| csr.values[a + k])
    };
    (0..csr.rhs.len())
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .all(|r| {
            let (a, b) = (csr.row_ptr[r] as usize, csr.row_ptr[r + 1] as usize);
            (a..b).all(|k| {
                let back = entry(csr.col_idx[k] as usize, r as u32);
                back.is_some_and(|v| (v - csr.values[k]).abs() <= 1e-9 * v.abs().max(1.0))
            })
        })
}

/// The unknowns' value at `lk` in double precision (zero in the air): the difference of two
/// large hydrostatic pressures is taken before rounding to the velocity's `f32`.
fn pressure_at(p: &[f64], lk: Lookup) -> f64 {
    match lk {
        Lookup::Mix(parts) => parts.iter().map(|&(c, w)| w * p[c]).sum(),
        _ => 0.0,
    }
}

/// `p̂(L2) − p̂(L1)` across a face from cell `L1` to cell `L2`, with the ghost-fluid value on
/// an air side; `None` when both sides are air.
fn difference(g: &TallGrid, phi: &[f32], p: &[f64], l1: Lookup, l2: Lookup) -> Option<f32> {
    let side = |lk: Lookup| {
        let f = value(g, phi, lk, Outside::LevelSet);
        let wet = matches!(lk, Lookup::Mix(_)) && f < 0.0;
        (f, wet, pressure_at(p, lk))
    };
    let ((f1, w1, p1), (f2, w2, p2)) = (side(l1), side(l2));
    let d = match (w1, w2) {
        (true, true) => p2 - p1,
        (true, false) => -p1 / f64::from(ghost_theta(f1, f2.max(0.0))),
        (false, true) => p2 / f64::from(ghost_theta(f2, f1.max(0.0))),
        (false, false) => return None,
    };
    Some(d as f32)
}

/// `Δp̂` across the face of `stagger` at sample (`c`, `s`), if the face is open and next to
/// liquid.
fn face_difference(
    g: &TallGrid,
    phi: &[f32],
    p: &[f64],
    stagger: Stagger,
    (c, s): (usize, usize),
) -> Option<f32> {
    let (i, k) = g.ik(c);
    let ik = [i as i64, k as i64];
    let y = g.row(stagger, c, s) as i64;
    let (open, low) = match stagger.axis() {
        Some(0) => (g.open(0, (i, k), y) > 0.0, centre(g, [ik[0] - 1, ik[1]], y)),
        Some(_) => (g.open(1, (i, k), y) > 0.0, centre(g, [ik[0], ik[1] - 1], y)),
        None => (!g.closed_y(c, s), centre(g, ik, y - 1)),
    };
    if !open {
        return None;
    }
    difference(g, phi, p, low, centre(g, ik, y))
}

/// Applies the solved pressure: `u −= Δp̂` on every open face next to liquid, stores the
/// pressure in pascals. Returns the largest `|div u|` (1/s) left at a liquid sample.
pub fn apply(liquid: &mut TallLiquid, problem: &TallPressure) -> f32 {
    let g = &liquid.grid;
    let mut p = vec![0.0f64; g.sample_count()];
    for (&n, &x) in problem.csr.cells.iter().zip(&problem.csr.pressure) {
        p[n] = x;
    }
    let slots = g.slots();
    let mut fields = vec![
        (&mut liquid.u, Stagger::FaceX),
        (&mut liquid.v, Stagger::FaceY),
    ];
    if g.is_3d() {
        fields.push((&mut liquid.w, Stagger::FaceZ));
    }
    for (field, stagger) in fields {
        field
            .par_chunks_mut(slots)
            .with_min_len(PAR_MIN / slots)
            .enumerate()
            .for_each(|(c, col)| {
                for (s, q) in col.iter_mut().enumerate() {
                    if let Some(d) = face_difference(g, &liquid.phi, &p, stagger, (c, s)) {
                        *q -= d;
                    }
                }
            });
    }
    liquid.pressure = p.iter().map(|&x| (x * problem.scale) as f32).collect();
    max_divergence(liquid, &problem.csr.cells)
}

/// Largest `|div u|` (1/s) over the given cell samples.
fn max_divergence(liquid: &TallLiquid, samples: &[usize]) -> f32 {
    let g = &liquid.grid;
    samples
        .par_iter()
        .with_min_len(PAR_MIN)
        .map(|&n| {
            let (c, s) = (n / g.slots(), n % g.slots());
            let cells = if is_block(g, c, s) { g.tall[c] - 1 } else { 1 };
            (flux_out(liquid, c, s).abs() / cells as f64 / f64::from(g.dx)) as f32
        })
        .reduce(|| 0.0, f32::max)
}
