//! Eulerian smoke (Wave §2, after Bridson's 2007 course notes): everything lives on the grid.
//! Per step: sources, semi-Lagrangian advection of velocity and of the cell-centred density
//! and temperature, buoyancy and vorticity confinement, then the usual pressure projection
//! with every open cell a fluid cell ([`domain_cells`]).

use crate::cells::{CellGrid, CellKind};
use crate::grid::{par_for_each_mut, Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::solids::Solids;
use crate::transfer::{matches_spec, Lattice};
use glam::Vec3;

/// Trilinear (bilinear in 2D) interpolation of the cell-centred `field` at `p`, clamped to the
/// cell centres.
pub fn sample_cell(spec: &GridSpec, field: &Grid3<f32>, p: Vec3) -> f32 {
    let q = p / spec.dx - Vec3::splat(0.5);
    let axis = |x: f32, n: usize| -> (usize, usize, f32) {
        let x = x.clamp(0.0, (n - 1) as f32);
        let b = (x as usize).min(n.saturating_sub(2));
        let t = x - b as f32;
        (b, (b + 1).min(n - 1), t)
    };
    let (i0, i1, tx) = axis(q.x, spec.ni);
    let (j0, j1, ty) = axis(q.y, spec.nj);
    let (k0, k1, tz) = axis(q.z, spec.nk);
    let lerp = |a: f32, b: f32, t: f32| a + t * (b - a);
    let plane = |k: usize| {
        let row = |j: usize| lerp(field[(i0, j, k)], field[(i1, j, k)], tx);
        lerp(row(j0), row(j1), ty)
    };
    if spec.is_2d() {
        plane(0)
    } else {
        lerp(plane(k0), plane(k1), tz)
    }
}

/// Start of the RK2 (midpoint) characteristic that ends at `x` after `dt` (Wave §2.1.1, §2.2),
/// clamped into the domain.
fn backtrace(lattice: &Lattice, vel: &MacGrid, x: Vec3, dt: f32, extent: Vec3) -> Vec3 {
    let mid = x - 0.5 * dt * lattice.sample(vel, x);
    (x - dt * lattice.sample(vel, mid)).clamp(Vec3::ZERO, extent)
}

/// Semi-Lagrangian advection of the MAC velocity by itself (Wave §2.1.1): each face takes the
/// velocity found where its characteristic started. `w` stays zero in 2D.
pub fn advect_velocity(spec: &GridSpec, vel: &MacGrid, dt: f32) -> MacGrid {
    assert!(matches_spec(spec, vel), "velocity grid does not match spec");
    let lattice = Lattice::new(spec);
    let extent = spec.extent();
    let mut out = vel.clone();
    let axes = spec.dimension();
    for (a, comp) in out.axes_mut().into_iter().enumerate().take(axes) {
        par_for_each_mut(comp.dims(), &mut comp.data, |i, j, k, u| {
            let start = backtrace(&lattice, vel, spec.face_center(a, i, j, k), dt, extent);
            *u = lattice.sample(vel, start)[a];
        });
    }
    out
}

/// Semi-Lagrangian advection of a cell-centred scalar (Wave §2.2).
pub fn advect_scalar(spec: &GridSpec, field: &Grid3<f32>, vel: &MacGrid, dt: f32) -> Grid3<f32> {
    assert!(matches_spec(spec, vel), "velocity grid does not match spec");
    assert_eq!(
        field.dims(),
        spec.dims(),
        "scalar field does not match spec"
    );
    let lattice = Lattice::new(spec);
    let extent = spec.extent();
    let mut out = field.clone();
    par_for_each_mut(spec.dims(), &mut out.data, |i, j, k, s| {
        let start = backtrace(&lattice, vel, spec.cell_center(i, j, k), dt, extent);
        *s = sample_cell(spec, field, start);
    });
    out
}

/// Buoyancy on the inner y-faces (Wave §2.1.2, with Bridson's signs for y up):
/// `v += dt·(−α s + β (T − T_amb))`, `s` and `T` averaged over the face's two cells. Without a
/// temperature field only the density term acts.
pub fn add_buoyancy(
    vel: &mut MacGrid,
    density: &Grid3<f32>,
    temperature: Option<&Grid3<f32>>,
    (alpha, beta, ambient): (f32, f32, f32),
    dt: f32,
) {
    let v = &mut vel.v;
    par_for_each_mut(v.dims(), &mut v.data, |i, j, k, v| {
        if j == 0 || j == density.nj {
            return;
        }
        let s = 0.5 * (density[(i, j - 1, k)] + density[(i, j, k)]);
        let t = temperature.map_or(ambient, |t| 0.5 * (t[(i, j - 1, k)] + t[(i, j, k)]));
        *v += dt * (-alpha * s + beta * (t - ambient));
    });
}

/// Cell-centred velocity (the mean of each cell's two faces per axis).
fn cell_velocity(spec: &GridSpec, vel: &MacGrid) -> Grid3<Vec3> {
    let mut c = Grid3::new(spec.ni, spec.nj, spec.nk, Vec3::ZERO);
    let is_3d = !spec.is_2d();
    par_for_each_mut(c.dims(), &mut c.data, |i, j, k, out| {
        let w = if is_3d {
            0.5 * (vel.w[(i, j, k)] + vel.w[(i, j, k + 1)])
        } else {
            0.0
        };
        *out = Vec3::new(
            0.5 * (vel.u[(i, j, k)] + vel.u[(i + 1, j, k)]),
            0.5 * (vel.v[(i, j, k)] + vel.v[(i, j + 1, k)]),
            w,
        );
    });
    c
}

/// Central difference of `f` along axis `a` at cell `c`, 0 on the domain's border cells.
fn central<T: Copy + std::ops::Sub<Output = T> + std::ops::Mul<f32, Output = T>>(
    f: &Grid3<T>,
    c: [usize; 3],
    a: usize,
    inv_2dx: f32,
    zero: T,
) -> T {
    let n = f.dims()[a];
    if c[a] == 0 || c[a] + 1 >= n {
        return zero;
    }
    let (mut lo, mut hi) = (c, c);
    lo[a] -= 1;
    hi[a] += 1;
    (f[(hi[0], hi[1], hi[2])] - f[(lo[0], lo[1], lo[2])]) * inv_2dx
}

/// The vorticity `ω = ∇ × u` at cell centres, by central differences of the cell-centred
/// velocity (zero in the outermost cells); in 2D only `ω.z` is non-zero.
pub fn vorticity(spec: &GridSpec, vel: &MacGrid) -> Grid3<Vec3> {
    let uc = cell_velocity(spec, vel);
    let inv_2dx = 0.5 / spec.dx;
    let axes = spec.dimension();
    let d = |c: [usize; 3], a: usize| {
        if a < axes {
            central(&uc, c, a, inv_2dx, Vec3::ZERO)
        } else {
            Vec3::ZERO
        }
    };
    let mut omega = Grid3::new(spec.ni, spec.nj, spec.nk, Vec3::ZERO);
    par_for_each_mut(omega.dims(), &mut omega.data, |i, j, k, w| {
        let c = [i, j, k];
        let (dx, dy, dz) = (d(c, 0), d(c, 1), d(c, 2));
        *w = Vec3::new(dy.z - dz.y, dz.x - dx.z, dx.y - dy.x);
    });
    omega
}

/// Vorticity confinement (Wave §2.1.2, Fedkiw et al. 2001): `ω = ∇ × u` at cells by central
/// differences, `N = ∇|ω| / (|∇|ω|| + 10⁻²⁰)`, `f = ε·dx·(N × ω)`, added to each inner face as
/// the mean of its two cells' forces times `dt`. In 2D `ω` is along z.
pub fn vorticity_confinement(spec: &GridSpec, vel: &mut MacGrid, epsilon: f32, dt: f32) {
    if epsilon == 0.0 {
        return;
    }
    let inv_2dx = 0.5 / spec.dx;
    let axes = spec.dimension();
    let omega = vorticity(spec, vel);
    let mut magnitude = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
    par_for_each_mut(magnitude.dims(), &mut magnitude.data, |i, j, k, m| {
        *m = omega[(i, j, k)].length();
    });
    let mut force = Grid3::new(spec.ni, spec.nj, spec.nk, Vec3::ZERO);
    par_for_each_mut(force.dims(), &mut force.data, |i, j, k, f| {
        let c = [i, j, k];
        let g = Vec3::from_array([0, 1, 2].map(|a| {
            if a < axes {
                central(&magnitude, c, a, inv_2dx, 0.0)
            } else {
                0.0
            }
        }));
        let n = g / (g.length() + 1e-20);
        *f = epsilon * spec.dx * n.cross(omega[(i, j, k)]);
    });
    for (a, comp) in vel.axes_mut().into_iter().enumerate().take(axes) {
        par_for_each_mut(comp.dims(), &mut comp.data, |i, j, k, u| {
            let c = [i, j, k];
            if c[a] == 0 || c[a] == force.dims()[a] {
                return;
            }
            let mut lo = c;
            lo[a] -= 1;
            *u += dt * 0.5 * (force[(lo[0], lo[1], lo[2])][a] + force[(i, j, k)][a]);
        });
    }
}

/// Whether `p` lies in the box `[lo, hi]` (z ignored in 2D).
fn in_box(p: Vec3, lo: Vec3, hi: Vec3, is_2d: bool) -> bool {
    let axes = if is_2d { 2 } else { 3 };
    (0..axes).all(|a| p[a] >= lo[a] && p[a] <= hi[a])
}

/// Raises `field` to at least `value` in the cells whose centre lies in the box `[lo, hi]`
/// (a source that keeps emitting without piling up).
pub fn fill_box(spec: &GridSpec, field: &mut Grid3<f32>, lo: Vec3, hi: Vec3, value: f32) {
    let is_2d = spec.is_2d();
    par_for_each_mut(field.dims(), &mut field.data, |i, j, k, s| {
        if in_box(spec.cell_center(i, j, k), lo, hi, is_2d) {
            *s = s.max(value);
        }
    });
}

/// Sets the faces inside the box `[lo, hi]` (face centres) to `velocity` (a source's push).
pub fn set_velocity_box(spec: &GridSpec, vel: &mut MacGrid, lo: Vec3, hi: Vec3, velocity: Vec3) {
    let (axes, is_2d) = (spec.dimension(), spec.is_2d());
    for (a, comp) in vel.axes_mut().into_iter().enumerate().take(axes) {
        par_for_each_mut(comp.dims(), &mut comp.data, |i, j, k, u| {
            if in_box(spec.face_center(a, i, j, k), lo, hi, is_2d) {
                *u = velocity[a];
            }
        });
    }
}

/// Cell kinds for a gas filling the domain: every non-solid cell is fluid, except that with
/// `open_top` the non-solid cells of the top row are air: an open boundary (pressure 0) where
/// smoke leaves, once a solid carves the top wall away.
pub fn domain_cells(spec: &GridSpec, solids: &Solids, open_top: bool) -> CellGrid {
    let mut cells = Grid3::new(spec.ni, spec.nj, spec.nk, CellKind::Fluid);
    let top = spec.nj - 1;
    par_for_each_mut(cells.dims(), &mut cells.data, |i, j, k, c| {
        *c = if solids.is_solid_cell(i, j, k) {
            CellKind::Solid
        } else if open_top && j == top {
            CellKind::Air
        } else {
            CellKind::Fluid
        };
    });
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(n: usize, nk: usize) -> GridSpec {
        GridSpec::new(n, n, nk, 1.0 / n as f32)
    }

    #[test]
    fn uniform_flow_translates_a_scalar_and_keeps_a_constant() {
        for s in [spec(32, 1), spec(16, 16)] {
            let mut vel = MacGrid::zeros(&s);
            vel.u.fill(1.0);
            let mut blob = Grid3::new(s.ni, s.nj, s.nk, 0.0f32);
            let (lo, hi) = (Vec3::splat(0.25), Vec3::splat(0.5));
            fill_box(&s, &mut blob, lo, hi, 1.0);
            let dt = 4.0 * s.dx; // four cells
            let moved = advect_scalar(&s, &blob, &vel, dt);
            let mut expected = Grid3::new(s.ni, s.nj, s.nk, 0.0f32);
            fill_box(&s, &mut expected, lo + Vec3::X * dt, hi + Vec3::X * dt, 1.0);
            let err = moved
                .data
                .iter()
                .zip(&expected.data)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
            assert!(err < 1e-4, "{err}");
            let constant = Grid3::new(s.ni, s.nj, s.nk, 0.7f32);
            let still = advect_scalar(&s, &constant, &vel, dt);
            assert!(still.data.iter().all(|v| (v - 0.7).abs() < 1e-6));
        }
    }

    #[test]
    fn a_uniform_velocity_advects_to_itself() {
        let s = spec(16, 16);
        let mut vel = MacGrid::zeros(&s);
        vel.u.fill(0.3);
        vel.v.fill(-0.2);
        vel.w.fill(0.1);
        let out = advect_velocity(&s, &vel, 0.05);
        assert!((out.max_abs() - 0.3).abs() < 1e-6);
        assert!(out.v.data.iter().all(|v| (v + 0.2).abs() < 1e-6));
    }

    #[test]
    fn hot_light_gas_rises_and_dense_cold_gas_sinks() {
        let s = spec(8, 1);
        let density = Grid3::new(8, 8, 1, 1.0f32);
        let hot = Grid3::new(8, 8, 1, 300.0f32);
        let mut vel = MacGrid::zeros(&s);
        add_buoyancy(&mut vel, &density, Some(&hot), (0.1, 1.0, 273.0), 0.01);
        assert!((vel.v[(3, 4, 0)] - 0.01 * (-0.1 + 27.0)).abs() < 1e-5);
        assert_eq!(vel.v[(3, 0, 0)], 0.0, "wall face untouched");
        let mut vel = MacGrid::zeros(&s);
        add_buoyancy(&mut vel, &density, None, (0.1, 1.0, 273.0), 0.01);
        assert!(vel.v[(3, 4, 0)] < 0.0);
    }

    #[test]
    fn confinement_leaves_uniform_flow_alone_and_spins_up_a_vortex() {
        let s = spec(32, 1);
        let mut vel = MacGrid::zeros(&s);
        vel.u.fill(1.0);
        let before = vel.clone();
        vorticity_confinement(&s, &mut vel, 2.0, 0.1);
        assert_eq!(vel, before);
        // A solid-body vortex confined to a disc: confinement adds speed along the flow.
        let c = Vec3::new(0.5, 0.5, 0.0);
        let swirl = |p: Vec3| {
            let r = p - c;
            let f = if r.length() < 0.2 { 1.0 } else { 0.0 };
            Vec3::new(-r.y, r.x, 0.0) * f
        };
        let mut vel = MacGrid::zeros(&s);
        let dx = s.dx;
        par_for_each_mut(vel.u.dims(), &mut vel.u.data, |i, j, _, u| {
            *u = swirl(Vec3::new(i as f32 * dx, (j as f32 + 0.5) * dx, 0.0)).x;
        });
        par_for_each_mut(vel.v.dims(), &mut vel.v.data, |i, j, _, v| {
            *v = swirl(Vec3::new((i as f32 + 0.5) * dx, j as f32 * dx, 0.0)).y;
        });
        let energy = |m: &MacGrid| -> f32 { m.u.data.iter().chain(&m.v.data).map(|x| x * x).sum() };
        let e0 = energy(&vel);
        vorticity_confinement(&s, &mut vel, 2.0, 0.05);
        assert!(energy(&vel) > e0, "confinement feeds the vortex");
    }

    #[test]
    fn domain_cells_fill_the_open_space() {
        let s = spec(8, 1);
        let solids = Solids::walls(s);
        let closed = domain_cells(&s, &solids, false);
        assert_eq!(closed[(3, 3, 0)], CellKind::Fluid);
        assert_eq!(closed[(0, 3, 0)], CellKind::Solid);
        assert_eq!(closed[(3, 7, 0)], CellKind::Solid);
        let top_open = Solids::new(
            s,
            vec![crate::solids::Shape {
                kind: crate::solids::ShapeKind::Box {
                    min: Vec3::new(0.2, 0.9, -1.0),
                    max: Vec3::new(0.8, 1.1, 1.0),
                },
                inverted: false,
                shell: 0.0,
                subtract: true,
                placement: None,
            }],
        );
        let open = domain_cells(&s, &top_open, true);
        assert_eq!(open[(3, 7, 0)], CellKind::Air);
        assert_eq!(open[(0, 7, 0)], CellKind::Solid);
        assert_eq!(open[(3, 6, 0)], CellKind::Fluid);
    }

    #[test]
    fn sampling_a_linear_field_is_exact_inside() {
        let s = spec(8, 8);
        let mut f = Grid3::new(8, 8, 8, 0.0f32);
        par_for_each_mut(f.dims(), &mut f.data, |i, j, k, v| {
            let c = s.cell_center(i, j, k);
            *v = 1.0 + 2.0 * c.x - c.y + 0.5 * c.z;
        });
        let p = Vec3::new(0.4, 0.33, 0.61);
        let exact = 1.0 + 2.0 * p.x - p.y + 0.5 * p.z;
        assert!((sample_cell(&s, &f, p) - exact).abs() < 1e-5);
    }
}
