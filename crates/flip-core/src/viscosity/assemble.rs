//! Assembly of the implicit viscosity system (Batty & Bridson 2008 §4) and the update of the
//! face velocities with its solution.

use super::weights::{edge_center, edge_dims, face_dims, fill, BlockBounds};
use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use crate::smoke::sample_cell;
use crate::solids::Solids;
use flip_abi::NO_ROW;
use flip_sdk::{OwnedCsr, OwnedViscosityGrid, ViscosityProblem};
use glam::Vec3;

/// Smallest share of a cell width left between a velocity sample and a no-slip wall: a
/// one-sided difference never spans less (Gibou et al. 2002's clamp of the ghost-fluid
/// fraction), which bounds the matrix's conditioning.
const MIN_WALL_FRACTION: f32 = 0.1;

/// Kinetic weight of a face with no liquid in its own control volume that a strain sample with
/// liquid reads (just outside the surface): small, so the strain decides its velocity and the
/// surface stays traction-free (a fixed value there would drag the surface layer), yet the
/// system stays positive definite.
const DRY_FACE_WEIGHT: f32 = 1e-3;

/// The assembled system of one step: the CSR matrix over the unknown face velocities and its
/// grid (`abi::ViscosityProblem`), kept between steps to reuse allocations.
#[derive(Clone, Debug, Default)]
pub struct ViscositySystem {
    /// `A u = rhs`; `csr.pressure` holds the face velocities (initial guess: the input).
    pub csr: OwnedCsr,
    /// Rows ↔ faces, weights and viscosity.
    pub grid: OwnedViscosityGrid,
    face_weight: [Grid3<f32>; 3],
    cell_weight: Grid3<f32>,
    edge_weight: [Grid3<f32>; 3],
    /// The solids' signed distance at each face (the strain stencils read every face many
    /// times).
    face_solid: [Grid3<f32>; 3],
}

impl ViscositySystem {
    /// The problem view handed to a solver.
    pub fn problem(&mut self) -> ViscosityProblem<'_> {
        self.grid.problem(&mut self.csr)
    }

    /// Number of unknown face velocities.
    pub fn rows(&self) -> usize {
        self.csr.rhs.len()
    }
}

/// How the liquid meets solid walls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Walls {
    /// The liquid sticks: faces inside a solid keep the solid's velocity, and every strain
    /// across the wall is taken to it (Batty & Bridson 2008).
    #[default]
    NoSlip,
    /// The liquid slides: no shear stress at a wall. The shear samples whose stencil reaches
    /// into a solid carry no energy, as outside the liquid; the normal velocity stays the
    /// solid's (the diagonal strains, and the pressure projection after).
    FreeSlip,
}

/// The liquid's viscous properties for one step.
#[derive(Clone, Copy, Debug)]
pub struct Viscous<'a> {
    /// Kinematic viscosity (m²/s) at cell centres.
    pub nu: &'a Grid3<f32>,
    pub walls: Walls,
}

/// Centre of face `idx` of `axis` (indices may lie outside the grid).
fn face_position(spec: &GridSpec, axis: usize, idx: [isize; 3]) -> Vec3 {
    let mut p = Vec3::new(idx[0] as f32, idx[1] as f32, idx[2] as f32) + Vec3::splat(0.5);
    p[axis] -= 0.5;
    p * spec.dx
}

/// The four faces the shear strain of edge `e` (in the plane of axes `a`, `b`) reads.
fn shear_faces(e: [isize; 3], a: usize, b: usize) -> [(usize, [isize; 3]); 4] {
    let (mut eb, mut ea) = (e, e);
    eb[b] -= 1;
    ea[a] -= 1;
    [(a, e), (a, eb), (b, e), (b, ea)]
}

/// The solids' signed distance at every face of the grid, computed once: the stencils read
/// each face many times.
fn fill_face_solid(spec: &GridSpec, solids: &Solids, table: &mut [Grid3<f32>; 3]) {
    for (a, grid) in table.iter_mut().enumerate().take(spec.dimension()) {
        let d = face_dims(spec, a);
        grid.reset(d[0], d[1], d[2], 0.0);
        crate::grid::par_for_each_mut(d, &mut grid.data, |i, j, k, v| {
            let idx = [i as isize, j as isize, k as isize];
            *v = solid_phi(spec, solids, face_position(spec, a, idx));
        });
    }
}

/// The solids' signed distance at face `idx` of `axis`: from `table` inside the grid, sampled
/// outside it (inside the domain walls).
fn face_solid_phi(
    spec: &GridSpec,
    solids: &Solids,
    table: &[Grid3<f32>; 3],
    axis: usize,
    idx: [isize; 3],
) -> f32 {
    let d = face_dims(spec, axis);
    if (0..3).all(|a| idx[a] >= 0 && (idx[a] as usize) < d[a]) {
        let [i, j, k] = idx.map(|v| v as usize);
        table[axis].data[i + d[0] * (j + d[1] * k)]
    } else {
        solid_phi(spec, solids, face_position(spec, axis, idx))
    }
}

/// Free slip: no shear energy on the edges whose stencil reads a face inside a solid.
fn release_walls(
    spec: &GridSpec,
    solids: &Solids,
    face_solid: &[Grid3<f32>; 3],
    edge_axes: &[usize],
    edge: &mut [Grid3<f32>; 3],
) {
    for &c in edge_axes {
        let (a, b) = edge_plane(c);
        let d = edge_dims(spec, c);
        crate::grid::par_for_each_mut(d, &mut edge[c].data, |i, j, k, w| {
            if *w <= 0.0 {
                return;
            }
            let e = [i as isize, j as isize, k as isize];
            let walled = shear_faces(e, a, b)
                .iter()
                .any(|&(axis, f)| face_solid_phi(spec, solids, face_solid, axis, f) <= 0.0);
            if walled {
                *w = 0.0;
            }
        });
    }
}

/// One velocity sample a difference reads: its row, or its known value, and the solid's
/// signed distance at it (≤ 0: inside a solid, moving with it).
#[derive(Clone, Copy)]
struct Sample {
    row: Option<u32>,
    value: f64,
    solid_phi: f32,
}

/// One term `coef · u` of a strain sample.
type Term = (Sample, f64);

/// What the strain stencils read.
struct Stencil<'a> {
    spec: &'a GridSpec,
    vel: &'a MacGrid,
    solids: &'a Solids,
    face_row: &'a [Vec<u32>; 3],
    face_solid: &'a [Grid3<f32>; 3],
}

/// The solid's signed distance at `p`: interpolated at cell centres, continued linearly past
/// the grid's outer centres (the domain walls are planes).
fn solid_phi(s: &GridSpec, solids: &Solids, p: Vec3) -> f32 {
    let lo = Vec3::splat(0.5 * s.dx);
    let hi = s.extent() - lo;
    let mut q = p.clamp(lo, hi);
    if s.is_2d() {
        q.z = p.z;
    }
    sample_cell(s, &solids.phi, q) - (p - q).length()
}

impl Stencil<'_> {
    /// The face `idx` of `axis`, possibly outside the grid (then inside the domain walls).
    fn sample(&self, axis: usize, idx: [isize; 3]) -> Sample {
        let s = self.spec;
        let solid_phi = face_solid_phi(s, self.solids, self.face_solid, axis, idx);
        let d = face_dims(s, axis);
        let inside = (0..3).all(|a| idx[a] >= 0 && (idx[a] as usize) < d[a]);
        if !inside {
            return Sample {
                row: None,
                value: 0.0,
                solid_phi: solid_phi.min(0.0),
            };
        }
        let (i, j, k) = (idx[0] as usize, idx[1] as usize, idx[2] as usize);
        let f = i + d[0] * (j + d[1] * k);
        let row = self.face_row[axis][f];
        let value = if solid_phi <= 0.0 {
            self.solids
                .velocity
                .as_ref()
                .map_or(0.0, |v| v.axes()[axis][(i, j, k)])
        } else {
            self.vel.axes()[axis][(i, j, k)]
        };
        Sample {
            row: (row != NO_ROW).then_some(row),
            value: f64::from(value),
            solid_phi,
        }
    }

    /// `(u_plus − u_minus) / dx` as terms, and the share of the interval outside solids. Across
    /// a no-slip wall the difference runs from the liquid sample to the wall at the solid's
    /// signed distance (`θ·dx` away), where the velocity is the solid's (the ghost-fluid rule
    /// of Gibou et al. 2002 applied to the velocity).
    fn difference(&self, plus: Sample, minus: Sample) -> ([Term; 2], f32) {
        let dx = self.spec.dx;
        let (sp, sm) = (plus.solid_phi <= 0.0, minus.solid_phi <= 0.0);
        let theta = if sp == sm {
            1.0
        } else {
            let (liquid, solid) = if sp {
                (minus.solid_phi, plus.solid_phi)
            } else {
                (plus.solid_phi, minus.solid_phi)
            };
            (liquid / (liquid - solid)).clamp(MIN_WALL_FRACTION, 1.0)
        };
        let c = 1.0 / f64::from(theta * dx);
        ([(plus, c), (minus, -c)], theta)
    }
}

/// Adds the energy `w·s²` of one strain sample `s = Σ coef·u` (eq. 10's terms) to the rows:
/// `A_ij += 2w c_i c_j` for unknowns, the known samples' part to the right-hand side.
fn add_sample(rows: &mut [Vec<(u32, f64)>], rhs: &mut [f64], w: f64, terms: &[Term]) {
    if w <= 0.0 || terms.iter().all(|(s, _)| s.row.is_none()) {
        return;
    }
    let known: f64 = terms
        .iter()
        .filter(|(s, _)| s.row.is_none())
        .map(|(s, c)| c * s.value)
        .sum();
    for &(si, ci) in terms {
        let Some(i) = si.row else { continue };
        rhs[i as usize] -= 2.0 * w * ci * known;
        let row = &mut rows[i as usize];
        for &(sj, cj) in terms {
            if let Some(j) = sj.row {
                // merged as added: a row has at most 15 distinct columns (3D) but gets dozens
                // of contributions
                let v = 2.0 * w * ci * cj;
                match row.iter_mut().find(|e| e.0 == j) {
                    Some(e) => e.1 += v,
                    None => row.push((j, v)),
                }
            }
        }
    }
}

/// Assembles the viscosity step of `dt` for the velocity `vel` (after forces) of the liquid
/// `phi` (negative inside, at cell centres) among `solids`, of the viscous properties
/// `liquid`, into `sys` (Batty & Bridson 2008 eq. 9-10, divided by ρ).
pub fn assemble(
    spec: &GridSpec,
    vel: &MacGrid,
    phi: &Grid3<f32>,
    solids: &Solids,
    liquid: Viscous<'_>,
    dt: f32,
    sys: &mut ViscositySystem,
) {
    let nu = liquid.nu;
    let dim = spec.dimension();
    let dt = f64::from(dt);
    // Liquid fractions of the control volumes (§4.2).
    let bounds = BlockBounds::new(spec, phi);
    for a in 0..dim {
        fill(
            spec,
            phi,
            &bounds,
            face_dims(spec, a),
            &mut sys.face_weight[a],
            |i, j, k| spec.face_center(a, i, j, k),
        );
    }
    fill(
        spec,
        phi,
        &bounds,
        spec.dims(),
        &mut sys.cell_weight,
        |i, j, k| spec.cell_center(i, j, k),
    );
    let edge_axes: &[usize] = if dim == 2 { &[2] } else { &[0, 1, 2] };
    for &c in edge_axes {
        fill(
            spec,
            phi,
            &bounds,
            edge_dims(spec, c),
            &mut sys.edge_weight[c],
            |i, j, k| edge_center(spec, c, i, j, k),
        );
    }
    fill_face_solid(spec, solids, &mut sys.face_solid);
    if liquid.walls == Walls::FreeSlip {
        release_walls(
            spec,
            solids,
            &sys.face_solid,
            edge_axes,
            &mut sys.edge_weight,
        );
    }
    // Unknowns: faces outside solids with liquid in their control volume or read by a strain
    // sample with liquid.
    let g = &mut sys.grid;
    *g = OwnedViscosityGrid {
        dimension: dim,
        dims: spec.dims(),
        dx: f64::from(spec.dx),
        dt,
        ..std::mem::take(g)
    };
    g.row_axis.clear();
    g.row_face.clear();
    let needed = read_faces(spec, &sys.cell_weight, &sys.edge_weight, edge_axes);
    let mut face_row: [Vec<u32>; 3] = Default::default();
    for a in 0..dim {
        let d = face_dims(spec, a);
        let w = &sys.face_weight[a];
        face_row[a] = vec![NO_ROW; w.len()];
        for k in 0..d[2] {
            for j in 0..d[1] {
                for i in 0..d[0] {
                    let f = w.index(i, j, k);
                    let wet = w.data[f] > 0.0 || needed[a][f];
                    if wet && sys.face_solid[a].data[f] > 0.0 {
                        face_row[a][f] = g.row_axis.len() as u32;
                        g.row_axis.push(a as u8);
                        g.row_face.push(f as u32);
                    }
                }
            }
        }
    }
    g.face_row = face_row;
    for a in 0..3 {
        g.face_weight[a] = if a < dim {
            sys.face_weight[a].data.clone()
        } else {
            Vec::new()
        };
        g.edge_weight[a] = if edge_axes.contains(&a) {
            sys.edge_weight[a].data.clone()
        } else {
            Vec::new()
        };
    }
    g.cell_weight = sys.cell_weight.data.clone();
    g.viscosity = nu.data.clone();
    let n = g.row_axis.len();
    let st = Stencil {
        spec,
        vel,
        solids,
        face_row: &g.face_row,
        face_solid: &sys.face_solid,
    };
    // distinct columns of a row: itself, its 2·dim neighbours of the same component, and the
    // 4 faces of each other component around its shear edges
    let width = 1 + 2 * dim + 4 * (dim - 1);
    let mut rows: Vec<Vec<(u32, f64)>> = (0..n).map(|_| Vec::with_capacity(width)).collect();
    let mut rhs = vec![0.0f64; n];
    let mut guess = vec![0.0f64; n];
    // Kinetic term ½ V_f (u − u*)².
    for r in 0..n {
        let (a, f) = (g.row_axis[r] as usize, g.row_face[r] as usize);
        let v = f64::from(sys.face_weight[a].data[f].max(DRY_FACE_WEIGHT));
        let u = f64::from(vel.axes()[a].data[f]);
        rows[r].push((r as u32, v));
        rhs[r] += v * u;
        guess[r] = u;
    }
    let at = |i: usize, j: usize, k: usize| [i as isize, j as isize, k as isize];
    let step = |mut x: [isize; 3], a: usize, d: isize| {
        x[a] += d;
        x
    };
    let [ni, nj, nk] = spec.dims();
    // Diagonal strains ε_aa = ∂u_a/∂x_a at cell centres, weight Δt ν V_c (eq. 10, τ11..τ33).
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                let vc = f64::from(sys.cell_weight[(i, j, k)]);
                if vc <= 0.0 {
                    continue;
                }
                let nu_c = f64::from(nu[(i, j, k)]);
                for a in 0..dim {
                    let c = at(i, j, k);
                    let (terms, theta) =
                        st.difference(st.sample(a, step(c, a, 1)), st.sample(a, c));
                    let w = dt * nu_c * vc * f64::from(theta);
                    add_sample(&mut rows, &mut rhs, w, &terms);
                }
            }
        }
    }
    // Shear strains ε_ab = ½(∂u_a/∂x_b + ∂u_b/∂x_a) on the edges along c, weight 2Δt ν V_e
    // (eq. 10, τ12, τ13, τ23: each appears twice in ‖ε‖²).
    for &c in edge_axes {
        let (a, b) = edge_plane(c);
        let d = edge_dims(spec, c);
        let we = &sys.edge_weight[c];
        for k in 0..d[2] {
            for j in 0..d[1] {
                for i in 0..d[0] {
                    let ve = f64::from(we[(i, j, k)]);
                    if ve <= 0.0 {
                        continue;
                    }
                    let e = at(i, j, k);
                    let (ta, tha) = st.difference(st.sample(a, e), st.sample(a, step(e, b, -1)));
                    let (tb, thb) = st.difference(st.sample(b, e), st.sample(b, step(e, a, -1)));
                    let terms = [
                        (ta[0].0, 0.5 * ta[0].1),
                        (ta[1].0, 0.5 * ta[1].1),
                        (tb[0].0, 0.5 * tb[0].1),
                        (tb[1].0, 0.5 * tb[1].1),
                    ];
                    let w = 2.0 * dt * edge_viscosity(nu, e, a, b) * ve * f64::from(tha.min(thb));
                    add_sample(&mut rows, &mut rhs, w, &terms);
                }
            }
        }
    }
    let csr = &mut sys.csr;
    csr.symmetric = true;
    csr.lcp = false;
    csr.row_flags.clear();
    csr.cells.clear();
    csr.row_ptr.clear();
    csr.row_ptr.push(0);
    csr.col_idx.clear();
    csr.values.clear();
    for mut row in rows {
        row.sort_unstable_by_key(|e| e.0);
        for (col, v) in row {
            csr.col_idx.push(col);
            csr.values.push(v);
        }
        csr.row_ptr.push(csr.col_idx.len() as u64);
    }
    csr.rhs = rhs;
    csr.pressure = guess;
}

/// Per axis, the faces that a diagonal strain of a cell with liquid or a shear strain of an
/// edge with liquid reads (in the grid).
fn read_faces(
    spec: &GridSpec,
    cell_weight: &Grid3<f32>,
    edge_weight: &[Grid3<f32>; 3],
    edge_axes: &[usize],
) -> [Vec<bool>; 3] {
    let dim = spec.dimension();
    let mut out: [Vec<bool>; 3] = Default::default();
    for (a, o) in out.iter_mut().enumerate().take(dim) {
        *o = vec![false; face_dims(spec, a).iter().product()];
    }
    let mut mark = |a: usize, x: [isize; 3]| {
        let d = face_dims(spec, a);
        if (0..3).all(|q| x[q] >= 0 && (x[q] as usize) < d[q]) {
            let [i, j, k] = x.map(|v| v as usize);
            out[a][i + d[0] * (j + d[1] * k)] = true;
        }
    };
    let [ni, nj, nk] = spec.dims();
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                if cell_weight[(i, j, k)] > 0.0 {
                    for a in 0..dim {
                        let c = [i as isize, j as isize, k as isize];
                        mark(a, c);
                        let mut up = c;
                        up[a] += 1;
                        mark(a, up);
                    }
                }
            }
        }
    }
    for &c in edge_axes {
        let (a, b) = edge_plane(c);
        let d = edge_dims(spec, c);
        for k in 0..d[2] {
            for j in 0..d[1] {
                for i in 0..d[0] {
                    if edge_weight[c][(i, j, k)] > 0.0 {
                        let e = [i as isize, j as isize, k as isize];
                        for (axis, f) in shear_faces(e, a, b) {
                            mark(axis, f);
                        }
                    }
                }
            }
        }
    }
    out
}

/// ν on an edge: the mean over the (up to four) cells around it, clamped into the grid.
fn edge_viscosity(nu: &Grid3<f32>, e: [isize; 3], a: usize, b: usize) -> f64 {
    let dims = [nu.ni, nu.nj, nu.nk];
    let mut sum = 0.0;
    for (da, db) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let mut c = e;
        c[a] -= da;
        c[b] -= db;
        let idx: [usize; 3] = std::array::from_fn(|x| c[x].clamp(0, dims[x] as isize - 1) as usize);
        sum += f64::from(nu[(idx[0], idx[1], idx[2])]);
    }
    0.25 * sum
}

/// Writes the solved face velocities (`sys.csr.pressure`) into `vel`; known faces keep theirs.
pub fn apply(sys: &ViscositySystem, vel: &mut MacGrid) {
    let g = &sys.grid;
    let axes = vel.axes_mut();
    for (r, &u) in sys.csr.pressure.iter().enumerate() {
        let (a, f) = (g.row_axis[r] as usize, g.row_face[r] as usize);
        axes[a].data[f] = u as f32;
    }
}

/// The two axes spanning the plane of an edge along `c` (the velocity components its shear
/// strain couples).
fn edge_plane(c: usize) -> (usize, usize) {
    match c {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}
