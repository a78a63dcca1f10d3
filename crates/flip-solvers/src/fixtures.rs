//! Reference pressure problems built the way the host assembles them (unit-coefficient
//! stencil, walls one cell thick, `rhs = -Σ face differences` of a seeded velocity field with
//! gravity). Used by every solver's tests and by the solver benchmarks.

use crate::owned::OwnedProblem;
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};

/// Scenes covering the cases every solver must handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// Liquid fills the lower half of a walled box; air above.
    FreeSurfaceBox,
    /// The reference dam break: a column filling x < 0.5, full height (and depth).
    DamBreak,
    /// Like `FreeSurfaceBox` filled to 3/4, with air bubbles (1 cell and 2×2(×2)) in the liquid.
    AirBubbles,
    /// The whole interior is liquid: pure Neumann (singular).
    ClosedBox,
    /// A solid wall splits the box; a puddle on each side, plus a one-cell puddle in the air.
    TwoPuddles,
    /// Liquid fills the left half of a solid circle/sphere; cells touching it form the LCP set S.
    LcpContainer,
}

/// Every scene, for loops in tests.
pub const ALL_SCENES: [Scene; 6] = [
    Scene::FreeSurfaceBox,
    Scene::DamBreak,
    Scene::AirBubbles,
    Scene::ClosedBox,
    Scene::TwoPuddles,
    Scene::LcpContainer,
];

fn hash(mut x: u64) -> f64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// Kind of cell `(i, j, k)` in `scene` (walls excluded).
fn interior_kind(scene: Scene, dims: [usize; 3], i: usize, j: usize, k: usize) -> u8 {
    let [ni, nj, nk] = dims;
    let is_3d = nk > 1;
    let (x, y) = ((i as f64 + 0.5) / ni as f64, (j as f64 + 0.5) / nj as f64);
    let z = (k as f64 + 0.5) / nk as f64;
    let fluid = |b: bool| if b { CELL_FLUID } else { CELL_AIR };
    match scene {
        Scene::FreeSurfaceBox => fluid(y < 0.5),
        Scene::DamBreak => fluid(x < 0.5),
        Scene::ClosedBox => CELL_FLUID,
        Scene::AirBubbles => {
            let (ci, cj, ck) = (ni / 3, nj / 3, nk / 2);
            let single = i == ci && j == cj && (!is_3d || k == ck);
            let (bi, bj) = (2 * ni / 3, nj / 2);
            let block = (bi..bi + 2).contains(&i)
                && (bj..bj + 2).contains(&j)
                && (!is_3d || (ck..ck + 2).contains(&k));
            if single || block {
                CELL_AIR
            } else {
                fluid(y < 0.75)
            }
        }
        Scene::TwoPuddles => {
            if i == ni / 2 {
                CELL_SOLID
            } else if i == ni / 4 && j == nj - 3 && (!is_3d || k == nk / 2) {
                CELL_FLUID // one-cell puddle floating in air
            } else {
                fluid(y < 0.3)
            }
        }
        Scene::LcpContainer => {
            let (dx, dy) = (x - 0.5, y - 0.5);
            let dz = if is_3d { z - 0.5 } else { 0.0 };
            if (dx * dx + dy * dy + dz * dz).sqrt() > 0.45 {
                CELL_SOLID
            } else {
                fluid(x < 0.5)
            }
        }
    }
}

/// Builds `scene` on a grid of `dims` cells (`dims[2] == 1` for 2D) with a velocity field
/// seeded by `seed`.
pub fn build(scene: Scene, dims: [usize; 3], seed: u64) -> OwnedProblem {
    let [ni, nj, nk] = dims;
    let is_3d = nk > 1;
    let dx = 1.0 / ni as f64;
    let mut p = OwnedProblem::empty(dims, dx);
    for k in 0..nk {
        for j in 0..nj {
            for i in 0..ni {
                let wall = i == 0
                    || j == 0
                    || i == ni - 1
                    || j == nj - 1
                    || (is_3d && (k == 0 || k == nk - 1));
                let c = p.index(i, j, k);
                p.cell_kind[c] = if wall {
                    CELL_SOLID
                } else {
                    interior_kind(scene, dims, i, j, k)
                };
                p.liquid_phi[c] = if p.cell_kind[c] == CELL_FLUID {
                    -0.5
                } else {
                    0.5
                } * dx as f32;
                p.solid_phi[c] = if p.cell_kind[c] == CELL_SOLID {
                    -0.5
                } else {
                    0.5
                } * dx as f32;
            }
        }
    }
    p.assemble_matrix();
    // Face velocities: seeded noise plus gravity on y-faces; faces at solids are 0.
    let strides = [1, ni, ni * nj];
    let axes = if is_3d { 3 } else { 2 };
    for c in 0..p.cell_count() {
        if p.cell_kind[c] != CELL_FLUID {
            continue;
        }
        let mut div = 0.0;
        for (a, &stride) in strides.iter().enumerate().take(axes) {
            for (dir, sign) in [(0usize, -1.0), (1, 1.0)] {
                // face between c - s (dir 0) or c + s (dir 1) and c
                let nb = if dir == 0 {
                    c.checked_sub(stride)
                } else {
                    Some(c + stride)
                };
                let Some(nb) = nb.filter(|&n| n < p.cell_count()) else {
                    continue;
                };
                if p.cell_kind[nb] == CELL_SOLID {
                    continue;
                }
                let face = c.min(nb) as u64 * 3 + a as u64;
                let gravity = if a == 1 { -0.3 } else { 0.0 };
                div += sign * (0.5 * hash(face ^ seed.wrapping_mul(0x9e3779b97f4a7c15)) + gravity);
            }
        }
        p.rhs[c] = -div;
    }
    if scene == Scene::LcpContainer {
        p.lcp = true;
        for c in 0..p.cell_count() {
            if p.cell_kind[c] != CELL_FLUID {
                continue;
            }
            let touches_solid = (0..axes).any(|a| {
                let lo = c
                    .checked_sub(strides[a])
                    .map(|n| p.cell_kind[n] == CELL_SOLID);
                let hi = (c + strides[a] < p.cell_count())
                    .then(|| p.cell_kind[c + strides[a]] == CELL_SOLID);
                lo == Some(true) || hi == Some(true)
            });
            p.complementarity[c] = u8::from(touches_solid);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stencil::Stencil;
    use flip_sdk::regions::Regions;

    #[test]
    fn scenes_have_the_expected_regions() {
        for dims in [[16, 16, 1], [10, 12, 9]] {
            let mut closed = build(Scene::ClosedBox, dims, 1);
            let v = closed.view();
            let r = Regions::of(&Stencil::of(&v).couplings());
            assert_eq!(r.singular, vec![true]);
            let mut puddles = build(Scene::TwoPuddles, dims, 1);
            let v = puddles.view();
            let r = Regions::of(&Stencil::of(&v).couplings());
            assert_eq!(r.singular.len(), 3, "two puddles and a one-cell puddle");
            assert!(!r.any_singular());
            // closed region: rhs sums to zero (compatible)
            let sum: f64 = closed.rhs.iter().sum();
            assert!(sum.abs() < 1e-9, "{sum}");
        }
    }
}
