//! The pressure operator: unknowns, face fractions, the 5/7-point stencil and the set S.

use super::{AssembleParams, Geometry};
use crate::cells::CellGrid;
use crate::grid::{par_for_each_mut, Grid3, GridSpec};
use crate::pressure::PressureSystem;
use crate::solids::Solids;
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
use flip_sdk::stencil::dirichlet_weight;
use flip_sdk::{Array, OwnedProblem};
use rayon::prelude::*;

/// Index arithmetic of a dense x-fastest cell grid.
#[derive(Clone, Copy)]
pub(super) struct Lattice {
    pub dims: [usize; 3],
    pub strides: [usize; 3],
    pub axes: usize,
}

impl Lattice {
    pub fn new(spec: &GridSpec) -> Self {
        let dims = spec.dims();
        Self {
            dims,
            strides: [1, dims[0], dims[0] * dims[1]],
            axes: spec.dimension(),
        }
    }
    /// The cell `dir` (±1) steps from `c` along `axis`, if inside the grid.
    #[inline]
    pub fn step(&self, c: usize, ijk: [usize; 3], axis: usize, dir: isize) -> Option<usize> {
        let q = ijk[axis] as isize + dir;
        (q >= 0 && (q as usize) < self.dims[axis])
            .then(|| (c as isize + dir * self.strides[axis] as isize) as usize)
    }
}

/// Fills the operator of `sys` (everything but `rhs` and `pressure`): cell kinds (the
/// unknowns), per-cell face fractions, `diag`/`off` by the shared stencil rule, the set S
/// (fluid cells with a face not wholly open, when `separating`), the level sets, and the
/// scale `ρ·dx/dt` that turns the solution into pascals. Other uses of the same Poisson
/// operator (e.g. a density correction) call this and set their own right-hand side.
pub fn assemble_operator(
    spec: &GridSpec,
    cells: &CellGrid,
    liquid_phi: &Grid3<f32>,
    solids: &Solids,
    params: &AssembleParams,
    sys: &mut PressureSystem,
) {
    let dims = spec.dims();
    assert_eq!(cells.dims(), dims, "cells on another grid");
    assert_eq!(liquid_phi.dims(), dims, "liquid_phi on another grid");
    assert_eq!(solids.phi.dims(), dims, "solids on another grid");
    sys.spec = Some(*spec);
    sys.scale = params.density as f64 * spec.dx as f64 / params.dt as f64;
    sys.geometry = params.geometry;
    let p = &mut sys.problem;
    resize(p, spec);
    p.lcp = params.separating;
    p.liquid_phi.assign(&liquid_phi.data);
    p.solid_phi.assign(&solids.phi.data);
    classify(
        spec,
        cells,
        liquid_phi,
        solids,
        params.geometry,
        &mut p.cell_kind,
    );
    face_fractions(spec, solids, params.geometry, p);
    stencil(spec, params.geometry, p);
    let lat = Lattice::new(spec);
    let (kind, open) = (&p.cell_kind, &p.face_open);
    par_for_each_mut(dims, &mut p.complementarity, |i, j, k, s| {
        let c = i + dims[0] * (j + dims[1] * k);
        *s = u8::from(
            params.separating && kind[c] == CELL_FLUID && !all_open(&lat, open, c, [i, j, k]),
        );
    });
}

fn resize(p: &mut OwnedProblem, spec: &GridSpec) {
    let n = spec.cell_count();
    p.dims = spec.dims();
    p.dimension = spec.dimension();
    p.dx = f64::from(spec.dx);
    for v in p.off.iter_mut().chain(p.face_open.iter_mut()) {
        v.resize(n, 0.0);
    }
    p.diag.resize(n, 0.0);
    p.rhs.resize(n, 0.0);
    p.pressure.resize(n, 0.0);
    p.cell_kind.resize(n, CELL_AIR);
    p.complementarity.resize(n, 0);
}

/// The unknowns. Variational: a cell with every face closed is solid, else fluid where the
/// liquid level set is negative, else air. Voxelized: the marker's kinds. Either way the
/// outermost layer of an open domain face is air (pressure 0, the smoke's open top), unless
/// solid.
fn classify(
    spec: &GridSpec,
    cells: &CellGrid,
    phi: &Grid3<f32>,
    solids: &Solids,
    geometry: Geometry,
    out: &mut [u8],
) {
    let (dims, axes, sides) = (spec.dims(), spec.dimension(), &solids.sides);
    let open = sides.any_open();
    par_for_each_mut(spec.dims(), out, |i, j, k, o| {
        *o = match geometry {
            _ if open
                && sides.in_open_layer([i, j, k], dims, axes)
                && !solids.is_closed_cell(i, j, k)
                && cells[(i, j, k)] != crate::cells::CellKind::Solid =>
            {
                CELL_AIR
            }
            Geometry::Voxelized => cells[(i, j, k)] as u8,
            Geometry::Variational if solids.is_closed_cell(i, j, k) => CELL_SOLID,
            Geometry::Variational if phi[(i, j, k)] < 0.0 => CELL_FLUID,
            Geometry::Variational => CELL_AIR,
        };
    });
}

/// `face_open[a][c]`: open fraction of the face between `c` and `c + â` (0 at the grid's end).
/// Variational: the solids' fractions; voxelized: closed iff a side is a solid cell.
fn face_fractions(spec: &GridSpec, solids: &Solids, geometry: Geometry, p: &mut OwnedProblem) {
    let dims = spec.dims();
    let kind = &p.cell_kind;
    for (a, (open, mac)) in p
        .face_open
        .iter_mut()
        .zip(solids.face_open.axes())
        .enumerate()
    {
        par_for_each_mut(dims, open, |i, j, k, w| {
            let mut hi = [i, j, k];
            hi[a] += 1;
            *w = if a >= spec.dimension() || hi[a] >= dims[a] {
                0.0
            } else {
                match geometry {
                    Geometry::Variational => mac[(hi[0], hi[1], hi[2])],
                    Geometry::Voxelized => {
                        let c = i + dims[0] * (j + dims[1] * k);
                        let n = hi[0] + dims[0] * (hi[1] + dims[1] * hi[2]);
                        let closed = kind[c] == CELL_SOLID || kind[n] == CELL_SOLID;
                        if closed {
                            0.0
                        } else {
                            1.0
                        }
                    }
                }
            };
        });
    }
}

/// Open fraction of the face of `c` on side `dir` of `axis` (0 beyond the grid).
#[inline]
pub(super) fn face(
    lat: &Lattice,
    open: &[Array<f32>; 3],
    c: usize,
    ijk: [usize; 3],
    axis: usize,
    dir: isize,
) -> (f32, Option<usize>) {
    let nb = lat.step(c, ijk, axis, dir);
    let w = match (dir, nb) {
        (1, Some(_)) => open[axis][c],
        (_, Some(n)) => open[axis][n],
        _ => 0.0,
    };
    (w, nb)
}

fn all_open(lat: &Lattice, open: &[Array<f32>; 3], c: usize, ijk: [usize; 3]) -> bool {
    (0..lat.axes).all(|a| {
        [-1, 1]
            .iter()
            .all(|&d| face(lat, open, c, ijk, a, d).0 >= 1.0)
    })
}

/// `diag` and `off` of every unknown: `−w` to a fluid neighbour, `w/θ` (variational) or `w`
/// (voxelized) on the diagonal for an air neighbour, nothing for a closed face.
fn stencil(spec: &GridSpec, geometry: Geometry, p: &mut OwnedProblem) {
    let lat = Lattice::new(spec);
    let dims = spec.dims();
    let (kind, open, phi) = (&p.cell_kind, &p.face_open, &p.liquid_phi);
    let ghost = geometry == Geometry::Variational;
    par_for_each_mut(dims, &mut p.diag, |i, j, k, d| {
        let c = i + dims[0] * (j + dims[1] * k);
        *d = 0.0;
        if kind[c] != CELL_FLUID {
            return;
        }
        for a in 0..lat.axes {
            for dir in [-1, 1] {
                let (w, nb) = face(&lat, open, c, [i, j, k], a, dir);
                match nb.map(|n| (n, kind[n])) {
                    Some((_, CELL_FLUID)) => *d += w,
                    Some((n, CELL_AIR)) if ghost => *d += dirichlet_weight(w, phi[c], phi[n]),
                    Some((_, CELL_AIR)) => *d += w,
                    _ => {}
                }
            }
        }
    });
    for (a, off) in p.off.iter_mut().enumerate() {
        let lat = &lat;
        off.par_chunks_mut(dims[0])
            .enumerate()
            .for_each(|(row, line)| {
                let (j, k) = (row % dims[1], row / dims[1]);
                for (i, o) in line.iter_mut().enumerate() {
                    let c = i + dims[0] * row;
                    let nb = (a < lat.axes)
                        .then(|| lat.step(c, [i, j, k], a, 1))
                        .flatten();
                    *o = match nb {
                        Some(n) if kind[c] == CELL_FLUID && kind[n] == CELL_FLUID => -open[a][c],
                        _ => 0.0,
                    };
                }
            });
    }
}
