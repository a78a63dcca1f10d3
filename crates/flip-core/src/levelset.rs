//! The liquid level set (negative inside), reinitialised to a signed distance by fast sweeping
//! (Karlsson §4.2, Zhao's Godunov update in 2D and 3D). Two methods:
//! - [`liquid_phi`] (`cells`): from the fluid cells (Karlsson Alg. 5); two Eikonal solves run
//!   side by side (`rayon::join`): the distance outside the liquid, sourced at fluid cells
//!   (`−dx/2`), and the distance inside it, sourced at air cells. The surface lies on cell faces.
//! - [`particle_phi`] (`particles`, the default for liquids): Zhu & Bridson 2005 from the
//!   particles themselves, so the surface lies where the particles end, between cell faces.

use crate::cells::{CellGrid, CellKind};
use crate::grid::{Grid3, GridSpec};
use rayon::prelude::*;

/// Alg. 5's `D`: far value in cells (at least twice the grid's size).
const FAR_CELLS: f32 = 1000.0;

mod contact;
#[cfg(test)]
mod particle_tests;
mod particles;
mod sweep;

pub(crate) use particles::shape_image;
pub use particles::{particle_phi, particle_phi_and_density, ParticlePhiScratch, Redistance};
pub(crate) use sweep::fast_sweep;

/// Builds the liquid signed distance (negative inside) on cell centres: Alg. 5 initialisation
/// (`−dx/2` on fluid cells, `D·dx` elsewhere), then `sweeps` fast-sweeping passes of the
/// Eikonal equation `|∇φ| = 1` (each pass: 4 orderings in 2D, 8 in 3D), on both sides of the
/// surface. Air cells get the distance to the liquid, fluid cells minus the distance to air;
/// solid cells get whichever is nearer (negative when the liquid is nearer, extending the
/// liquid into walls so that walls do not look like a free surface). Resizes `phi`.
pub fn liquid_phi(spec: &GridSpec, cells: &CellGrid, sweeps: usize, phi: &mut Grid3<f32>) {
    assert_eq!(cells.dims(), spec.dims(), "cells on another grid");
    let h = spec.dx;
    let far = FAR_CELLS.max(2.0 * (spec.ni + spec.nj + spec.nk) as f32) * h;
    phi.reset(spec.ni, spec.nj, spec.nk, far);
    let mut inside = vec![far; spec.cell_count()];
    phi.data
        .par_iter_mut()
        .zip(inside.par_iter_mut())
        .zip(cells.data.par_iter())
        .for_each(|((o, i), c)| match c {
            CellKind::Fluid => *o = -0.5 * h,
            CellKind::Air => *i = -0.5 * h,
            CellKind::Solid => {}
        });
    let mask = |kind: CellKind| -> Vec<u8> {
        cells
            .data
            .par_iter()
            .map(|c| u8::from(*c == kind))
            .collect()
    };
    let (fluid, air) = rayon::join(|| mask(CellKind::Fluid), || mask(CellKind::Air));
    rayon::join(
        || fast_sweep(spec, &fluid, &mut phi.data, sweeps),
        || fast_sweep(spec, &air, &mut inside, sweeps),
    );
    phi.data
        .par_iter_mut()
        .zip(inside.par_iter())
        .zip(cells.data.par_iter())
        .for_each(|((o, &i), c)| {
            *o = match c {
                CellKind::Fluid => -i,
                CellKind::Air => *o,
                CellKind::Solid if *o < i => -i,
                CellKind::Solid => *o,
            }
        });
}

/// Reinitialises the signed distance `phi` (a field on `spec`'s cells, negative inside) by
/// fast sweeping on both sides: cells with a face neighbour of the other sign keep their
/// values (they place the surface), the others get the distance through them (Zhao 2005).
pub(crate) fn redistance(spec: &GridSpec, phi: &mut [f32], sweeps: usize) {
    let [ni, nj, nk] = spec.dims();
    let far = FAR_CELLS.max(2.0 * (ni + nj + nk) as f32) * spec.dx;
    let strides = [1, ni, ni * nj];
    let crossing: Vec<bool> = (0..phi.len())
        .map(|c| {
            let (i, j, k) = (c % ni, (c / ni) % nj, c / (ni * nj));
            let pos = [i, j, k];
            (0..spec.dimension()).any(|a| {
                let n = [ni, nj, nk][a];
                let lo = (pos[a] > 0).then(|| c - strides[a]);
                let hi = (pos[a] + 1 < n).then(|| c + strides[a]);
                [lo, hi]
                    .into_iter()
                    .flatten()
                    .any(|d| (phi[d] < 0.0) != (phi[c] < 0.0))
            })
        })
        .collect();
    let side = |sign: f32| -> (Vec<u8>, Vec<f32>) {
        let fixed = (0..phi.len())
            .map(|c| u8::from(crossing[c] || phi[c] * sign < 0.0))
            .collect();
        let d = (0..phi.len())
            .map(|c| match (crossing[c], phi[c] * sign < 0.0) {
                (_, true) => far,
                (true, false) => phi[c] * sign,
                (false, false) => far,
            })
            .collect();
        (fixed, d)
    };
    let ((fo, mut out), (fi, mut inside)) = (side(1.0), side(-1.0));
    rayon::join(
        || fast_sweep(spec, &fo, &mut out, sweeps),
        || fast_sweep(spec, &fi, &mut inside, sweeps),
    );
    for (c, p) in phi.iter_mut().enumerate() {
        *p = if *p < 0.0 { -inside[c] } else { out[c] };
    }
}

/// Closes spurious air inside the liquid: a fluid cell of the marker (it holds a particle)
/// whose face neighbours are all fluid or solid lies inside the liquid whatever the particle
/// spacing, so its `φ` is at most `−dx/2`. Zhu & Bridson's particle level set opens holes where
/// particles thin out after splashes; without liquid there, pressure cannot hold the liquid
/// around them up, and it collapses into them.
pub fn close_interior(spec: &GridSpec, cells: &CellGrid, phi: &mut Grid3<f32>) {
    assert_eq!(cells.dims(), spec.dims(), "cells on another grid");
    assert_eq!(phi.dims(), spec.dims(), "phi on another grid");
    let inside = -0.5 * spec.dx;
    let axes = spec.dimension();
    crate::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, p| {
        if *p <= inside || !cells[(i, j, k)].is_fluid() {
            return;
        }
        let enclosed = (0..axes).all(|a| {
            [-1, 1]
                .into_iter()
                .all(|d| crate::measure::neighbour(cells, [i, j, k], a, d) != CellKind::Air)
        });
        if enclosed {
            *p = inside;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::sweep::godunov;
    use super::*;

    fn cells_where(
        spec: &GridSpec,
        fluid: impl Fn(usize, usize, usize) -> bool + Sync,
    ) -> CellGrid {
        let mut cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
        crate::grid::par_for_each_mut(spec.dims(), &mut cells.data, |i, j, k, c| {
            if fluid(i, j, k) {
                *c = CellKind::Fluid;
            }
        });
        cells
    }

    #[test]
    fn half_space_gives_the_signed_distance() {
        for spec in [
            GridSpec::new(20, 24, 1, 0.5),
            GridSpec::new(12, 14, 10, 0.5),
        ] {
            let surface = 9; // fluid rows j < 9: surface at y = 9 dx
            let cells = cells_where(&spec, |_, j, _| j < surface);
            let mut phi = Grid3::new(1, 1, 1, 0.0);
            liquid_phi(&spec, &cells, 1, &mut phi);
            for k in 0..spec.nk {
                for j in 0..spec.nj {
                    for i in 0..spec.ni {
                        let exact = (j as f32 + 0.5 - surface as f32) * spec.dx;
                        assert!(
                            (phi[(i, j, k)] - exact).abs() < 1e-4,
                            "({i},{j},{k}): {}",
                            phi[(i, j, k)]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sphere_has_unit_gradient() {
        let spec = GridSpec::new(24, 24, 24, 1.0 / 24.0);
        let r = 0.25;
        let inside = |i: usize, j: usize, k: usize| {
            (spec.cell_center(i, j, k) - glam::Vec3::splat(0.5)).length() < r
        };
        let mut cells = cells_where(&spec, inside);
        for k in 0..spec.nk {
            cells[(0, 3, k)] = CellKind::Solid;
        }
        let mut phi = Grid3::new(1, 1, 1, 0.0);
        liquid_phi(&spec, &cells, 2, &mut phi);
        let mut checked = 0;
        for k in 2..spec.nk - 2 {
            for j in 2..spec.nj - 2 {
                for i in 2..spec.ni - 2 {
                    let d = (spec.cell_center(i, j, k) - glam::Vec3::splat(0.5)).length() - r;
                    assert_eq!(phi[(i, j, k)] < 0.0, cells[(i, j, k)].is_fluid());
                    // skip the cell-resolution surface and the kink towards the sphere's centre
                    if d.abs() < 1.5 * spec.dx || d < -3.0 * spec.dx || d > 0.2 {
                        continue;
                    }
                    let g = |a: usize| {
                        let mut lo = [i, j, k];
                        let mut hi = lo;
                        lo[a] -= 1;
                        hi[a] += 1;
                        (phi[(hi[0], hi[1], hi[2])] - phi[(lo[0], lo[1], lo[2])]) / (2.0 * spec.dx)
                    };
                    let grad = glam::Vec3::new(g(0), g(1), g(2)).length();
                    // first-order sweeping is less accurate where characteristics converge
                    let tol = if d > 0.0 { 0.1 } else { 0.2 };
                    assert!(
                        (grad - 1.0).abs() < tol,
                        "|grad phi| = {grad} at ({i},{j},{k})"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn wavefront_sweep_equals_sequential_and_solid_cells_extend_the_liquid() {
        // the last grid is swept in tiles (2D, ≥ 8192 cells, several threads)
        let grids = [(10, 9, 8), (13, 9, 1), (150, 70, 1)];
        for (ni, nj, nk) in grids {
            sweep_matches_sequential(GridSpec::new(ni, nj, nk, 1.0));
        }
    }

    fn sweep_matches_sequential(spec: GridSpec) {
        let mut cells = cells_where(&spec, |i, j, k| j < 4 && (i + k) % 7 != 3);
        let k_mid = spec.nk / 2;
        cells[(4, 0, k_mid)] = CellKind::Solid; // under the liquid
        cells[(4, 8, k_mid)] = CellKind::Solid; // in the air
        let mut phi = Grid3::new(1, 1, 1, 0.0);
        let threads = rayon::ThreadPoolBuilder::new().num_threads(3).build();
        threads
            .unwrap()
            .install(|| liquid_phi(&spec, &cells, 2, &mut phi));
        // the outside field alone, swept by plain sequential loops, for the air cells
        let mut seq = vec![1000.0f32; spec.cell_count()];
        for (s, c) in seq.iter_mut().zip(&cells.data) {
            if c.is_fluid() {
                *s = -0.5;
            }
        }
        let orderings = if spec.is_2d() { 4 } else { 8 };
        for _ in 0..2 {
            for o in 0..orderings {
                let ord = |n: usize, up: bool| -> Vec<usize> {
                    if up {
                        (0..n).collect()
                    } else {
                        (0..n).rev().collect()
                    }
                };
                for k in ord(spec.nk, o & 4 == 0) {
                    for j in ord(spec.nj, o & 2 == 0) {
                        for i in ord(spec.ni, o & 1 == 0) {
                            let c = cells.index(i, j, k);
                            if cells.data[c].is_fluid() {
                                continue;
                            }
                            let get = |a: isize, b: isize, d: isize| {
                                if cells.contains(a, b, d) {
                                    seq[cells.index(a as usize, b as usize, d as usize)]
                                } else {
                                    f32::INFINITY
                                }
                            };
                            let (a, b, d) = (i as isize, j as isize, k as isize);
                            let x = get(a - 1, b, d).min(get(a + 1, b, d));
                            let y = get(a, b - 1, d).min(get(a, b + 1, d));
                            let z = get(a, b, d - 1).min(get(a, b, d + 1));
                            seq[c] = seq[c].min(godunov(x, y, z, 1.0));
                        }
                    }
                }
            }
        }
        for (c, kind) in cells.data.iter().enumerate() {
            if *kind == CellKind::Air {
                assert_eq!(phi.data[c], seq[c], "cell {c}");
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let mut serial = Grid3::new(1, 1, 1, 0.0);
        pool.install(|| liquid_phi(&spec, &cells, 2, &mut serial));
        assert_eq!(phi, serial);
        assert!(phi[(4, 0, k_mid)] < 0.0 && phi[(4, 8, k_mid)] > 0.0);
    }
}
