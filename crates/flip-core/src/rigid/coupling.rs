//! The bodies in the pressure solve (Batty, Bertails & Bridson 2007, §4).
//!
//! A body's generalised velocity `V = (v, ω)` (3 degrees of freedom in 2D: vx, vy, ωz; 6 in
//! 3D) enters the divergence of every unknown cell through the parts of its faces the body
//! covers: the outflow of cell `c` gains `(J V)_c` with `J_c = Σ_faces ±b_f (ê_a, r_f × ê_a)`
//! (`b_f` the face's fraction inside the body, `r_f` from the body's centre to the face). The
//! pressure pushes the body back by `Jᵀp` (force and torque, in solved units), so with `M` the
//! body's mass matrix (`m` on the velocities, the world-axes inertia tensor `R I Rᵀ` on the
//! spin) the coupled system of the solved pressure `p̂ = p·dt/(ρ dx)` is
//!
//! `(A + J C Jᵀ) p̂ = rhs`, `C = ρ dxᵈ M⁻¹` (2D: per metre of depth),
//!
//! symmetric positive definite like `A`, and after the solve the body's velocity changes by
//! `ΔV = C Jᵀ p̂`. The columns and blocks are handed to a solver plugin as the coupled problem
//! kind (`flip_abi::CoupledProblem`, [`Coupling::terms`]); the operator products and the
//! Woodbury identity live with that kind in `flip_sdk::coupled`.

use super::body::{dofs, Bodies, RigidBody, Twist};
use super::covered::{covered_faces, point, strides};
use super::resting::pinning;
use crate::grid::GridSpec;
use crate::mac::MacGrid;
use flip_abi::CELL_FLUID;
use flip_sdk::coupled::invert;
use flip_sdk::{BodyTerms, OwnedBodyTerms, OwnedProblem};
use std::collections::BTreeMap;

/// One column of `J`: the unknown cells a degree of freedom moves liquid out of, and how much.
#[derive(Clone, Debug, Default, PartialEq)]
struct Column {
    cells: Vec<usize>,
    values: Vec<f64>,
}

/// The bodies' columns of the coupled pressure system and their weights `C`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coupling {
    /// The degrees of freedom of each body, as indices into a [`Twist`].
    dofs: &'static [usize],
    /// `J` (`dofs.len()` columns per body) and each body's block of `C = ρ dxᵈ M⁻¹`
    /// (`k × k`, row-major, `k = dofs.len()`), as the coupled problem kind carries them.
    terms: OwnedBodyTerms,
    /// The open faces that carry the extrapolated columns' flux `(J − J_f) V`.
    carriers: Vec<Carrier>,
    /// Each body's velocity at the substep's start minus that the previous solve left: the
    /// part of `(J − J_f) V` the liquid does not carry yet ([`Coupling::shift_rhs`]).
    changes: Vec<Twist>,
    /// Each body's own columns of `J` and block of `C`, before any resting contact pinned
    /// some of its motion ([`Coupling::pinned`]).
    blocks: Vec<(Vec<Column>, Vec<f64>)>,
}

/// An open face beside a body whose velocity carries the body's flux that the extrapolated
/// columns place in the cell beyond it: `(J − J_f) V` is the divergence of these velocities.
#[derive(Clone, Debug, PartialEq)]
struct Carrier {
    axis: usize,
    /// The face `[i, j, k]` (MAC index).
    face: [usize; 3],
    /// The cells below and above the face.
    cells: [usize; 2],
    /// The face's open fraction.
    open: f64,
    body: usize,
    /// The face velocity per unit of the body's twist.
    per_dof: Twist,
}

impl Carrier {
    /// The face velocity for the body's velocity change `change`.
    fn velocity(&self, change: &Twist) -> f64 {
        (0..6).map(|d| self.per_dof[d] * change[d]).sum()
    }
}

impl Coupling {
    /// The columns of `bodies` (placed at the substep's start) in the assembled `problem` on
    /// `spec`, with the liquid's density `density` (kg/m³).
    pub fn new(spec: &GridSpec, problem: &OwnedProblem, bodies: &Bodies, density: f64) -> Self {
        let dofs = dofs(spec.dimension());
        let cell_mass = density * f64::from(spec.dx).powi(spec.dimension() as i32);
        let mut out = Self {
            dofs,
            terms: OwnedBodyTerms::new(dofs.len()),
            ..Self::default()
        };
        for (b, body) in bodies.bodies.iter().enumerate() {
            let solved = bodies.solved.get(b).copied().unwrap_or_default();
            let start = body.state.twist();
            out.changes
                .push(std::array::from_fn(|d| start[d] - solved[d]));
            let extrapolated = body_columns(spec, problem, body, dofs);
            out.carriers.extend(
                extrapolated
                    .carriers
                    .into_iter()
                    .map(|c| Carrier { body: b, ..c }),
            );
            let mass = mass_matrix(body, dofs);
            let weight: Vec<f64> = (invert(&mass, dofs.len()).into_iter())
                .map(|m| m * cell_mass)
                .collect();
            out.blocks.push((extrapolated.columns, weight));
        }
        out.terms = out.pinned_terms(&[]);
        out
    }

    /// The same coupling with body `b`'s motion along its contact rows `pins[b]` pinned (see
    /// [`super::resting::pinning`]): its columns become `J P`, so the solve gives it no
    /// velocity change into those contacts and the solid takes that push instead.
    pub fn pinned(&self, pins: &[Vec<Twist>]) -> Self {
        Self {
            terms: self.pinned_terms(pins),
            ..self.clone()
        }
    }

    /// The terms of the bodies' columns and blocks, each body's columns times its pinning
    /// projection where `pins` has rows for it.
    fn pinned_terms(&self, pins: &[Vec<Twist>]) -> OwnedBodyTerms {
        let mut terms = OwnedBodyTerms::new(self.dofs.len());
        for (b, (columns, weight)) in self.blocks.iter().enumerate() {
            match pins.get(b).filter(|rows| !rows.is_empty()) {
                None => (columns.iter()).for_each(|c| {
                    terms.push_column(c.cells.iter().copied().zip(c.values.iter().copied()))
                }),
                Some(rows) => {
                    let p = pinning(rows, self.dofs, weight);
                    (0..self.dofs.len())
                        .for_each(|d| terms.push_column(projected_column(columns, &p, d)));
                }
            }
            terms.weight.extend_from_slice(weight);
        }
        terms
    }

    /// Makes the assembled right-hand side (`−outflow`, the bodies' faces moving at their
    /// start velocity `V` through the face fractions `J_f`) that of the coupled system:
    /// `rhs −= (J − J_f) V`, so a body and liquid moving together stay divergence free.
    pub fn shift_rhs(&self, rhs: &mut [f64]) {
        for c in &self.carriers {
            // the carrier's outflow from the cell below minus that above
            let flux = c.open * c.velocity(&self.changes[c.body]);
            let [lower, upper] = c.cells;
            rhs[lower] -= flux;
            rhs[upper] += flux;
        }
    }

    /// Adds the extrapolated columns' flux `(J − J_f)(V − V_solved)` to the open faces that
    /// carry it (`velocities` each body's twist after this solve, `solved` after the previous
    /// one), so the liquid's divergence measured with the face fractions is the coupled
    /// system's.
    pub fn add_extrapolated_flux(&self, vel: &mut MacGrid, velocities: &[Twist], solved: &[Twist]) {
        for c in &self.carriers {
            let before = solved.get(c.body).copied().unwrap_or_default();
            let u = c.velocity(&std::array::from_fn(|d| velocities[c.body][d] - before[d]));
            let [i, j, k] = c.face;
            vel.axes_mut()[c.axis][(i, j, k)] += u as f32;
        }
    }

    /// Number of coupled degrees of freedom (3 per body in 2D, 6 in 3D).
    pub fn dof(&self) -> usize {
        self.terms.view().columns()
    }

    /// `J` and `C` as the coupled problem kind carries them.
    pub fn terms(&self) -> &OwnedBodyTerms {
        &self.terms
    }

    /// Each body's velocity change `C Jᵀ p̂` as a twist (zero in the degrees of freedom a 2D
    /// body does not have).
    pub fn velocity_change(&self, pressure: &[f64]) -> Vec<Twist> {
        let k = self.dofs.len();
        let terms: BodyTerms<'_> = self.terms.view();
        (terms.weigh(&terms.transpose_times(pressure)).chunks(k))
            .map(|dv| {
                let mut t = [0.0; 6];
                for (&d, v) in self.dofs.iter().zip(dv) {
                    t[d] = *v;
                }
                t
            })
            .collect()
    }
}

/// Column `d` of `J P`: `Σ_e J_e P[e][d]` over a body's columns `J_e` (`p` row-major, `k × k`).
fn projected_column(columns: &[Column], p: &[f64], d: usize) -> BTreeMap<usize, f64> {
    let k = columns.len();
    let mut combined = BTreeMap::new();
    for (e, c) in columns.iter().enumerate() {
        let w = p[e * k + d];
        if w == 0.0 {
            continue;
        }
        for (&cell, &v) in c.cells.iter().zip(&c.values) {
            *combined.entry(cell).or_default() += w * v;
        }
    }
    combined
}

/// `body`'s mass matrix on `dofs`: the mass on the velocities, the inertia tensor in world
/// axes on the spin (`k × k`, row-major).
fn mass_matrix(body: &RigidBody, dofs: &[usize]) -> Vec<f64> {
    let inertia = body.inertia(&body.state);
    let k = dofs.len();
    let mut m = vec![0.0; k * k];
    for (i, &a) in dofs.iter().enumerate() {
        for (j, &b) in dofs.iter().enumerate() {
            m[i * k + j] = match (a, b) {
                (a, b) if a < 3 && a == b => body.mass(),
                (a, b) if a >= 3 && b >= 3 => inertia.col(b - 3)[a - 3],
                _ => 0.0,
            };
        }
    }
    m
}

/// The columns of one body on its degrees of freedom `dofs`, and the start-of-substep flux
/// they move (see [`Coupling::shift_rhs`]). Every face near the body that it covers adds
/// `±b (ê_a, r × ê_a)` (`b` the covered fraction within the face's closed part) to the unknown
/// cells on its two sides (`+` on the cell the face bounds from above). Where the body's
/// surface crosses the face's axis within the cell on a side (the cell nearest the body's
/// surface along that line, whether the cell across is an unknown or not), that cell's
/// pressure stands for the pressure on the surface, which lies `s` cells from its centre: the pressure there is extrapolated linearly
/// from the cell and its neighbour away from the body, `p_s = (1 + s) p_c − s p_n` (as the
/// ghost fluid places the free surface, Gibou et al. 2002), so a hydrostatic pressure pushes
/// with the body's true displaced volume instead of the cell count. `s` is where the surface
/// crosses the axis line through the face's covered part (not the two centres' distances,
/// which are equal beside a box's side face and left the cells along its rim unextrapolated).
fn body_columns(
    spec: &GridSpec,
    p: &OwnedProblem,
    body: &RigidBody,
    dofs: &[usize],
) -> BodyColumns {
    let dx = f64::from(spec.dx);
    let dims = spec.dims();
    let strides = strides(spec);
    let centre = |c: usize| {
        let ijk = [
            c % spec.ni,
            (c / spec.ni) % spec.nj,
            c / (spec.ni * spec.nj),
        ];
        point(spec, ijk.map(|n| (n as f64 + 0.5) * dx))
    };
    let fluid = |c: usize| p.cell_kind[c] == CELL_FLUID;
    let mut acc: std::collections::BTreeMap<usize, Twist> = Default::default();
    let mut carriers = vec![];
    let mut add = |cell: usize, w: f64, row: &Twist| {
        let e = acc.entry(cell).or_default();
        for d in 0..6 {
            e[d] += w * row[d];
        }
    };
    covered_faces(spec, body, |face| {
        let a = face.axis;
        let [lower, upper] = face.cells(spec);
        let b = face.inside.min(1.0 - f64::from(p.face_open[a][lower]));
        if b <= 0.0 {
            return;
        }
        let row = face.row().map(|r| b * r);
        for (cell, sign) in [(lower, 1.0), (upper, -1.0)] {
            if !fluid(cell) {
                continue;
            }
            add(cell, sign, &row);
            // the neighbour away from the body and the face to it (indexed by its lower cell)
            let at = (cell / strides[a]) % dims[a];
            let away = if sign > 0.0 {
                (at > 0).then(|| (cell - strides[a], cell - strides[a]))
            } else {
                (at + 1 < dims[a]).then_some((cell + strides[a], cell))
            };
            let Some((n, f)) = away.filter(|&(n, f)| fluid(n) && p.face_open[a][f] >= 0.5) else {
                continue;
            };
            let Some(s) = surface_offset(body, face.covered_centre, centre(cell)[a], a, sign, dx)
            else {
                continue;
            };
            add(cell, sign * s, &row);
            add(n, -sign * s, &row);
            // the face between n and cell moves −s·row·V of flux out of the lower one
            let w = f64::from(p.face_open[a][f]);
            let upper = f + strides[a];
            carriers.push(Carrier {
                axis: a,
                face: [
                    upper % spec.ni,
                    (upper / spec.ni) % spec.nj,
                    upper / (spec.ni * spec.nj),
                ],
                cells: [f, upper],
                open: w,
                body: 0,
                per_dof: row.map(|r| -s * r / w),
            });
        }
    });
    let mut columns: Vec<Column> = vec![Column::default(); dofs.len()];
    for (cell, v) in acc {
        for (c, &d) in columns.iter_mut().zip(dofs) {
            if v[d] != 0.0 {
                c.cells.push(cell);
                c.values.push(v[d]);
            }
        }
    }
    BodyColumns { columns, carriers }
}

/// Where `body`'s surface crosses the line along axis `a` through the covered part of a face
/// (its centre `covered`), from the centre `at` of the unknown cell beside the face towards the
/// body (`direction` ±1): `s` cells from the centre, within `[−0.5, 0.5]` (the face at 0.5).
/// `None` where the cell's other face on that line is inside the body too: the cell lies in a
/// column the body's side cuts, and the face's part is the face below's part continued (the
/// columns telescope to the pressure at the body's surface at their ends).
fn surface_offset(
    body: &RigidBody,
    covered: glam::DVec3,
    at: f64,
    a: usize,
    direction: f64,
    dx: f64,
) -> Option<f64> {
    let distance = |s: f64| {
        let mut x = covered;
        x[a] = at + direction * s * dx;
        body.distance(&body.state, x.to_array())
    };
    let (mut outside, mut inside) = (-0.5, 0.5);
    if distance(outside) <= 0.0 {
        return None;
    }
    if distance(inside) > 0.0 {
        return Some(inside);
    }
    for _ in 0..40 {
        let mid = 0.5 * (outside + inside);
        if distance(mid) > 0.0 {
            outside = mid;
        } else {
            inside = mid;
        }
    }
    Some(0.5 * (outside + inside))
}

/// One body's columns of `J` and the open faces that carry their extrapolated part.
struct BodyColumns {
    columns: Vec<Column>,
    carriers: Vec<Carrier>,
}

#[cfg(test)]
#[path = "coupling_tests.rs"]
mod tests;
