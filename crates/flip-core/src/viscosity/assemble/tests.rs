use super::*;
use crate::solids::{Shape, ShapeKind};
use crate::viscosity::rows::{add_sample, Row, CHUNK_ROWS};
use flip_sdk::OwnedCsr;

/// A blob of liquid resting on the floor and cut by a sphere, with a swirling velocity and a
/// viscosity varying over the cells: every kind of row (surface, wall, interior) occurs.
fn scene(spec: GridSpec) -> (MacGrid, Grid3<f32>, Solids, Grid3<f32>) {
    let centre = Vec3::new(0.41, 0.2, 0.29);
    let mut phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
    crate::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
        let mut d = spec.cell_center(i, j, k) - centre;
        if spec.is_2d() {
            d.z = 0.0;
        }
        *v = d.length() - 0.3;
    });
    let ball = Shape {
        kind: ShapeKind::Sphere {
            center: Vec3::new(0.6, 0.25, 0.3),
            radius: 0.13,
        },
        inverted: false,
        shell: 0.0,
        subtract: false,
        placement: None,
    };
    let solids = Solids::new(spec, vec![ball]);
    let mut vel = MacGrid::zeros(&spec);
    for (a, g) in vel.axes_mut().into_iter().enumerate() {
        let d = face_dims(&spec, a);
        crate::grid::par_for_each_mut(d, &mut g.data, |i, j, k, v| {
            let p = spec.face_center(a, i, j, k);
            *v = (3.0 * p.y + a as f32).sin() * (2.0 * p.x - p.z).cos();
        });
    }
    let mut nu = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
    crate::grid::par_for_each_mut(spec.dims(), &mut nu.data, |i, j, _, v| {
        *v = 0.01 * (1.0 + (i + 2 * j) as f32 % 3.0);
    });
    (vel, phi, solids, nu)
}

/// The rows of `sys` summed by a serial sweep over the strain samples (cells in memory order,
/// then edges by axis), each sample scattered into the rows it reads.
fn swept_rows(
    spec: &GridSpec,
    vel: &MacGrid,
    solids: &Solids,
    nu: &Grid3<f32>,
    dt: f64,
    sys: &ViscositySystem,
) -> OwnedCsr {
    let g = &sys.grid;
    let st = Stencil {
        spec,
        vel,
        solids,
        face_row: &g.face_row,
        face_solid: &sys.face_solid,
        face_weight: &sys.face_weight,
        cell_weight: &sys.cell_weight,
        edge_weight: &sys.edge_weight,
        nu,
        dt,
    };
    let n = g.row_axis.len();
    let mut rows: Vec<Row> = (0..n).map(|_| Row::new()).collect();
    let mut rhs = vec![0.0; n];
    for r in 0..n {
        let (a, f) = (g.row_axis[r] as usize, g.row_face[r] as usize);
        let v = f64::from(sys.face_weight[a].data[f].max(DRY_FACE_WEIGHT));
        rows[r].add(r as u32, v);
        rhs[r] += v * f64::from(vel.axes()[a].data[f]);
    }
    let mut scatter = |s: Option<Strain>| {
        let Some(s) = s else { return };
        for (sample, _) in s.terms() {
            if let Some(i) = sample.row {
                let i = i as usize;
                add_sample(&mut rows[i], &mut rhs[i], i as u32, s.w, s.terms());
            }
        }
    };
    let [ni, nj, nk] = spec.dims();
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                for a in 0..spec.dimension() {
                    scatter(st.strain(a, StrainAt::Cell([i, j, k].map(|v| v as isize))));
                }
            }
        }
    }
    for &c in edge_axes(spec) {
        let d = edge_dims(spec, c);
        for k in 0..d[2] {
            for j in 0..d[1] {
                for i in 0..d[0] {
                    scatter(st.strain(c, StrainAt::Edge(c, [i, j, k].map(|v| v as isize))));
                }
            }
        }
    }
    let mut csr = OwnedCsr::default();
    csr.row_ptr.push(0);
    for (mut row, b) in rows.into_iter().zip(rhs) {
        for &(c, v) in row.sorted() {
            csr.col_idx.push(c);
            csr.values.push(v);
        }
        csr.row_ptr.push(csr.col_idx.len() as u64);
        csr.rhs.push(b);
    }
    csr
}

fn assembled(spec: GridSpec, walls: Walls, threads: usize) -> (ViscositySystem, OwnedCsr) {
    let (vel, phi, solids, nu) = scene(spec);
    let dt = 0.01;
    let mut sys = ViscositySystem::default();
    let liquid = Viscous { nu: &nu, walls };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    pool.install(|| assemble(&spec, &vel, &phi, &solids, liquid, dt, &mut sys));
    let swept = swept_rows(&spec, &vel, &solids, &nu, f64::from(dt), &sys);
    (sys, swept)
}

/// The first index where `a` and `b` differ in bits (or in length).
fn first_difference(a: &[f64], b: &[f64]) -> Option<usize> {
    let n = a.len().min(b.len());
    (0..n)
        .find(|&i| a[i].to_bits() != b[i].to_bits())
        .or((a.len() != b.len()).then_some(n))
}

#[test]
fn gathered_rows_are_the_swept_energy_bit_for_bit_on_any_thread_count() {
    for spec in [
        GridSpec::new(23, 19, 17, 0.04),
        GridSpec::new(101, 83, 1, 0.0105),
    ] {
        for walls in [Walls::NoSlip, Walls::FreeSlip] {
            let (one, swept) = assembled(spec, walls, 1);
            let (two, _) = assembled(spec, walls, 2);
            let rows = one.rows();
            assert!(rows > 2 * CHUNK_ROWS, "{rows} rows: more than two tasks");
            for csr in [&one.csr, &two.csr] {
                assert_eq!(csr.row_ptr, swept.row_ptr, "{spec:?} {walls:?}");
                assert_eq!(csr.col_idx, swept.col_idx, "{spec:?} {walls:?}");
                let values = first_difference(&csr.values, &swept.values);
                assert_eq!(values, None, "{spec:?} {walls:?}: matrix entry");
                let rhs = first_difference(&csr.rhs, &swept.rhs);
                assert_eq!(rhs, None, "{spec:?} {walls:?}: right-hand side");
            }
            assert_eq!(one.grid.row_face, two.grid.row_face);
        }
    }
}
