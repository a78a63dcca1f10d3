//! Resting contacts in the coupled pressure solve: a body that touches a static solid (a
//! domain wall, a box or sphere of the scene) and that the pressure pushes into it takes no
//! velocity change into the solid, as a contact constraint `g·V ≥ 0` with the contact force
//! in the same solve would give (an active set on the Monolith-style contact LCP of Takahashi
//! & Batty 2020, frictionless, static solids only). Without it the floor stops such a body only
//! the next substep, and the liquid beside it has moved with the push in between: the film
//! under a box resting on the floor is squeezed out and the liquid loses volume.
//!
//! A contact is a row `g = (n, r × n)` on the body's twist (`n` the solid's outward normal at
//! the touching point, `r` from the body's centre to it): `g·V` is the point's normal velocity,
//! positive when it leaves the solid.

use super::body::{BodyShape, BodyState, RigidBody, Twist};
use crate::solids::Solids;
use glam::DVec3;

/// How close (cells) a body's point must come to a static solid to touch it: rapier lets
/// bodies sink into one by a hundredth of a cell, and a body about to land is in contact too.
const TOUCHING: f64 = 0.05;

/// The contact rows of `body` (placed at its state) against the static solids of `scene`
/// (no other body): one per support point within [`TOUCHING`] of a solid.
pub fn contact_rows(scene: &Solids, body: &RigidBody) -> Vec<Twist> {
    let dx = f64::from(scene.spec.dx);
    let s = &body.state;
    let centre = DVec3::from_array(s.position);
    support_points(scene, body)
        .into_iter()
        .filter(|&p| f64::from(scene.distance(p.as_vec3())) < TOUCHING * dx)
        .filter_map(|p| {
            let n = scene.normal(p.as_vec3()).as_dvec3();
            (n != DVec3::ZERO).then(|| {
                let rn = (p - centre).cross(n);
                [n.x, n.y, n.z, rn.x, rn.y, rn.z]
            })
        })
        .collect()
}

/// The points of `body` (world, at its state) that can touch a static solid first: a box's
/// corners, a mesh's vertices, the point of a disc or ball nearest the solids.
fn support_points(scene: &Solids, body: &RigidBody) -> Vec<DVec3> {
    let s = &body.state;
    let (q, centre) = (s.rotation(), DVec3::from_array(s.position));
    let two_d = scene.spec.is_2d();
    match &body.shape {
        BodyShape::Box { size } => {
            let half = 0.5 * DVec3::from_array(*size);
            let layers: &[f64] = if two_d { &[0.0] } else { &[-1.0, 1.0] };
            let mut out = vec![];
            for &z in layers {
                for y in [-1.0, 1.0] {
                    for x in [-1.0, 1.0] {
                        out.push(centre + q * (DVec3::new(x, y, z) * half));
                    }
                }
            }
            out
        }
        BodyShape::Disc { radius } | BodyShape::Sphere { radius } => {
            let n = scene.normal(centre.as_vec3()).as_dvec3();
            vec![centre - *radius * n]
        }
        BodyShape::Mesh(mesh) => (mesh.vertices().iter())
            .map(|&v| centre + q * DVec3::from_array(v))
            .collect(),
    }
}

/// The rows of `rows` that the velocity change `dv` drives into their solid: the point's normal
/// velocity at the end state `end` plus the change is negative and the change pushes inwards.
pub fn pushed_in(rows: &[Twist], end: &BodyState, dv: &Twist) -> Vec<Twist> {
    let dot = |g: &Twist, v: &Twist| (0..6).map(|d| g[d] * v[d]).sum::<f64>();
    let v = end.twist();
    (rows.iter())
        .filter(|g| dot(g, dv) < 0.0 && dot(g, &v) + dot(g, dv) < 0.0)
        .copied()
        .collect()
}

/// The projection `P = I − C Ĝᵀ Ĝ` (`k × k`, row-major) on a body's degrees of freedom `dofs`
/// that keeps a velocity change `C (J P)ᵀ p` off the contact rows `rows`: `Ĝ` are the rows
/// restricted to `dofs` and made orthonormal in the metric `C` (the body's block `c`, `k × k`),
/// redundant ones dropped (four corners of a box flat on the floor pin three degrees of
/// freedom). Replacing the body's columns `J` by `J P` gives `G C Pᵀ = 0`, and the coupled
/// matrix `A + (J P) C (J P)ᵀ` stays symmetric positive definite.
pub fn pinning(rows: &[Twist], dofs: &[usize], c: &[f64]) -> Vec<f64> {
    let k = dofs.len();
    let apply_c = |g: &[f64]| -> Vec<f64> {
        (0..k)
            .map(|i| (0..k).map(|j| c[i * k + j] * g[j]).sum())
            .collect()
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut basis: Vec<(Vec<f64>, Vec<f64>)> = vec![]; // (ĝ, C ĝ)
    for row in rows {
        let mut g: Vec<f64> = dofs.iter().map(|&d| row[d]).collect();
        let scale = dot(&g, &apply_c(&g));
        for (b, cb) in &basis {
            let along = dot(&g, cb);
            g.iter_mut().zip(b).for_each(|(x, y)| *x -= along * y);
        }
        let cg = apply_c(&g);
        let norm = dot(&g, &cg);
        if norm > 1e-9 * scale && norm > 0.0 {
            let r = norm.sqrt().recip();
            basis.push((
                g.iter().map(|x| x * r).collect(),
                cg.iter().map(|x| x * r).collect(),
            ));
        }
    }
    let mut p = vec![0.0; k * k];
    for i in 0..k {
        p[i * k + i] = 1.0;
    }
    for (g, cg) in &basis {
        for i in 0..k {
            for j in 0..k {
                p[i * k + j] -= cg[i] * g[j];
            }
        }
    }
    p
}

#[cfg(test)]
#[path = "resting_tests.rs"]
mod tests;
