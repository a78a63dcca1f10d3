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
    par_assign(&mut p.liquid_phi, &liquid_phi.data);
    par_assign(&mut p.solid_phi, &solids.phi.data);
    match params.geometry {
        Geometry::Variational => variational_cells(spec, liquid_phi, solids, p),
        Geometry::Voxelized => {
            classify_voxelized(spec, cells, &mut p.cell_kind);
            face_fractions_voxelized(spec, p);
        }
    }
    open_layers_to_air(spec, cells, solids, &mut p.cell_kind);
    stencil(spec, params.geometry, p);
    if !params.separating {
        p.complementarity.fill(0);
        return;
    }
    let lat = Lattice::new(spec);
    let (kind, open) = (&p.cell_kind, &p.face_open);
    par_for_each_mut(dims, &mut p.complementarity, |i, j, k, s| {
        let c = i + dims[0] * (j + dims[1] * k);
        *s = u8::from(kind[c] == CELL_FLUID && !all_open(&lat, open, c, [i, j, k]));
    });
}

/// `dst = src`, copied by rows in parallel when the sizes agree.
fn par_assign(dst: &mut Array<f32>, src: &[f32]) {
    const ROWS: usize = 1 << 14;
    if dst.len() != src.len() {
        dst.assign(src);
        return;
    }
    let pairs = dst.par_chunks_mut(ROWS).zip(src.par_chunks(ROWS));
    pairs.for_each(|(d, s)| d.copy_from_slice(s));
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

/// Variational unknowns and faces in one pass over the rows: a cell with every face closed is
/// solid, else fluid where the liquid level set is negative, else air; `face_open[a][c]` is the
/// solids' open fraction of the face between `c` and `c + â` (0 at the grid's end).
fn variational_cells(spec: &GridSpec, phi: &Grid3<f32>, solids: &Solids, p: &mut OwnedProblem) {
    let dims = spec.dims();
    let [ni, nj, _] = dims;
    let axes = spec.dimension();
    let mac = solids.face_open.axes();
    let OwnedProblem {
        cell_kind,
        face_open: [open_x, open_y, open_z],
        ..
    } = p;
    let rows = cell_kind
        .par_chunks_mut(ni)
        .zip(open_x.par_chunks_mut(ni))
        .zip(open_y.par_chunks_mut(ni))
        .zip(open_z.par_chunks_mut(ni));
    rows.enumerate().for_each(|(row, (((kind, x), y), z))| {
        let (j, k) = (row % nj, row / nj);
        let mut open = [x, y, z];
        for (i, kind) in kind.iter_mut().enumerate() {
            *kind = if solids.is_closed_cell(i, j, k) {
                CELL_SOLID
            } else if phi[(i, j, k)] < 0.0 {
                CELL_FLUID
            } else {
                CELL_AIR
            };
            for (a, (open, mac)) in open.iter_mut().zip(mac).enumerate() {
                let mut hi = [i, j, k];
                hi[a] += 1;
                open[i] = if a >= axes || hi[a] >= dims[a] {
                    0.0
                } else {
                    mac[(hi[0], hi[1], hi[2])]
                };
            }
        }
    });
}

/// Either geometry: the outermost layer of an open domain face is air (pressure 0, the
/// smoke's open top), unless solid.
fn open_layers_to_air(spec: &GridSpec, cells: &CellGrid, solids: &Solids, out: &mut [u8]) {
    let (dims, axes, sides) = (spec.dims(), spec.dimension(), &solids.sides);
    if !sides.any_open() {
        return;
    }
    par_for_each_mut(dims, out, |i, j, k, o| {
        if sides.in_open_layer([i, j, k], dims, axes)
            && !solids.is_closed_cell(i, j, k)
            && cells[(i, j, k)] != crate::cells::CellKind::Solid
        {
            *o = CELL_AIR;
        }
    });
}

/// The voxelized unknowns: the marker's kinds.
fn classify_voxelized(spec: &GridSpec, cells: &CellGrid, out: &mut [u8]) {
    par_for_each_mut(spec.dims(), out, |i, j, k, o| *o = cells[(i, j, k)] as u8);
}

/// Voxelized faces: closed iff a side is a solid cell (0 at the grid's end).
fn face_fractions_voxelized(spec: &GridSpec, p: &mut OwnedProblem) {
    let dims = spec.dims();
    let kind = &p.cell_kind;
    for (a, open) in p.face_open.iter_mut().enumerate() {
        par_for_each_mut(dims, open, |i, j, k, w| {
            let mut hi = [i, j, k];
            hi[a] += 1;
            *w = if a >= spec.dimension() || hi[a] >= dims[a] {
                0.0
            } else {
                let c = i + dims[0] * (j + dims[1] * k);
                let n = hi[0] + dims[0] * (hi[1] + dims[1] * hi[2]);
                let closed = kind[c] == CELL_SOLID || kind[n] == CELL_SOLID;
                if closed {
                    0.0
                } else {
                    1.0
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
/// (voxelized) on the diagonal for an air neighbour, nothing for a closed face. One pass over
/// the rows writes all four arrays.
fn stencil(spec: &GridSpec, geometry: Geometry, p: &mut OwnedProblem) {
    let lat = Lattice::new(spec);
    let [ni, nj, _] = spec.dims();
    let OwnedProblem {
        cell_kind: kind,
        face_open: open,
        liquid_phi: phi,
        diag,
        off: [off_x, off_y, off_z],
        ..
    } = p;
    let (kind, open, phi) = (&**kind, &*open, &**phi);
    let ghost = geometry == Geometry::Variational;
    let rows = diag
        .par_chunks_mut(ni)
        .zip(off_x.par_chunks_mut(ni))
        .zip(off_y.par_chunks_mut(ni))
        .zip(off_z.par_chunks_mut(ni));
    rows.enumerate().for_each(|(row, (((d, x), y), z))| {
        let (j, k) = (row % nj, row / nj);
        let mut off = [x, y, z];
        for (i, d) in d.iter_mut().enumerate() {
            let (c, ijk) = (i + ni * row, [i, j, k]);
            let fluid = kind[c] == CELL_FLUID;
            for (a, off) in off.iter_mut().enumerate() {
                let up = (a < lat.axes).then(|| lat.step(c, ijk, a, 1)).flatten();
                off[i] = match up {
                    Some(n) if fluid && kind[n] == CELL_FLUID => -open[a][c],
                    _ => 0.0,
                };
            }
            *d = if fluid {
                diagonal(&lat, open, phi, kind, c, ijk, ghost)
            } else {
                0.0
            };
        }
    });
}

/// The diagonal of fluid cell `c`: its open faces to fluid, and to air by
/// [`dirichlet_weight`] (ghost fluid) or whole.
#[inline]
fn diagonal(
    lat: &Lattice,
    open: &[Array<f32>; 3],
    phi: &[f32],
    kind: &[u8],
    c: usize,
    ijk: [usize; 3],
    ghost: bool,
) -> f32 {
    let mut d = 0.0;
    for a in 0..lat.axes {
        for dir in [-1, 1] {
            let (w, nb) = face(lat, open, c, ijk, a, dir);
            match nb.map(|n| (n, kind[n])) {
                Some((_, CELL_FLUID)) => d += w,
                Some((n, CELL_AIR)) if ghost => d += dirichlet_weight(w, phi[c], phi[n]),
                Some((_, CELL_AIR)) => d += w,
                _ => {}
            }
        }
    }
    d
}
