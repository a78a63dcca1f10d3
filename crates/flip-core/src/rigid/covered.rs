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
/// solids' own face fractions (a segment's two ends in 2D, a square's four corners in 3D).
pub(super) fn covered_faces(spec: &GridSpec, body: &RigidBody, mut visit: impl FnMut(CoveredFace)) {
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
                    let inside = f64::from(fraction_inside(dimension, axis, f, &node));
                    if inside <= 0.0 {
                        continue;
                    }
                    let mut centre: [f64; 3] = std::array::from_fn(|a| (f[a] as f64 + 0.5) * dx);
                    centre[axis] -= 0.5 * dx;
                    let r =
                        DVec3::from_array(point(spec, centre)) - DVec3::from_array(state.position);
                    visit(CoveredFace {
                        axis,
                        face: f,
                        inside,
                        r,
                    });
                }
            }
        }
    }
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
