//! The MAC faces a body covers, and the liquid's velocity there: the body's.

use super::body::{RigidBody, Twist};
use crate::grid::GridSpec;
use crate::mac::MacGrid;
use crate::solids::Solids;
use flip_sdk::stencil::{fraction_inside_segment, fraction_inside_square};
use flip_sdk::OwnedProblem;
use glam::DVec3;

/// A face a body covers in part.
#[derive(Clone, Copy, Debug)]
pub(super) struct CoveredFace {
    /// The face's component (0, 1 or 2).
    pub axis: usize,
    /// Its MAC index `[i, j, k]`: the face on the low side of cell `[i, j, k]`.
    pub face: [usize; 3],
    /// The fraction of the face inside the body.
    pub inside: f64,
    /// From the body's centre to the face's centre (m).
    pub r: DVec3,
    /// The centre of the face's part inside the body (m, grid frame).
    pub covered_centre: DVec3,
}

impl CoveredFace {
    /// The cells below and above the face (linear indices).
    pub fn cells(&self, spec: &GridSpec) -> [usize; 2] {
        let [i, j, k] = self.face;
        let upper = i + spec.ni * (j + spec.nj * k);
        [upper - strides(spec)[self.axis], upper]
    }

    /// The face's row of `J` per unit covered: the normal and the moment arm, `(ê_a, r × ê_a)`.
    pub fn row(&self) -> Twist {
        let mut n = DVec3::ZERO;
        n[self.axis] = 1.0;
        let m = self.r.cross(n);
        [n.x, n.y, n.z, m.x, m.y, m.z]
    }
}

/// The linear-index step to the next cell along each axis.
pub(super) fn strides(spec: &GridSpec) -> [usize; 3] {
    [1, spec.ni, spec.ni * spec.nj]
}

/// A point of the grid in the bodies' frame: `(x, y, z)` in 3D, `(x, y, 0)` in 2D (2D bodies
/// lie in the plane z = 0).
pub(super) fn point(spec: &GridSpec, x: [f64; 3]) -> [f64; 3] {
    if spec.is_2d() {
        [x[0], x[1], 0.0]
    } else {
        x
    }
}

/// Calls `visit` for every inner MAC face that `body` (where its state puts it) covers in part:
/// the fraction inside from the body's signed distance at the face's corner nodes, as the
/// solids' own face fractions (a segment's two ends in 2D, a square's four corners in 3D), on
/// [`SUBDIVISIONS`]² sub-faces where the surface passes near the face (the corner values alone
/// cut off the corner of a box's footprint: a face its edge crosses loses up to half of its
/// covered part, so a 3D box displaced too little liquid and a neutral one sank).
pub(super) fn covered_faces(spec: &GridSpec, body: &RigidBody, mut visit: impl FnMut(CoveredFace)) {
    faces_near(spec, body, |c| {
        if c.inside > 0.0 {
            visit(c);
        }
    });
}

/// Calls `visit` for every inner MAC face near `body` (within its reach and two cells), with
/// the fraction inside it as [`covered_faces`] measures it, zero for the faces it misses.
fn faces_near(spec: &GridSpec, body: &RigidBody, mut visit: impl FnMut(CoveredFace)) {
    let dx = f64::from(spec.dx);
    let dims = spec.dims();
    let dimension = spec.dimension();
    let state = &body.state;
    let reach = body.shape.reach(dimension) + 2.0 * dx;
    // the nodes (and the faces below them) of the box around the body
    let range = |a: usize| {
        if a >= dimension {
            return (0, 0);
        }
        let lo = ((state.position[a] - reach) / dx).floor().max(0.0) as usize;
        let hi = ((state.position[a] + reach) / dx).ceil().max(0.0) as usize;
        (lo.min(dims[a]), hi.min(dims[a]))
    };
    let r = [range(0), range(1), range(2)];
    // a face's corners reach one node past it along the other axes
    let len = [0, 1, 2].map(|a| {
        if a < dimension {
            r[a].1 - r[a].0 + 2
        } else {
            1
        }
    });
    let mut nodes = vec![0.0f32; len[0] * len[1] * len[2]];
    for (n, v) in nodes.iter_mut().enumerate() {
        let at = [n % len[0], (n / len[0]) % len[1], n / (len[0] * len[1])];
        let x = std::array::from_fn(|a| (r[a].0 + at[a]) as f64 * dx);
        *v = body.distance(state, point(spec, x)) as f32;
    }
    let node = |c: [usize; 3]| {
        let l = [0, 1, 2].map(|a| c[a] - r[a].0);
        nodes[l[0] + len[0] * (l[1] + len[1] * l[2])]
    };
    for axis in 0..dimension {
        for k in r[2].0..=r[2].1 {
            for j in r[1].0..=r[1].1 {
                for i in r[0].0..=r[0].1 {
                    let f = [i, j, k];
                    let outside = (0..3).any(|a| {
                        if a == axis {
                            f[a] == 0 || f[a] >= dims[a]
                        } else {
                            f[a] >= dims[a]
                        }
                    });
                    if outside {
                        continue;
                    }
                    let mut centre: [f64; 3] = std::array::from_fn(|a| (f[a] as f64 + 0.5) * dx);
                    centre[axis] -= 0.5 * dx;
                    let centre = DVec3::from_array(point(spec, centre));
                    let (inside, covered_centre) = if near_surface(dimension, axis, f, &node, dx) {
                        subsampled_fraction(spec, body, axis, f)
                    } else {
                        let inside = fraction_inside(dimension, axis, f, &node);
                        (f64::from(inside), centre)
                    };
                    visit(CoveredFace {
                        axis,
                        face: f,
                        inside,
                        r: centre - DVec3::from_array(state.position),
                        covered_centre,
                    });
                }
            }
        }
    }
}

/// Sub-faces per side where the body's surface passes near a face.
const SUBDIVISIONS: usize = 4;

/// Covered fractions within this of 0 or 1 are snapped to it.
const SLIVER: f64 = 1e-3;

/// Whether the body's surface may pass through face `f`: a corner nearer to it than the
/// face's diagonal (the distance changes by at most that across the face).
fn near_surface(
    dimension: usize,
    axis: usize,
    f: [usize; 3],
    node: &impl Fn([usize; 3]) -> f32,
    dx: f64,
) -> bool {
    let reach = dx * ((dimension - 1) as f64).sqrt();
    (0..1 << (dimension - 1)).any(|bits: usize| {
        let mut corner = f;
        for (bit, a) in (0..dimension).filter(|&a| a != axis).enumerate() {
            corner[a] += (bits >> bit) & 1;
        }
        f64::from(node(corner)).abs() < reach
    })
}

/// The fraction of face `f` of component `axis` inside `body` and the centre of that part,
/// from the body's distance at the nodes of [`SUBDIVISIONS`]² sub-faces (sub-segments in 2D).
fn subsampled_fraction(
    spec: &GridSpec,
    body: &RigidBody,
    axis: usize,
    f: [usize; 3],
) -> (f64, DVec3) {
    let dx = f64::from(spec.dx);
    let n = SUBDIVISIONS;
    let h = dx / n as f64;
    let others: Vec<usize> = (0..spec.dimension()).filter(|&a| a != axis).collect();
    let origin = DVec3::from_array(std::array::from_fn(|a| f[a] as f64 * dx));
    let at = |u: usize, v: usize| {
        let mut x = origin;
        x[others[0]] += u as f64 * h;
        if let Some(&q) = others.get(1) {
            x[q] += v as f64 * h;
        }
        x
    };
    let distance = |x: DVec3| body.distance(&body.state, point(spec, x.to_array())) as f32;
    let rows = if others.len() == 2 { n + 1 } else { 1 };
    let values: Vec<f32> = (0..rows)
        .flat_map(|v| (0..=n).map(move |u| (u, v)))
        .map(|(u, v)| distance(at(u, v)))
        .collect();
    let value = |u: usize, v: usize| values[u + (n + 1) * v];
    let (mut inside, mut weighted) = (0.0, DVec3::ZERO);
    for v in 0..rows.max(2) - 1 {
        for u in 0..n {
            let part = if others.len() == 2 {
                fraction_inside_square([
                    value(u, v),
                    value(u + 1, v),
                    value(u + 1, v + 1),
                    value(u, v + 1),
                ])
            } else {
                fraction_inside_segment(value(u, 0), value(u + 1, 0))
            };
            let part = f64::from(part);
            let mut centre = at(u, v);
            centre[others[0]] += 0.5 * h;
            if let Some(&q) = others.get(1) {
                centre[q] += 0.5 * h;
            }
            inside += part;
            weighted += part * centre;
        }
    }
    let sub_faces = n.pow(others.len() as u32) as f64;
    let mut centre = origin;
    for &a in &others {
        centre[a] += 0.5 * dx;
    }
    let covered_centre = if inside > 0.0 {
        weighted / inside
    } else {
        centre
    };
    // a face a thousandth open or closed is taken as wholly so: such a sliver makes a cell
    // whose only opening it is a near-singular row of the pressure system
    let fraction = match inside / sub_faces {
        f if f < SLIVER => 0.0,
        f if f > 1.0 - SLIVER => 1.0,
        f => f,
    };
    (
        fraction,
        DVec3::from_array(point(spec, covered_centre.to_array())),
    )
}

/// The fraction of face `f` of component `axis` inside the body, from its distance at the
/// face's corner nodes (the corners in the order of the solids' face fractions).
fn fraction_inside(
    dimension: usize,
    axis: usize,
    f: [usize; 3],
    node: &impl Fn([usize; 3]) -> f32,
) -> f32 {
    if dimension == 2 {
        let mut end = f;
        end[1 - axis] += 1;
        return fraction_inside_segment(node(f), node(end));
    }
    let (p, q) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let corner = |dp: usize, dq: usize| {
        let mut c = f;
        c[p] += dp;
        c[q] += dq;
        node(c)
    };
    fraction_inside_square([corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)])
}

/// Makes the open fractions of `solids` (the scene `scene` with `bodies` added as shapes) at
/// the faces near the bodies those of [`covered_faces`], `min(open in the scene, 1 − inside)`,
/// so the liquid's faces and the bodies' columns of the coupled solve share one geometry; a
/// face only the finer fraction reaches moves with the body.
pub fn with_body_faces(solids: &mut Solids, scene: &Solids, bodies: &[RigidBody]) {
    let spec = solids.spec;
    let mut open: std::collections::BTreeMap<(usize, [usize; 3]), (f64, usize)> =
        Default::default();
    for (b, body) in bodies.iter().enumerate() {
        // every face near the body: the solids' own fractions may close a face (in single
        // precision) that the body's surface only touches
        faces_near(&spec, body, |c| {
            let [i, j, k] = c.face;
            let in_scene = f64::from(scene.face_open.axes()[c.axis][(i, j, k)]);
            let e = open.entry((c.axis, c.face)).or_insert((in_scene, b));
            if 1.0 - c.inside < e.0 {
                *e = (1.0 - c.inside, b);
            }
        });
    }
    for ((axis, [i, j, k]), (o, b)) in open {
        let face = &mut solids.face_open.axes_mut()[axis][(i, j, k)];
        let newly_closed = *face >= 1.0 && o < 1.0;
        *face = o as f32;
        if newly_closed {
            let body = &bodies[b];
            let mut centre: [f64; 3] = [i, j, k].map(|n| (n as f64 + 0.5) * f64::from(spec.dx));
            centre[axis] -= 0.5 * f64::from(spec.dx);
            let r =
                DVec3::from_array(point(&spec, centre)) - DVec3::from_array(body.state.position);
            let u = body.state.point_velocity(r)[axis];
            let vel = solids.velocity.get_or_insert_with(|| MacGrid::zeros(&spec));
            vel.axes_mut()[axis][(i, j, k)] = u as f32;
        }
    }
}

/// `solids` with the faces the bodies cover moving with the pressure's velocity change `dv`
/// (one twist per body of `bodies`, placed at the substep's start): each covered face's solid
/// velocity gains the change at the face, `Δv + Δω × r`, weighted by the body's share `b` of
/// the face's closed part, so the divergence is `J ΔV` away from the right-hand side's, as the
/// coupled system has it, also where a body touches another solid.
pub fn with_body_velocities(
    solids: &Solids,
    problem: &OwnedProblem,
    bodies: &[RigidBody],
    dv: &[Twist],
) -> Solids {
    let spec = solids.spec;
    let mut out = solids.clone();
    let vel = out.velocity.get_or_insert_with(|| MacGrid::zeros(&spec));
    for (body, d) in bodies.iter().zip(dv) {
        covered_faces(&spec, body, |c| {
            let [lower, _] = c.cells(&spec);
            let closed = 1.0 - f64::from(problem.face_open[c.axis][lower]);
            if closed <= 0.0 {
                return;
            }
            let share = c.inside.min(closed) / closed;
            let change = (0..6).map(|q| c.row()[q] * d[q]).sum::<f64>();
            let [i, j, k] = c.face;
            vel.axes_mut()[c.axis][(i, j, k)] += (share * change) as f32;
        });
    }
    out
}
