use super::*;
use crate::cells::CellKind;
use crate::grid::par_for_each_mut;
use crate::mac::MacMask;
use crate::solids::{Shape, ShapeKind};
use glam::Vec3;
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

fn params(geometry: Geometry, separating: bool) -> AssembleParams {
    AssembleParams {
        density: 1000.0,
        dt: 0.01,
        separating,
        geometry,
    }
}

/// Cell kinds and a level set of ∓dx/2 from a fluid predicate (walls from `solids`).
fn cells_and_phi(
    spec: &GridSpec,
    solids: &Solids,
    fluid: impl Fn(usize, usize, usize) -> bool + Sync,
) -> (CellGrid, Grid3<f32>) {
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
    let mut phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
    par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, p| {
        *p = if fluid(i, j, k) { -0.5 } else { 0.5 } * spec.dx;
    });
    (cells, phi)
}

/// A flat surface at height `h`: φ = y − h.
fn flat(spec: &GridSpec, h: f32) -> Grid3<f32> {
    let mut phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
    par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, p| {
        *p = spec.cell_center(i, j, k).y - h;
    });
    phi
}

/// Gravity applied to a fluid at rest (eq. 18), projected; returns the system and the largest
/// speed on the faces the projection set (valid faces).
fn project_rest(
    spec: &GridSpec,
    solids: &Solids,
    phi: &Grid3<f32>,
    geometry: Geometry,
) -> (PressureSystem, MacGrid, f32) {
    let cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
    let cells = if geometry == Geometry::Voxelized {
        let mut c = cells;
        par_for_each_mut(spec.dims(), &mut c.data, |i, j, k, o| {
            *o = if solids.is_solid_cell(i, j, k) {
                CellKind::Solid
            } else if phi[(i, j, k)] < 0.0 {
                CellKind::Fluid
            } else {
                CellKind::Air
            };
        });
        c
    } else {
        cells
    };
    let p = params(geometry, false);
    let mut vel = MacGrid::zeros(spec);
    vel.v.fill(-9.81 * p.dt);
    let mut sys = PressureSystem::default();
    assemble(spec, &vel, &cells, phi, solids, &p, None, &mut sys);
    gauss_seidel(&mut sys, 1e-13);
    let mut valid = MacMask::zeros(spec);
    apply_pressure(spec, &sys, solids, &mut vel, &mut valid);
    let axes = vel.axes().into_iter().zip(valid.axes());
    let max = axes
        .flat_map(|(g, m)| g.data.iter().zip(&m.data))
        .filter(|(_, &m)| m != 0)
        .fold(0.0f32, |a, (v, _)| a.max(v.abs()));
    (sys, vel, max)
}

#[test]
fn projection_removes_divergence_in_2d_and_3d() {
    for geometry in [Geometry::Voxelized, Geometry::Variational] {
        for spec in [GridSpec::new(16, 16, 1, 0.1), GridSpec::new(8, 9, 7, 0.1)] {
            let solids = Solids::walls(spec);
            let (cells, phi) = cells_and_phi(&spec, &solids, |i, j, _| j < 5 || (i + j) % 5 == 0);
            let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
            let mut vel = MacGrid::zeros(&spec);
            for g in vel.axes_mut().into_iter().take(spec.dimension()) {
                g.data
                    .iter_mut()
                    .for_each(|u| *u = rng.gen_range(-1.0..1.0));
            }
            let mut sys = PressureSystem::default();
            let p = params(geometry, false);
            assemble(&spec, &vel, &cells, &phi, &solids, &p, None, &mut sys);
            assert!(divergence_violation(&spec, &vel, &solids, &sys) > 1.0);
            assert!(sys.complementarity.iter().all(|&s| s == 0));
            gauss_seidel(&mut sys, 1e-12);
            let mut valid = MacMask::zeros(&spec);
            apply_pressure(&spec, &sys, &solids, &mut vel, &mut valid);
            let div = divergence_violation(&spec, &vel, &solids, &sys);
            assert!(div < 1e-4, "{geometry:?} {spec:?}: max divergence {div}");
            // the floor face under a fluid cell is a valid solid face at 0
            let k = spec.nk / 2;
            assert_eq!((vel.v[(3, 1, k)], valid.v[(3, 1, k)]), (0.0, 1));
        }
    }
}

#[test]
fn voxelized_tank_puts_p_zero_at_the_air_cell_centre() {
    let spec = GridSpec::new(12, 24, 1, 1.0 / 12.0);
    let solids = Solids::walls(spec);
    let surface = 17.0 * spec.dx; // fluid rows 1..=16
    let (sys, _, max) = project_rest(&spec, &solids, &flat(&spec, surface), Geometry::Voxelized);
    let p = sys.physical_pressure();
    for j in 1..=16 {
        let depth = surface - (j as f32 + 0.5) * spec.dx;
        let exact = 1000.0 * 9.81 * (depth + 0.5 * spec.dx);
        assert!((p[(6, j, 0)] - exact).abs() < 1e-3 * exact, "row {j}");
    }
    assert!(max < 1e-4, "fluid at rest moved at {max} m/s");
}

#[test]
fn ghost_fluid_tank_is_hydrostatic_at_every_surface_fraction() {
    for spec in [
        GridSpec::new(12, 24, 1, 1.0 / 12.0),
        GridSpec::new(8, 16, 8, 1.0 / 8.0),
    ] {
        let solids = Solids::walls(spec);
        for tenth in 0..10 {
            let surface = (9.0 + 0.1 * tenth as f32) * spec.dx;
            let phi = flat(&spec, surface);
            let (sys, _, max) = project_rest(&spec, &solids, &phi, Geometry::Variational);
            let p = sys.physical_pressure();
            let (mut err2, mut ref2) = (0.0f64, 0.0f64);
            for (c, &kind) in sys.cell_kind.iter().enumerate() {
                if kind != flip_abi::CELL_FLUID {
                    continue;
                }
                let y = (c / spec.ni % spec.nj) as f32 + 0.5;
                let exact = 1000.0 * 9.81 * (surface - y * spec.dx);
                err2 += f64::from(p.data[c] - exact).powi(2);
                ref2 += f64::from(exact).powi(2);
            }
            let rms = (err2 / ref2).sqrt();
            assert!(rms < 1e-4, "{spec:?} surface {surface}: RMS error {rms}");
            assert!(
                max < 1e-5,
                "{spec:?} surface {surface}: fluid at rest moved at {max}"
            );
        }
    }
}

/// A solid circle (sphere in 3D) of radius 0.4 around the domain centre, as a container.
fn round_container(spec: GridSpec) -> Solids {
    let centre = Vec3::splat(0.5);
    let circle = Shape {
        kind: ShapeKind::Sphere {
            center: centre,
            radius: 0.4,
        },
        inverted: true,
        shell: 0.0,
        subtract: false,
        placement: None,
    };
    Solids::new(spec, vec![circle])
}

#[test]
fn still_water_in_round_containers_stays_still() {
    for spec in [
        GridSpec::new(48, 48, 1, 1.0 / 48.0),
        GridSpec::new(20, 20, 20, 1.0 / 20.0),
    ] {
        let solids = round_container(spec);
        let (sys, vel, max) =
            project_rest(&spec, &solids, &flat(&spec, 0.47), Geometry::Variational);
        let cut = sys
            .face_open
            .iter()
            .flatten()
            .filter(|&&w| w > 0.0 && w < 1.0)
            .count();
        assert!(cut > 50, "{spec:?}: the container cuts faces");
        assert!(max < 1e-5, "{spec:?}: still water moved at {max} m/s");
        let div = divergence_violation(&spec, &vel, &solids, &sys);
        assert!(div < 1e-4, "{spec:?}: divergence {div} 1/s");
    }
}

#[test]
fn separating_set_holds_the_cells_with_cut_or_closed_faces() {
    let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
    let solids = round_container(spec);
    let cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
    let mut sys = PressureSystem::default();
    let p = params(Geometry::Variational, true);
    assemble_operator(&spec, &cells, &flat(&spec, 0.5), &solids, &p, &mut sys);
    let centre = sys.index(16, 8, 0);
    assert_eq!(sys.complementarity[centre], 0);
    let mut edge = 0;
    for c in 0..sys.cell_count() {
        if sys.complementarity[c] != 0 {
            edge += 1;
            let cut = (0..2).any(|a| sys.face_open[a][c] < 1.0);
            let below = (0..2).any(|a| c >= [1, 32][a] && sys.face_open[a][c - [1, 32][a]] < 1.0);
            assert!(cut || below, "cell {c} in S has all faces open");
        }
    }
    assert!(edge > 20);
}

/// The volume correction reuses the pressure solve's multigrid hierarchy only when the two
/// operators agree coefficient for coefficient: on the same liquid and solids they must,
/// whatever the pressure's density and time step (those go to `scale`, not the matrix).
#[test]
fn the_volume_correction_poses_the_pressure_operator() {
    use crate::volume::{assemble_correction, CorrectionTarget, Measurement};
    let spec = GridSpec::new(20, 20, 20, 1.0 / 20.0);
    let solids = round_container(spec);
    let mut phi = flat(&spec, 0.47);
    for (c, p) in phi.data.iter_mut().enumerate() {
        *p += 0.013 * ((c % 7) as f32 - 3.0) * spec.dx; // a rough surface: θ everywhere
    }
    let cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
    let mut pressure = PressureSystem::default();
    let vel = MacGrid::zeros(&spec);
    let p = params(Geometry::Variational, false);
    assemble(&spec, &vel, &cells, &phi, &solids, &p, None, &mut pressure);
    let density = Grid3::new(spec.ni, spec.nj, spec.nk, 7.5f32);
    let m = Measurement {
        phi: &phi,
        density: &density,
    };
    let target = CorrectionTarget {
        rest_volume: 0.0,
        volume: 0.0,
        rest: 8.0,
        strength: 1.0,
    };
    let mut correction = PressureSystem::default();
    let mut scratch = CellGrid::default();
    assemble_correction(&spec, &solids, m, target, &mut scratch, &mut correction);
    let (a, b) = (&pressure.problem, &correction.problem);
    assert!(a.cell_kind.contains(&flip_abi::CELL_FLUID));
    assert_eq!(a.cell_kind, b.cell_kind, "unknowns");
    assert_eq!(a.diag, b.diag, "diagonal");
    assert_eq!(a.off, b.off, "couplings");
    assert_eq!(a.face_open, b.face_open, "face fractions");
    assert_eq!(a.liquid_phi, b.liquid_phi, "liquid level set");
    assert_ne!(pressure.scale, correction.scale);
}
