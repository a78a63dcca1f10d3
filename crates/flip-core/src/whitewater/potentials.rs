//! The generation potentials of Ihmsen et al. 2012 §3, evaluated on the grid: the neighbours of
//! a fluid particle there become the cells around the particle's cell, with the cell-centred
//! velocity and the level set's normal.

use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use glam::Vec3;
use rayon::prelude::*;

/// Φ(I, τmin, τmax) (eq. 1): `I` clamped to `[τmin, τmax]` and mapped to `[0, 1]`.
pub fn clamp_potential(value: f32, [lo, hi]: [f32; 2]) -> f32 {
    (value.min(hi) - value.min(lo)) / (hi - lo)
}

/// Per-cell potentials, computed only where particles may emit. The sums are divided by the
/// kernel's total weight over the neighbourhood, so that the clamping ranges mean the same in
/// 2D (8 neighbours) and 3D (26).
pub(crate) struct Potentials {
    /// Unclamped trapped-air potential `Σ ‖v_ij‖ (1 − v̂_ij·x̂_ij) W(x_ij)` (eq. 2), m/s.
    pub trapped_air: Vec<f32>,
    /// Unclamped crest curvature `Σ κ_ij W(x_ij)` (eq. 3-4), 0 away from the surface.
    pub curvature: Vec<f32>,
    /// The level set's unit normal (outwards), zero where it has no gradient.
    pub normal: Vec<Vec3>,
}

/// Kernel support in cells: `W(x) = 1 − ‖x‖/h` with `h = 2 dx` (the paper's radially
/// symmetric weight), which reaches the 26 (3D) or 8 (2D) neighbouring cells.
const SUPPORT: f32 = 2.0;

/// The neighbour offsets of a cell and their kernel weights.
fn neighbours(is_2d: bool) -> Vec<([isize; 3], f32)> {
    let ks: &[isize] = if is_2d { &[0] } else { &[-1, 0, 1] };
    let mut out = Vec::new();
    for &k in ks {
        for j in -1..=1isize {
            for i in -1..=1isize {
                if (i, j, k) != (0, 0, 0) {
                    let r = ((i * i + j * j + k * k) as f32).sqrt();
                    out.push(([i, j, k], 1.0 - r / SUPPORT));
                }
            }
        }
    }
    out
}

/// Cell-centred velocity: the mean of each component's two faces.
fn cell_velocity(spec: &GridSpec, vel: &MacGrid) -> Vec<Vec3> {
    let [ni, nj, nk] = spec.dims();
    (0..ni * nj * nk)
        .into_par_iter()
        .with_min_len(4096)
        .map(|c| {
            let (i, j, k) = (c % ni, (c / ni) % nj, c / (ni * nj));
            let u = 0.5 * (vel.u[(i, j, k)] + vel.u[(i + 1, j, k)]);
            let v = 0.5 * (vel.v[(i, j, k)] + vel.v[(i, j + 1, k)]);
            let w = if spec.is_2d() {
                0.0
            } else {
                0.5 * (vel.w[(i, j, k)] + vel.w[(i, j, k + 1)])
            };
            Vec3::new(u, v, w)
        })
        .collect()
}

/// The level set's normal at a cell by central differences (one-sided at the domain's edge).
fn normal_at(phi: &Grid3<f32>, is_2d: bool, [i, j, k]: [usize; 3]) -> Vec3 {
    let [ni, nj, nk] = phi.dims();
    let diff = |lo: f32, hi: f32, span: usize| (hi - lo) / span as f32;
    let along = |n: usize, x: usize, at: &dyn Fn(usize) -> f32| {
        let (a, b) = (x.saturating_sub(1), (x + 1).min(n - 1));
        if a == b {
            0.0
        } else {
            diff(at(a), at(b), b - a)
        }
    };
    let gx = along(ni, i, &|x| phi[(x, j, k)]);
    let gy = along(nj, j, &|y| phi[(i, y, k)]);
    let gz = if is_2d {
        0.0
    } else {
        along(nk, k, &|z| phi[(i, j, z)])
    };
    Vec3::new(gx, gy, gz).normalize_or_zero()
}

/// The potentials of every cell with `−depth_cells·dx ≤ φ ≤ dx` (zero elsewhere).
pub(crate) fn potentials(
    spec: &GridSpec,
    vel: &MacGrid,
    phi: &Grid3<f32>,
    depth_cells: f32,
) -> Potentials {
    let dims = spec.dims();
    let [ni, nj, _] = dims;
    let is_2d = spec.is_2d();
    let dx = spec.dx;
    let near = |p: f32| p >= -depth_cells * dx && p <= dx;
    let cell_vel = cell_velocity(spec, vel);
    let normal: Vec<Vec3> = (0..phi.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|c| {
            let at = [c % ni, (c / ni) % nj, c / (ni * nj)];
            if phi.data[c].abs() <= 2.0 * dx {
                normal_at(phi, is_2d, at)
            } else {
                Vec3::ZERO
            }
        })
        .collect();
    let offsets = neighbours(is_2d);
    let total: f32 = offsets.iter().map(|&(_, w)| w).sum();
    let inside = |at: [usize; 3], o: [isize; 3]| -> Option<usize> {
        let q = [0, 1, 2].map(|a| at[a] as isize + o[a]);
        (0..3)
            .all(|a| q[a] >= 0 && (q[a] as usize) < dims[a])
            .then(|| q[0] as usize + ni * (q[1] as usize + nj * q[2] as usize))
    };
    let (trapped_air, curvature): (Vec<f32>, Vec<f32>) = (0..phi.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|c| {
            if !near(phi.data[c]) {
                return (0.0, 0.0);
            }
            let at = [c % ni, (c / ni) % nj, c / (ni * nj)];
            let (vi, ni_) = (cell_vel[c], normal[c]);
            let (mut ta, mut kappa) = (0.0f32, 0.0f32);
            for &(o, w) in &offsets {
                let Some(n) = inside(at, o) else { continue };
                if phi.data[n] >= 0.0 {
                    continue; // the paper's sums run over fluid neighbours only
                }
                // x_ij = x_i − x_j points from the neighbour to this cell
                let x_ij = -Vec3::new(o[0] as f32, o[1] as f32, o[2] as f32).normalize();
                let v_ij = vi - cell_vel[n];
                let speed = v_ij.length();
                if speed > 0.0 {
                    ta += speed * (1.0 - (v_ij / speed).dot(x_ij)) * w; // eq. 2
                }
                // eq. 3-4: only neighbours behind the surface (x̂_ji·n̂_i < 0) bend it
                if ni_ != Vec3::ZERO && normal[n] != Vec3::ZERO && (-x_ij).dot(ni_) < 0.0 {
                    kappa += (1.0 - ni_.dot(normal[n])) * w;
                }
            }
            (ta / total, kappa / total)
        })
        .unzip();
    Potentials {
        trapped_air,
        curvature,
        normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clamp_maps_the_range_onto_zero_to_one() {
        assert_eq!(clamp_potential(1.0, [2.0, 8.0]), 0.0);
        assert_eq!(clamp_potential(5.0, [2.0, 8.0]), 0.5);
        assert_eq!(clamp_potential(80.0, [2.0, 8.0]), 1.0);
    }

    #[test]
    fn liquid_converging_on_a_cell_traps_air_and_liquid_at_rest_does_not() {
        let spec = GridSpec::new(9, 9, 1, 0.1);
        let mut phi = Grid3::new(9, 9, 1, -0.05f32);
        phi.fill(-0.05);
        let mut vel = MacGrid::zeros(&spec);
        let rest = potentials(&spec, &vel, &phi, 3.0);
        assert!(rest.trapped_air.iter().all(|&t| t == 0.0));
        // u = -x about the centre column: liquid flows towards x = 0.45 from both sides
        for j in 0..9 {
            for i in 0..10 {
                vel.u[(i, j, 0)] = 0.45 - i as f32 * 0.1;
            }
        }
        let p = potentials(&spec, &vel, &phi, 3.0);
        let c = |i: usize, j: usize| i + 9 * j;
        assert!(p.trapped_air[c(4, 4)] > 0.0);
        // diverging flow (the sign flipped) traps less air than converging flow
        for u in vel.u.data.iter_mut() {
            *u = -*u;
        }
        let q = potentials(&spec, &vel, &phi, 3.0);
        assert!(q.trapped_air[c(4, 4)] < p.trapped_air[c(4, 4)]);
    }
}
