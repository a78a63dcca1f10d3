//! The coupled preconditioner (the V-cycle with the bodies' term on every level,
//! `outer::BodyLevels`): symmetric and positive for a body's dense block of `J` columns, as CG
//! needs.

use super::hierarchy::Hierarchy;
use super::level::Level;
use super::mgpcg::{precondition, Coupled};
use super::outer::{BodyLevels, BodySpace, LowRank, Vectors};
use super::*;
use crate::fixtures::{build, Scene};
use flip_sdk::OwnedBodyTerms;

/// A body filling the cells `lo..hi` of a `dims` grid: 6 columns (3 in 2D) pushing on its
/// faces with values that vary over them, and a dense SPD `C`.
fn body(dims: [usize; 3], lo: [usize; 3], hi: [usize; 3]) -> OwnedBodyTerms {
    let dofs = if dims[2] > 1 { 6 } else { 3 };
    let mut t = OwnedBodyTerms::new(dofs);
    let at = |i: usize, j: usize, k: usize| i + dims[0] * (j + dims[1] * k);
    for q in 0..dofs {
        let mut col = Vec::new();
        for k in lo[2]..hi[2] {
            for j in lo[1]..hi[1] {
                for i in lo[0]..hi[0] {
                    let face = i == lo[0] || i + 1 == hi[0] || j == lo[1] || j + 1 == hi[1];
                    if face {
                        let v = ((i * 7 + j * 3 + k * 5 + q * 11) % 13) as f64 / 13.0 - 0.4;
                        col.push((at(i, j, k), v));
                    }
                }
            }
        }
        t.push_column(col);
    }
    t.weight = (0..dofs * dofs)
        .map(|e| if e / dofs == e % dofs { 3.0 } else { 0.5 })
        .collect();
    t
}

/// `B r` into level 0's `x` by MGPCG's own preconditioner, `r` given on the natural unpadded
/// cells.
fn apply(h: &mut Hierarchy, v: &mut Vectors, coupled: Coupled<'_>, r: &[f64]) {
    load(&mut h.levels[0], r);
    precondition(h, v, Some(coupled));
}

fn load(level: &mut Level, r: &[f64]) {
    let [ni, nj, nk] = level.dims;
    for c in level.cs.iter_mut() {
        c.b.fill(0.0);
    }
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                let n = level.at(i, j, k);
                if level.unk[n] != 0 {
                    let (colour, index) = level.split(n);
                    level.cs[colour].b[index] = r[i + ni * (j + nj * k)] as f32;
                }
            }
        }
    }
}

/// `a · level.x`, `a` on the natural unpadded cells.
fn dot_x(level: &Level, a: &[f64]) -> f64 {
    let [ni, nj, nk] = level.dims;
    let mut s = 0.0;
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                let (colour, index) = level.split(level.at(i, j, k));
                s += a[i + ni * (j + nj * k)] * f64::from(level.cs[colour].x[index]);
            }
        }
    }
    s
}

#[test]
fn the_bodies_term_on_every_level_keeps_the_preconditioner_symmetric_and_positive() {
    for dims in [[40usize, 33, 1], [22, 19, 17]] {
        let mut p = build(Scene::FreeSurfaceBox, dims, 1);
        let hi_k = if dims[2] > 1 { 11 } else { 1 };
        let lo_k = if dims[2] > 1 { 5 } else { 0 };
        let terms = body(dims, [6, 3, lo_k], [13, 8, hi_k]);
        let mut h = Hierarchy::new(&MultigridConfig::default());
        h.update(&p.view());
        let bodies = LowRank::new(terms.view(), &h.levels[0]);
        let levels = BodyLevels::new(&bodies, &mut h).expect("the term carried");
        let space = BodySpace::new(&bodies, &h.levels[0]);
        let coupled = (&space, Some(&levels));
        let mut v = Vectors::default();
        v.fit(&h.levels[0], true);
        let n = dims.iter().product::<usize>();
        let wave = |f: f64| -> Vec<f64> { (0..n).map(|c| (f * c as f64).sin()).collect() };
        let (r1, r2) = (wave(0.37), wave(1.91));
        apply(&mut h, &mut v, coupled, &r1);
        let (r1z1, r2z1) = (dot_x(&h.levels[0], &r1), dot_x(&h.levels[0], &r2));
        apply(&mut h, &mut v, coupled, &r2);
        let (r1z2, r2z2) = (dot_x(&h.levels[0], &r1), dot_x(&h.levels[0], &r2));
        let asym = (r2z1 - r1z2).abs() / r1z2.abs().max(r2z1.abs());
        assert!(
            asym < 1e-4,
            "{dims:?}: r2·Br1 = {r2z1:e}, r1·Br2 = {r1z2:e}"
        );
        assert!(r1z1 > 0.0 && r2z2 > 0.0, "{dims:?}: {r1z1:e}, {r2z2:e}");
    }
}
