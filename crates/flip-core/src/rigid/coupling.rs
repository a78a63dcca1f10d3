//! The bodies in the pressure solve (Batty, Bertails & Bridson 2007, §4).
//!
//! A body's velocity `V = (vx, vy, ω)` enters the divergence of every unknown cell through the
//! parts of its faces the body covers: the outflow of cell `c` gains `(J V)_c` with
//! `J_c = Σ_faces ±b_f (ê_a, (x_f − X) × ê_a)` (`b_f` the face's fraction inside the body).
//! The pressure pushes the body back by `Jᵀp` (force and torque, in solved units), so with
//! `M` the body's mass matrix the coupled system of the solved pressure `p̂ = p·dt/(ρ dx)` is
//!
//! `(A + J C Jᵀ) p̂ = rhs`, `C = ρ dx² M⁻¹` (per metre of depth),
//!
//! symmetric positive definite like `A`, and after the solve the body's velocity changes by
//! `ΔV = C Jᵀ p̂`. The low-rank term is solved here by the Woodbury identity with `k = 3`
//! solves of `A` per body (any solver of the structured problem does): `p̂ = x − Y S⁻¹ Jᵀ x`
//! with `x = A⁻¹ rhs`, `Y = A⁻¹ J`, `S = C⁻¹ + Jᵀ Y`.

use super::body::Bodies;
use crate::grid::GridSpec;
use crate::mac::MacGrid;
use crate::solids::Solids;
use flip_abi::CELL_FLUID;
use flip_sdk::stencil::fraction_inside_segment;
use flip_sdk::OwnedProblem;

/// Degrees of freedom of a 2D body: vx, vy, ω.
pub const DOF: usize = 3;

/// One column of `J`: the unknown cells a degree of freedom moves liquid out of, and how much.
#[derive(Clone, Debug, Default, PartialEq)]
struct Column {
    cells: Vec<usize>,
    values: Vec<f64>,
}

/// The bodies' columns of the coupled pressure system and their weights `C`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coupling {
    columns: Vec<Column>,
    /// `C`'s diagonal: `ρ dx² / m` for the velocities, `ρ dx² / I` for the spin.
    weight: Vec<f64>,
    /// The open faces that carry the extrapolated columns' flux `(J − J_f) V`.
    carriers: Vec<Carrier>,
    /// Each body's `(vx, vy, ω)` at the substep's start minus that the previous solve left:
    /// the part of `(J − J_f) V` the liquid does not carry yet ([`Coupling::shift_rhs`]).
    changes: Vec<[f64; DOF]>,
}

/// An open face beside a body whose velocity carries the body's flux that the extrapolated
/// columns place in the cell beyond it: `(J − J_f) V` is the divergence of these velocities.
#[derive(Clone, Debug, PartialEq)]
struct Carrier {
    axis: usize,
    /// The face `[i, j]` (MAC index).
    face: [usize; 2],
    /// The cells below and above the face.
    cells: [usize; 2],
    /// The face's open fraction.
    open: f64,
    body: usize,
    /// The face velocity per unit of the body's `(vx, vy, ω)`.
    per_dof: [f64; DOF],
}

impl Carrier {
    /// The face velocity for the body's velocity change `change`.
    fn velocity(&self, change: &[f64; DOF]) -> f64 {
        (0..DOF).map(|d| self.per_dof[d] * change[d]).sum()
    }
}

impl Coupling {
    /// The columns of `bodies` (placed at the substep's start) in the assembled `problem` on
    /// `spec`, with the liquid's density `density` (kg/m³).
    pub fn new(spec: &GridSpec, problem: &OwnedProblem, bodies: &Bodies, density: f64) -> Self {
        assert!(spec.is_2d(), "rigid bodies are coupled in 2D");
        let dx = f64::from(spec.dx);
        let cell_mass = density * dx * dx;
        let mut out = Self::default();
        for (k, body) in bodies.bodies.iter().enumerate() {
            let solved = bodies.solved.get(k).copied().unwrap_or_default();
            out.changes
                .push(std::array::from_fn(|d| body.state.dof()[d] - solved[d]));
            let extrapolated = body_columns(spec, problem, body);
            out.columns.extend(extrapolated.columns);
            out.carriers.extend(
                extrapolated
                    .carriers
                    .into_iter()
                    .map(|c| Carrier { body: k, ..c }),
            );
            out.weight.extend([
                cell_mass / body.mass(),
                cell_mass / body.mass(),
                cell_mass / body.inertia(),
            ]);
        }
        out
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
    /// carry it (`velocities` each body's `(vx, vy, ω)` after this solve, `solved` after the
    /// previous one), so the liquid's divergence measured with the face fractions is the
    /// coupled system's.
    pub fn add_extrapolated_flux(
        &self,
        vel: &mut MacGrid,
        velocities: &[[f64; DOF]],
        solved: &[[f64; DOF]],
    ) {
        for c in &self.carriers {
            let before = solved.get(c.body).copied().unwrap_or_default();
            let u = c.velocity(&std::array::from_fn(|d| velocities[c.body][d] - before[d]));
            vel.axes_mut()[c.axis][(c.face[0], c.face[1], 0)] += u as f32;
        }
    }

    /// Number of coupled degrees of freedom (3 per body).
    pub fn dof(&self) -> usize {
        self.columns.len()
    }

    /// Writes column `i` of `J` into the dense cell vector `out` (zero elsewhere).
    pub fn column_into(&self, i: usize, out: &mut [f64]) {
        out.fill(0.0);
        let c = &self.columns[i];
        for (&cell, &v) in c.cells.iter().zip(&c.values) {
            out[cell] = v;
        }
    }

    /// `Jᵀ x`.
    pub fn transpose_times(&self, x: &[f64]) -> Vec<f64> {
        self.columns
            .iter()
            .map(|c| c.cells.iter().zip(&c.values).map(|(&i, v)| v * x[i]).sum())
            .collect()
    }

    /// `out += J C Jᵀ x`: the low-rank part of the coupled operator.
    pub fn add_low_rank(&self, x: &[f64], out: &mut [f64]) {
        for ((c, w), jx) in self
            .columns
            .iter()
            .zip(&self.weight)
            .zip(self.transpose_times(x))
        {
            for (&i, v) in c.cells.iter().zip(&c.values) {
                out[i] += w * jx * v;
            }
        }
    }

    /// The coupled solution by the Woodbury identity: `x − Y S⁻¹ Jᵀ x` from `x = A⁻¹ rhs` and
    /// `y[i] = A⁻¹ J[:, i]`, in place of `x`.
    pub fn woodbury(&self, x: &mut [f64], y: &[Vec<f64>]) {
        let k = self.dof();
        assert_eq!(y.len(), k, "one solve per coupled degree of freedom");
        let mut s = vec![0.0; k * k];
        for (j, yj) in y.iter().enumerate() {
            for (i, jty) in self.transpose_times(yj).into_iter().enumerate() {
                s[i * k + j] = jty;
            }
        }
        for i in 0..k {
            for j in 0..i {
                let m = 0.5 * (s[i * k + j] + s[j * k + i]);
                s[i * k + j] = m;
                s[j * k + i] = m;
            }
            s[i * k + i] += 1.0 / self.weight[i];
        }
        let z = solve_dense(&mut s, self.transpose_times(x), k);
        for (yj, zj) in y.iter().zip(z) {
            for (xi, yi) in x.iter_mut().zip(yj) {
                *xi -= zj * yi;
            }
        }
    }

    /// Each body's velocity change `C Jᵀ p̂` as `(vx, vy, ω)`.
    pub fn velocity_change(&self, pressure: &[f64]) -> Vec<[f64; 3]> {
        let v: Vec<f64> = self
            .transpose_times(pressure)
            .into_iter()
            .zip(&self.weight)
            .map(|(f, w)| f * w)
            .collect();
        v.chunks(DOF).map(|c| [c[0], c[1], c[2]]).collect()
    }
}

/// `solids` with the faces the bodies cover moving with the pressure's velocity change `dv`
/// (`(vx, vy, ω)` per body of `bodies`, placed at the substep's start): each covered face's
/// solid velocity gains the change at the face, weighted by the body's share `b` of the face's
/// closed part, so the divergence is `J ΔV` away from the right-hand side's, as the coupled
/// system has it, also where a body touches another solid.
pub fn with_body_velocities(
    solids: &Solids,
    problem: &OwnedProblem,
    bodies: &[super::RigidBody],
    dv: &[[f64; 3]],
) -> Solids {
    let spec = solids.spec;
    let ni = spec.ni;
    let mut out = solids.clone();
    let vel = out.velocity.get_or_insert_with(|| MacGrid::zeros(&spec));
    for (body, d) in bodies.iter().zip(dv) {
        covered_faces(&spec, body, |a, [i, j], inside, r| {
            let upper = i + ni * j;
            let lower = if a == 0 { upper - 1 } else { upper - ni };
            let closed = 1.0 - f64::from(problem.face_open[a][lower]);
            if closed <= 0.0 {
                return;
            }
            let share = inside.min(closed) / closed;
            // Δv + Δω × r
            let change = [d[0] - d[2] * r[1], d[1] + d[2] * r[0]];
            vel.axes_mut()[a][(i, j, 0)] += (share * change[a]) as f32;
        });
    }
    out
}

/// The three columns of one body, and the start-of-substep flux they move (see
/// [`Coupling::shift_rhs`]). Every face near the body that it covers adds `±b (ê_a, r × ê_a)`
/// (`b` the covered fraction within the face's closed part) to the unknown cells on its two
/// sides (`+` on the cell the face bounds from above). Where only one side is an unknown, that
/// cell's pressure stands for the pressure on the body's surface, which lies `s` cells from its
/// centre along the face's axis: the pressure there is extrapolated linearly from the cell
/// and its neighbour away from the body, `p_s = (1 + s) p_c − s p_n` (as the ghost fluid
/// places the free surface, Gibou et al. 2002), so a hydrostatic pressure pushes with the
/// body's true displaced volume instead of the cell count.
fn body_columns(spec: &GridSpec, p: &OwnedProblem, body: &super::RigidBody) -> BodyColumns {
    let ni = spec.ni;
    let dx = f64::from(spec.dx);
    let strides = [1, ni];
    let centre = |c: usize| [((c % ni) as f64 + 0.5) * dx, ((c / ni) as f64 + 0.5) * dx];
    let phi = |c: usize| body.distance(&body.state, centre(c));
    let fluid = |c: usize| p.cell_kind[c] == CELL_FLUID;
    let mut acc: std::collections::BTreeMap<usize, [f64; DOF]> = Default::default();
    let mut carriers = vec![];
    let mut add = |cell: usize, w: f64, row: &[f64; DOF]| {
        let e = acc.entry(cell).or_default();
        for d in 0..DOF {
            e[d] += w * row[d];
        }
    };
    covered_faces(spec, body, |a, [i, j], inside, r| {
        let upper = i + ni * j;
        let lower = upper - strides[a];
        let b = inside.min(1.0 - f64::from(p.face_open[a][lower]));
        if b <= 0.0 {
            return;
        }
        let row = if a == 0 {
            [b, 0.0, -b * r[1]]
        } else {
            [0.0, b, b * r[0]]
        };
        for (cell, other, sign) in [(lower, upper, 1.0), (upper, lower, -1.0)] {
            if !fluid(cell) {
                continue;
            }
            add(cell, sign, &row);
            if fluid(other) {
                continue;
            }
            // the neighbour away from the body and the face to it (indexed by its lower cell)
            let at = (cell / strides[a]) % spec.dims()[a];
            let away = if sign > 0.0 {
                (at > 0).then(|| (cell - strides[a], cell - strides[a]))
            } else {
                (at + 1 < spec.dims()[a]).then_some((cell + strides[a], cell))
            };
            let Some((n, f)) = away.filter(|&(n, f)| fluid(n) && p.face_open[a][f] >= 0.5) else {
                continue;
            };
            let (pc, po) = (phi(cell), phi(other));
            if pc - po < 0.1 * dx {
                continue;
            }
            let s = (pc / (pc - po)).clamp(-0.5, 1.0);
            add(cell, sign * s, &row);
            add(n, -sign * s, &row);
            // the face between n and cell moves −s·row·V of flux out of the lower one
            let w = f64::from(p.face_open[a][f]);
            let upper = f + strides[a];
            carriers.push(Carrier {
                axis: a,
                face: [upper % ni, upper / ni],
                cells: [f, upper],
                open: w,
                body: 0,
                per_dof: row.map(|r| -s * r / w),
            });
        }
    });
    let mut cols: [Column; DOF] = Default::default();
    for (cell, v) in acc {
        for (c, v) in cols.iter_mut().zip(v) {
            if v != 0.0 {
                c.cells.push(cell);
                c.values.push(v);
            }
        }
    }
    BodyColumns {
        columns: cols,
        carriers,
    }
}

/// One body's columns of `J` and the open faces that carry their extrapolated part.
struct BodyColumns {
    columns: [Column; DOF],
    carriers: Vec<Carrier>,
}

/// Calls `visit(axis, [i, j], fraction, r)` for every inner MAC face the body (where its state
/// puts it) covers in part: `fraction` of the face inside the body (from its signed distance
/// at the face's two end nodes, as the solids' own face fractions), `r` from the body's centre
/// to the face's centre.
fn covered_faces(
    spec: &GridSpec,
    body: &super::RigidBody,
    mut visit: impl FnMut(usize, [usize; 2], f64, [f64; 2]),
) {
    let dx = f64::from(spec.dx);
    let dims = spec.dims();
    let state = &body.state;
    let reach = body.shape.reach() + 2.0 * dx;
    let range = |a: usize| {
        let lo = ((state.position[a] - reach) / dx).floor().max(0.0) as usize;
        let hi = ((state.position[a] + reach) / dx).ceil().max(0.0) as usize;
        (lo.min(dims[a]), hi.min(dims[a]))
    };
    let (ri, rj) = (range(0), range(1));
    let node = |i: usize, j: usize| body.distance(state, [i as f64 * dx, j as f64 * dx]) as f32;
    for a in 0..2 {
        for j in rj.0..=rj.1 {
            for i in ri.0..=ri.1 {
                let f = [i, j];
                if f[a] == 0 || f[a] >= dims[a] || f[1 - a] >= dims[1 - a] {
                    continue;
                }
                let mut end = f;
                end[1 - a] += 1;
                let inside = f64::from(fraction_inside_segment(node(i, j), node(end[0], end[1])));
                if inside <= 0.0 {
                    continue;
                }
                let mut centre = [(i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx];
                centre[a] -= 0.5 * dx;
                let r = [centre[0] - state.position[0], centre[1] - state.position[1]];
                visit(a, f, inside, r);
            }
        }
    }
}

/// Solves the small symmetric positive definite system `s z = b` (`k × k`, row-major) by
/// Gaussian elimination with partial pivoting.
fn solve_dense(s: &mut [f64], mut b: Vec<f64>, k: usize) -> Vec<f64> {
    for col in 0..k {
        let pivot = (col..k)
            .max_by(|&x, &y| s[x * k + col].abs().total_cmp(&s[y * k + col].abs()))
            .unwrap_or(col);
        if pivot != col {
            for c in 0..k {
                s.swap(col * k + c, pivot * k + c);
            }
            b.swap(col, pivot);
        }
        let d = s[col * k + col];
        for row in col + 1..k {
            let f = s[row * k + col] / d;
            for c in col..k {
                s[row * k + c] -= f * s[col * k + c];
            }
            b[row] -= f * b[col];
        }
    }
    let mut z = vec![0.0; k];
    for row in (0..k).rev() {
        let tail: f64 = (row + 1..k).map(|c| s[row * k + c] * z[c]).sum();
        z[row] = (b[row] - tail) / s[row * k + row];
    }
    z
}

#[cfg(test)]
#[path = "coupling_tests.rs"]
mod tests;
