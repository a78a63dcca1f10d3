//! The right-hand side (fraction-weighted divergence) and the pressure-gradient update.

use super::operator::{face, Lattice};
use crate::grid::{par_for_each_mut, Grid3, GridSpec};
use crate::mac::{MacGrid, MacMask};
use crate::pressure::PressureSystem;
use crate::solids::Solids;
use flip_abi::{CELL_AIR, CELL_FLUID};
use flip_sdk::stencil::ghost_theta;
use flip_sdk::Array;
use rayon::prelude::*;

/// Velocity of the solid in MAC face `(i, j, k)` of `axis` (0 for static solids).
#[inline]
fn solid_velocity(solids: &Solids, axis: usize, f: [usize; 3]) -> f32 {
    solids
        .velocity
        .as_ref()
        .map_or(0.0, |v| v.axes()[axis][(f[0], f[1], f[2])])
}

/// `Σ ±(w u + (1 − w) u_solid)` over the faces of cell `c`: its outflow in solved units
/// (`dx · ∇·u`), solid parts of faces moving with the solid (Batty et al. 2007).
fn outflow(
    lat: &Lattice,
    open: &[Array<f32>; 3],
    vel: &MacGrid,
    solids: &Solids,
    c: usize,
    ijk: [usize; 3],
) -> f64 {
    let mut div = 0.0f64;
    for (a, g) in vel.axes().into_iter().enumerate().take(lat.axes) {
        for dir in [-1isize, 1] {
            let (w, _) = face(lat, open, c, ijk, a, dir);
            let mut f = ijk;
            if dir == 1 {
                f[a] += 1;
            }
            let u = w * g[(f[0], f[1], f[2])] + (1.0 - w) * solid_velocity(solids, a, f);
            div += dir as f64 * f64::from(u);
        }
    }
    div
}

/// `rhs = −outflow` on each unknown, 0 elsewhere.
pub(super) fn fill_rhs(spec: &GridSpec, vel: &MacGrid, solids: &Solids, sys: &mut PressureSystem) {
    let lat = Lattice::new(spec);
    let dims = spec.dims();
    let p = &mut sys.problem;
    let (kind, open) = (&p.cell_kind, &p.face_open);
    par_for_each_mut(dims, &mut p.rhs, |i, j, k, r| {
        let c = i + dims[0] * (j + dims[1] * k);
        *r = if kind[c] == CELL_FLUID {
            -outflow(&lat, open, vel, solids, c, [i, j, k])
        } else {
            0.0
        };
    });
}

/// Divergence (1/s) of `vel` on every unknown of `sys`, faces weighted by their open fraction
/// as in the assembly; 0 elsewhere.
pub fn divergence_field(
    spec: &GridSpec,
    vel: &MacGrid,
    solids: &Solids,
    sys: &PressureSystem,
    out: &mut Grid3<f32>,
) {
    let lat = Lattice::new(spec);
    let dims = spec.dims();
    let p = &sys.problem;
    let (kind, open) = (&p.cell_kind, &p.face_open);
    out.reset(dims[0], dims[1], dims[2], 0.0);
    let inv_dx = 1.0 / f64::from(spec.dx);
    par_for_each_mut(dims, &mut out.data, |i, j, k, d| {
        let c = i + dims[0] * (j + dims[1] * k);
        if kind[c] == CELL_FLUID {
            *d = (outflow(&lat, open, vel, solids, c, [i, j, k]) * inv_dx) as f32;
        }
    });
}

/// Largest violation in a divergence field of `sys`'s unknowns: `|∇·u|`, except that on
/// separating walls (cells of the set S of an LCP) only compression counts: positive
/// divergence there is liquid leaving the wall (Lai et al. eq. 3.6).
pub fn violation(field: &Grid3<f32>, sys: &PressureSystem) -> f32 {
    let p = &sys.problem;
    field
        .data
        .par_iter()
        .zip(p.complementarity.par_iter())
        .map(|(&d, &s)| {
            if p.lcp && s != 0 {
                (-d).max(0.0)
            } else {
                d.abs()
            }
        })
        .reduce(|| 0.0, f32::max)
}

/// [`violation`] of the [`divergence_field`] of `vel`.
pub fn divergence_violation(
    spec: &GridSpec,
    vel: &MacGrid,
    solids: &Solids,
    sys: &PressureSystem,
) -> f32 {
    let mut field = Grid3::new(0, 0, 0, 0.0);
    divergence_field(spec, vel, solids, sys, &mut field);
    violation(&field, sys)
}

/// Gradient update (eq. 43 in solved units) on the faces of the problem `sys` was assembled
/// with: a face with open fraction `w > 0` and fluid on at least one side gets
/// `u −= (p_R − p_L)`, with `p = 0` at the free surface θ of the way to an air cell (ghost
/// fluid: the difference over θ; voxelized: at the air cell centre), and `valid = 1`. A
/// closed face (`w = 0`, the domain boundary included) next to fluid takes the solid velocity
/// and is valid; faces with no fluid on either side are left as they are with `valid = 0`, to
/// be extrapolated. In 2D `w` is 0 and invalid.
pub fn apply_pressure(
    spec: &GridSpec,
    sys: &PressureSystem,
    solids: &Solids,
    vel: &mut MacGrid,
    valid: &mut MacMask,
) {
    apply_gradient(spec, sys, |a, f| solid_velocity(solids, a, f), vel, valid);
}

/// [`apply_pressure`] with still walls: closed faces get 0 whatever the solids' motion (a
/// displacement field, such as the volume correction's, never moves particles with a wall).
pub fn apply_gradient_still_walls(
    spec: &GridSpec,
    sys: &PressureSystem,
    vel: &mut MacGrid,
    valid: &mut MacMask,
) {
    apply_gradient(spec, sys, |_, _| 0.0, vel, valid);
}

fn apply_gradient(
    spec: &GridSpec,
    sys: &PressureSystem,
    wall: impl Fn(usize, [usize; 3]) -> f32 + Sync,
    vel: &mut MacGrid,
    valid: &mut MacMask,
) {
    let ghost_fluid = sys.geometry == super::Geometry::Variational;
    let p = &sys.problem;
    assert_eq!(
        p.pressure.len(),
        spec.cell_count(),
        "pressure system on another grid"
    );
    let dims = spec.dims();
    let axes = spec.dimension();
    let (kind, open, phi, pr) = (&p.cell_kind, &p.face_open, &p.liquid_phi, &p.pressure);
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
                let f = [i, j, k];
                let r = i + dims[0] * (j + dims[1] * k);
                if f[a] == 0 || f[a] == dims[a] {
                    // domain boundary: a wall at the solid velocity
                    let inner = if f[a] == 0 {
                        r
                    } else {
                        r - [1, dims[0], dims[0] * dims[1]][a]
                    };
                    *u = wall(a, f);
                    *valid = u8::from(kind[inner] == CELL_FLUID);
                    continue;
                }
                let l = r - [1, dims[0], dims[0] * dims[1]][a];
                let (kl, kr) = (kind[l], kind[r]);
                let any_fluid = kl == CELL_FLUID || kr == CELL_FLUID;
                if open[a][l] <= 0.0 {
                    *u = wall(a, f);
                    *valid = u8::from(any_fluid);
                } else if any_fluid {
                    *u -= jump(kl, kr, pr[l], pr[r], phi[l], phi[r], ghost_fluid) as f32;
                    *valid = 1;
                } else {
                    *valid = 0;
                }
            }
        });
    }
}

/// `p_R − p_L` across a face with fluid on at least one side; an air side holds p = 0 at the
/// surface, θ of the way from the fluid centre (ghost fluid) or at the air centre.
#[inline]
fn jump(kl: u8, kr: u8, pl: f64, pr: f64, phil: f32, phir: f32, ghost: bool) -> f64 {
    let theta = |inside: f32, outside: f32| {
        if ghost {
            f64::from(ghost_theta(inside, outside))
        } else {
            1.0
        }
    };
    match (kl == CELL_FLUID, kr == CELL_FLUID) {
        (true, true) => pr - pl,
        (true, false) if kr == CELL_AIR => -pl / theta(phil, phir),
        (false, true) if kl == CELL_AIR => pr / theta(phir, phil),
        _ => 0.0,
    }
}
