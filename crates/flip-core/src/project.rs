//! Pressure projection around the solver: assembly of `A p = rhs` (Karlsson §5.1-5.2,
//! Alg. 6-7) and the gradient update (eq. 43) with solid faces held at the solid velocity.

use crate::cells::{CellGrid, CellKind};
use crate::grid::{par_for_each_mut, Grid3, GridSpec};
use crate::mac::{MacGrid, MacMask};
use crate::measure::neighbour;
use crate::pressure::PressureSystem;
use crate::solids::Solids;
use rayon::prelude::*;

/// Physical parameters of one projection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AssembleParams {
    /// Liquid density ρ (kg/m³).
    pub density: f32,
    /// Time step (s).
    pub dt: f32,
    /// Flag fluid cells touching a solid for the separating (LCP) solve (set S of Lai et al.).
    pub separating: bool,
}

/// Assembles the pressure system of `cells` (Alg. 6-7 with the scale folded in, see
/// [`PressureSystem`]): for fluid cells, `diag` = number of non-solid neighbours (air is
/// Dirichlet p = 0), `off[a][c] = -1` iff `c` and `c + â` are both fluid, `rhs = -Σ (u*₊ − u*₋)`
/// over faces not adjacent to a solid; `complementarity` marks fluid cells with a solid
/// neighbour when `separating`. `pressure` starts from `previous` when it has the right size,
/// else 0. Non-fluid cells have `diag = rhs = 0`. Cells outside the grid count as solid.
#[allow(clippy::too_many_arguments)]
pub fn assemble(
    spec: &GridSpec,
    vel: &MacGrid,
    cells: &CellGrid,
    liquid_phi: &Grid3<f32>,
    solids: &Solids,
    params: &AssembleParams,
    previous: Option<&[f64]>,
    sys: &mut PressureSystem,
) {
    let dims = spec.dims();
    let n = spec.cell_count();
    assert_eq!(cells.dims(), dims, "cells on another grid");
    assert_eq!(liquid_phi.dims(), dims, "liquid_phi on another grid");
    assert_eq!(solids.phi.dims(), dims, "solids on another grid");
    sys.spec = Some(*spec);
    sys.scale = params.density as f64 * spec.dx as f64 / params.dt as f64;
    let sys = &mut sys.problem; // disjoint field borrows below
    sys.dims = dims;
    sys.dimension = spec.dimension();
    sys.dx = f64::from(spec.dx);
    sys.lcp = params.separating;
    for v in sys.off.iter_mut().chain([&mut sys.diag]) {
        v.resize(n, 0.0);
    }
    for v in [&mut sys.rhs, &mut sys.pressure] {
        v.resize(n, 0.0);
    }
    for v in [&mut sys.cell_kind, &mut sys.complementarity] {
        v.resize(n, 0);
    }
    sys.liquid_phi.clear();
    sys.liquid_phi.extend_from_slice(&liquid_phi.data);
    sys.solid_phi.clear();
    sys.solid_phi.extend_from_slice(&solids.phi.data);
    sys.cell_kind
        .par_iter_mut()
        .zip(cells.data.par_iter())
        .for_each(|(o, c)| *o = *c as u8);

    let axes = spec.dimension();
    let separating = params.separating;
    par_for_each_mut(dims, &mut sys.diag, |i, j, k, d| {
        *d = if cells[(i, j, k)].is_fluid() {
            open_faces(cells, [i, j, k], axes) as f32
        } else {
            0.0
        };
    });
    par_for_each_mut(dims, &mut sys.complementarity, |i, j, k, s| {
        let fluid = cells[(i, j, k)].is_fluid();
        *s = u8::from(separating && fluid && open_faces(cells, [i, j, k], axes) < 2 * axes);
    });
    for (a, off) in sys.off.iter_mut().enumerate() {
        par_for_each_mut(dims, off, |i, j, k, o| {
            let both = a < axes
                && cells[(i, j, k)].is_fluid()
                && neighbour(cells, [i, j, k], a, 1).is_fluid();
            *o = if both { -1.0 } else { 0.0 };
        });
    }
    par_for_each_mut(dims, &mut sys.rhs, |i, j, k, r| {
        *r = if cells[(i, j, k)].is_fluid() {
            rhs_of(vel, cells, [i, j, k], axes)
        } else {
            0.0
        };
    });
    let prev = previous.filter(|p| p.len() == n);
    sys.pressure
        .par_iter_mut()
        .zip(cells.data.par_iter())
        .enumerate()
        .for_each(|(c, (p, kind))| {
            *p = match prev {
                Some(prev) if kind.is_fluid() => prev[c],
                _ => 0.0,
            };
        });
}

/// Number of neighbour faces of `ijk` whose cell is not solid.
fn open_faces(cells: &CellGrid, ijk: [usize; 3], axes: usize) -> usize {
    (0..axes)
        .map(|a| {
            usize::from(!neighbour(cells, ijk, a, -1).is_solid())
                + usize::from(!neighbour(cells, ijk, a, 1).is_solid())
        })
        .sum()
}

/// Alg. 6: `-Σ (u*₊ − u*₋)` over the faces of `ijk` not adjacent to a solid cell.
fn rhs_of(vel: &MacGrid, cells: &CellGrid, ijk: [usize; 3], axes: usize) -> f64 {
    let [i, j, k] = ijk;
    let mut div = 0.0f64;
    for (a, g) in vel.axes().into_iter().enumerate().take(axes) {
        let mut hi = ijk;
        hi[a] += 1;
        if !neighbour(cells, ijk, a, 1).is_solid() {
            div += g[(hi[0], hi[1], hi[2])] as f64;
        }
        if !neighbour(cells, ijk, a, -1).is_solid() {
            div -= g[(i, j, k)] as f64;
        }
    }
    -div
}

/// Gradient update (eq. 43 in solved units): on each face between two non-solid cells with
/// fluid on at least one side, `u -= p_right − p_left` (air p = 0), `valid = 1`. Faces touching
/// a solid cell (or the domain boundary) get the solid velocity 0; they stay `valid = 1` when
/// the other side is fluid (a known boundary value), else 0. Faces with no fluid cell on either
/// side are left as they are with `valid = 0`, to be extrapolated. In 2D `w` is 0 and invalid.
pub fn apply_pressure(
    spec: &GridSpec,
    sys: &PressureSystem,
    cells: &CellGrid,
    vel: &mut MacGrid,
    valid: &mut MacMask,
) {
    assert_eq!(cells.dims(), spec.dims(), "cells on another grid");
    assert_eq!(
        sys.pressure.len(),
        spec.cell_count(),
        "pressure system on another grid"
    );
    let axes = spec.dimension();
    let p = &sys.pressure;
    let pressure_of = |c: [usize; 3], kind: CellKind| -> f64 {
        if kind.is_fluid() {
            p[c[0] + spec.ni * (c[1] + spec.nj * c[2])]
        } else {
            0.0
        }
    };
    for (a, (g, m)) in vel.axes_mut().into_iter().zip(valid.axes_mut()).enumerate() {
        if a >= axes {
            g.fill(0.0);
            m.fill(0);
            continue;
        }
        let [ni, nj, _] = g.dims();
        let rows = g.data.par_chunks_mut(ni).zip(m.data.par_chunks_mut(ni));
        rows.enumerate().for_each(|(row, (us, ms))| {
            let (j, k) = (row % nj, row / nj);
            for (i, (u, valid)) in us.iter_mut().zip(ms.iter_mut()).enumerate() {
                let right = [i, j, k];
                let kr = neighbour(cells, right, a, 0);
                let kl = neighbour(cells, right, a, -1);
                if kl.is_solid() || kr.is_solid() {
                    *u = 0.0;
                    *valid = u8::from(kl.is_fluid() || kr.is_fluid());
                } else if kl.is_fluid() || kr.is_fluid() {
                    let mut left = right;
                    left[a] = left[a].wrapping_sub(1);
                    *u -= (pressure_of(right, kr) - pressure_of(left, kl)) as f32;
                    *valid = 1;
                } else {
                    *valid = 0;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::max_divergence;
    use rand::{Rng, SeedableRng};

    /// Gauss-Seidel on the assembled system until the max residual is below `tol`.
    fn gauss_seidel(sys: &mut PressureSystem, tol: f64) {
        let spec = sys.spec.unwrap();
        let strides = [1, spec.ni, spec.ni * spec.nj];
        let n = spec.cell_count();
        for _ in 0..200_000 {
            let mut res = 0.0f64;
            for c in 0..n {
                if sys.cell_kind[c] != 0 {
                    continue;
                }
                let mut r = sys.rhs[c];
                for (off, &s) in sys.off.iter().zip(&strides) {
                    if off[c] != 0.0 {
                        r -= off[c] as f64 * sys.pressure[c + s];
                    }
                    if c >= s && off[c - s] != 0.0 {
                        r -= off[c - s] as f64 * sys.pressure[c - s];
                    }
                }
                let d = sys.diag[c] as f64;
                res = res.max((r - d * sys.pressure[c]).abs());
                sys.pressure[c] = r / d;
            }
            if res < tol {
                return;
            }
        }
        panic!("Gauss-Seidel did not converge");
    }

    fn tank(
        spec: &GridSpec,
        fluid: impl Fn(usize, usize, usize) -> bool + Sync,
    ) -> (Solids, CellGrid) {
        let solids = Solids::walls(*spec);
        let mut cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
        par_for_each_mut(spec.dims(), &mut cells.data, |i, j, k, c| {
            *c = if solids.is_solid_cell(i, j, k) {
                CellKind::Solid
            } else if fluid(i, j, k) {
                CellKind::Fluid
            } else {
                CellKind::Air
            };
        });
        (solids, cells)
    }

    #[test]
    fn projection_removes_divergence_in_2d_and_3d() {
        for spec in [GridSpec::new(16, 16, 1, 0.1), GridSpec::new(8, 9, 7, 0.1)] {
            let (solids, cells) = tank(&spec, |i, j, _| j < 5 || (i + j) % 5 == 0);
            let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
            let mut vel = MacGrid::zeros(&spec);
            for g in vel.axes_mut().into_iter().take(spec.dimension()) {
                g.data
                    .iter_mut()
                    .for_each(|u| *u = rng.gen_range(-1.0..1.0));
            }
            let phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
            let params = AssembleParams {
                density: 1000.0,
                dt: 0.01,
                separating: false,
            };
            let mut sys = PressureSystem::default();
            assemble(&spec, &vel, &cells, &phi, &solids, &params, None, &mut sys);
            assert!(max_divergence(&spec, &vel, &cells) > 1.0);
            assert!(sys.complementarity.iter().all(|&s| s == 0));
            gauss_seidel(&mut sys, 1e-12);
            let mut valid = MacMask::zeros(&spec);
            apply_pressure(&spec, &sys, &cells, &mut vel, &mut valid);
            let div = max_divergence(&spec, &vel, &cells);
            assert!(div < 1e-4, "{spec:?}: max divergence {div}");
            // the floor face under a fluid cell is a valid solid face at 0
            let floor = vel.v[(3, 1, spec.nk / 2)];
            assert_eq!((floor, valid.v[(3, 1, spec.nk / 2)]), (0.0, 1));
            // faces between two air cells are left invalid, faces next to fluid are valid
            let k = spec.nk / 2;
            for j in 0..spec.nj {
                for i in 1..spec.ni {
                    let (l, r) = (cells[(i - 1, j, k)], cells[(i, j, k)]);
                    let want = (l.is_fluid() || r.is_fluid()) && !(l.is_solid() && r.is_solid());
                    assert_eq!(valid.u[(i, j, k)], u8::from(want), "u face {i} {j}");
                }
            }
        }
    }

    #[test]
    fn still_tank_gives_hydrostatic_pressure() {
        let (rho, g, dt) = (1000.0f32, 9.81f32, 0.01f32);
        let spec = GridSpec::new(12, 24, 1, 1.0 / 12.0);
        let depth_cells = 16; // fluid rows 1..=16, surface at y = 17 dx
        let (solids, cells) = tank(&spec, |_, j, _| j <= depth_cells);
        let mut vel = MacGrid::zeros(&spec);
        vel.v.fill(-g * dt); // eq. 18 on a fluid at rest
        let phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
        let params = AssembleParams {
            density: rho,
            dt,
            separating: true,
        };
        let mut sys = PressureSystem::default();
        assemble(
            &spec,
            &vel,
            &cells,
            &phi,
            &solids,
            &params,
            Some(&[1.0; 3]),
            &mut sys,
        );
        assert!(
            sys.pressure.iter().all(|&p| p == 0.0),
            "wrong-size guess is ignored"
        );
        assert_eq!(sys.complementarity[1 + spec.ni], 1); // corner fluid cell touches walls
        assert_eq!(sys.complementarity[5 + spec.ni * 5], 0);
        gauss_seidel(&mut sys, 1e-13);
        let p = sys.physical_pressure();
        let surface = (depth_cells + 1) as f32 * spec.dx;
        for j in 1..=depth_cells {
            let depth = surface - (j as f32 + 0.5) * spec.dx;
            let pij = p[(6, j, 0)];
            // Dirichlet p = 0 sits at the air cell centre, half a cell above the surface
            let exact = rho * g * (depth + 0.5 * spec.dx);
            assert!(
                (pij - exact).abs() < 1e-3 * exact,
                "row {j}: {pij} vs {exact}"
            );
            if depth > 0.6 * surface {
                assert!(
                    (pij - rho * g * depth).abs() < 0.05 * rho * g * depth,
                    "row {j}"
                );
            }
        }
        let mut valid = MacMask::zeros(&spec);
        apply_pressure(&spec, &sys, &cells, &mut vel, &mut valid);
        for (v, m) in vel.v.data.iter().zip(&valid.v.data) {
            if *m == 1 {
                assert!(v.abs() < 1e-4, "fluid at rest, got v = {v}");
            }
        }
        let previous = sys.pressure.clone();
        assemble(
            &spec,
            &vel,
            &cells,
            &phi,
            &solids,
            &params,
            Some(&previous),
            &mut sys,
        );
        assert_eq!(
            sys.pressure, previous,
            "previous solution is the initial guess"
        );
    }
}
