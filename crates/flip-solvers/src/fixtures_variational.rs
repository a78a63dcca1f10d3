//! Variational reference problems, built as the host builds them (`Geometry::Variational`):
//! solids from a signed distance, every face's open fraction from the distance at its corners
//! (Batty, Bertails & Bridson 2007; `sdk::stencil::fraction_inside_*`), a liquid level set with
//! its zero crossing between cell centres and the ghost-fluid matrix of
//! [`OwnedProblem::assemble_variational`] (Gibou et al. 2002, θ clamped at `THETA_MIN`). Each
//! scene also has a voxelized twin (whole cells from the same distances, unit stencil) for
//! iteration-count comparisons.

use crate::owned::OwnedProblem;
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
use flip_sdk::stencil::{fraction_inside_segment, fraction_inside_square};

/// Scenes with fractional faces and ghost-fluid weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScene {
    /// A circle (2D) / sphere (3D) container, liquid to just above half height, slightly
    /// tilted surface.
    Container,
    /// A box whose floor is a wall slanted at about 17°, half filled.
    SlantedWall,
    /// A one-cell-thick plate off the cell centres, hanging from the lid to below the surface
    /// with a gap under it; liquid higher on its left. On even grids its closed faces lie on
    /// the faces of every coarse level.
    ThinPlate,
    /// The same plate one cell to the right: a face closed between two fluid cells lies inside
    /// a coarse block (the case a cell-centred hierarchy cannot represent; see
    /// `docs/guide/solvers.md`).
    StraddlingPlate,
}

/// Every variational scene, for loops in tests.
pub const ALL_VAR_SCENES: [VarScene; 4] = [
    VarScene::Container,
    VarScene::SlantedWall,
    VarScene::ThinPlate,
    VarScene::StraddlingPlate,
];

/// How the boundary is discretised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Face fractions and ghost-fluid weights.
    Variational,
    /// Whole cells by the sign of the distances at cell centres, unit stencil.
    Voxelized,
}

/// Geometry of a scene on a grid: signed distances (negative inside) in world units.
struct Geometry {
    scene: VarScene,
    /// Domain extent per axis.
    len: [f64; 3],
    dx: f64,
    three_d: bool,
    /// Liquid in the left half, full height (Lai's container scene) instead of the lower half.
    left_half: bool,
}

impl Geometry {
    /// Solid signed distance at `x` (union of the walls and the scene's shape: `min`).
    fn solid(&self, x: [f64; 3]) -> f64 {
        let axes = if self.three_d { 3 } else { 2 };
        // one-cell box walls: positive inside the box
        let walls = (0..axes)
            .map(|a| (x[a] - self.dx).min(self.len[a] - self.dx - x[a]))
            .fold(f64::INFINITY, f64::min);
        let c = self.len.map(|l| 0.5 * l);
        let shape = match self.scene {
            VarScene::Container => {
                let r2: f64 = (0..axes).map(|a| (x[a] - c[a]).powi(2)).sum();
                0.45 * self.len[0] - r2.sqrt()
            }
            VarScene::SlantedWall => {
                let (nx, ny) = (-0.3f64, 1.0f64);
                let norm = (nx * nx + ny * ny).sqrt();
                (nx * (x[0] - c[0]) + ny * (x[1] - 0.25 * self.len[1])) / norm
            }
            VarScene::ThinPlate | VarScene::StraddlingPlate => {
                // box SDF of the plate: centre off the cell centres by 0.3 dx, one cell thick
                let centre = [c[0] + self.plate_offset(), 0.6 * self.len[1], c[2]];
                let half = [0.5 * self.dx, 0.4 * self.len[1], 0.5 * self.len[2]];
                let q: Vec<f64> = (0..axes)
                    .map(|a| (x[a] - centre[a]).abs() - half[a])
                    .collect();
                let outside: f64 = q.iter().map(|v| v.max(0.0).powi(2)).sum::<f64>().sqrt();
                outside + q.iter().copied().fold(f64::NEG_INFINITY, f64::max).min(0.0)
            }
        };
        walls.min(shape)
    }

    /// Offset of the plate's centre from the domain's centre line (0 without a plate).
    fn plate_offset(&self) -> f64 {
        match self.scene {
            VarScene::ThinPlate => 0.3 * self.dx,
            VarScene::StraddlingPlate => 1.3 * self.dx,
            _ => 0.0,
        }
    }

    /// Liquid level set at `x`: a surface just above half height, tilted by 5 % (the thin
    /// plate holds the left side 0.15 higher); with `left_half`, a near-vertical surface just
    /// right of the centre line.
    fn liquid(&self, x: [f64; 3]) -> f64 {
        if self.left_half {
            return x[0] - (0.5 * self.len[0] + 0.3 * self.dx + 0.05 * (x[1] - 0.5 * self.len[1]));
        }
        let mut h = 0.5 * self.len[1] + 0.3 * self.dx + 0.05 * (x[0] - 0.5 * self.len[0]);
        if self.plate_offset() > 0.0 && x[0] < 0.5 * self.len[0] + self.plate_offset() {
            h += 0.15 * self.len[1];
        }
        x[1] - h
    }
}

fn hash(mut x: u64) -> f64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// Open fraction of the face of cell `pos` towards `+a`: 1 minus the fraction inside the solid
/// from the distance at its corners (exact for a linear field), 0 at the grid boundary.
fn face_open(g: &Geometry, dims: [usize; 3], pos: [usize; 3], a: usize) -> f32 {
    if pos[a] + 1 >= dims[a] {
        return 0.0;
    }
    let corner = |db: usize, dc: usize| {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let mut x = [0.0; 3];
        x[a] = (pos[a] + 1) as f64 * g.dx;
        x[b] = (pos[b] + db) as f64 * g.dx;
        x[c] = if g.three_d {
            (pos[c] + dc) as f64 * g.dx
        } else {
            (pos[c] as f64 + 0.5) * g.dx
        };
        g.solid(x) as f32
    };
    let inside = if !g.three_d {
        // the 2D face is the segment along the other in-plane axis
        let b = 1 - a;
        let at = |d: usize| {
            let mut x = [0.0; 3];
            x[a] = (pos[a] + 1) as f64 * g.dx;
            x[b] = (pos[b] + d) as f64 * g.dx;
            x[2] = 0.5 * g.dx;
            g.solid(x) as f32
        };
        fraction_inside_segment(at(0), at(1))
    } else {
        fraction_inside_square([corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)])
    };
    1.0 - inside
}

/// Builds `scene` on `dims` cells (`dims[2] == 1` in 2D, `dx = 1 / ni`) with `boundary`, and a
/// right-hand side `−Σ open · u` of a face velocity field seeded by `seed` (gravity on y).
pub fn build_variational(
    scene: VarScene,
    dims: [usize; 3],
    boundary: Boundary,
    seed: u64,
) -> OwnedProblem {
    build(scene, dims, boundary, seed, false)
}

fn build(
    scene: VarScene,
    dims: [usize; 3],
    boundary: Boundary,
    seed: u64,
    left_half: bool,
) -> OwnedProblem {
    let [ni, nj, nk] = dims;
    let dx = 1.0 / ni as f64;
    let three_d = nk > 1;
    let g = Geometry {
        scene,
        len: [ni as f64 * dx, nj as f64 * dx, nk as f64 * dx],
        dx,
        three_d,
        left_half,
    };
    let axes = if three_d { 3 } else { 2 };
    let mut p = OwnedProblem::empty(dims, dx);
    let centre = |c: usize| {
        let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
        (pos, pos.map(|v| (v as f64 + 0.5) * dx))
    };
    for c in 0..p.cell_count() {
        let (pos, x) = centre(c);
        p.solid_phi[c] = g.solid(x) as f32;
        p.liquid_phi[c] = g.liquid(x) as f32;
        for a in 0..3 {
            p.face_open[a][c] = if a < axes {
                face_open(&g, dims, pos, a)
            } else {
                0.0
            };
        }
    }
    let strides = [1, ni, ni * nj];
    for c in 0..p.cell_count() {
        let (pos, _) = centre(c);
        let solid = match boundary {
            Boundary::Voxelized => p.solid_phi[c] < 0.0,
            // a cell whose faces are all closed is solid (the host's rule)
            Boundary::Variational => (0..axes).all(|a| {
                let up = p.face_open[a][c] == 0.0;
                let down = pos[a] == 0 || p.face_open[a][c - strides[a]] == 0.0;
                up && down
            }),
        };
        p.cell_kind[c] = if solid {
            CELL_SOLID
        } else if p.liquid_phi[c] < 0.0 {
            CELL_FLUID
        } else {
            CELL_AIR
        };
    }
    match boundary {
        Boundary::Voxelized => p.assemble_matrix(),
        Boundary::Variational => p.assemble_variational(),
    }
    // rhs = −Σ ± open · u over the faces (the fraction-weighted divergence, solids at rest)
    for c in 0..p.cell_count() {
        if p.cell_kind[c] != CELL_FLUID {
            continue;
        }
        let (pos, _) = centre(c);
        let mut div = 0.0;
        for a in 0..axes {
            for (up, sign) in [(false, -1.0), (true, 1.0)] {
                if !up && pos[a] == 0 {
                    continue;
                }
                let f = if up { c } else { c - strides[a] };
                let open = f64::from(p.face_open[a][f]);
                let gravity = if a == 1 { -0.3 } else { 0.0 };
                let u = 0.5 * hash((f as u64 * 3 + a as u64) ^ seed.wrapping_mul(0x9e37_79b9));
                div += sign * open * (u + gravity);
            }
        }
        p.rhs[c] = -div;
    }
    p
}

/// The LCP version of `scene`: set S is every fluid cell with a face not fully open. The
/// container holds its liquid in the left half, full height, as Lai's container scene (so
/// gravity pulls it off the top of the wall and the constraint becomes active).
pub fn build_variational_lcp(
    scene: VarScene,
    dims: [usize; 3],
    boundary: Boundary,
    seed: u64,
) -> OwnedProblem {
    let mut p = build(scene, dims, boundary, seed, scene == VarScene::Container);
    let [ni, nj, nk] = dims;
    let strides = [1, ni, ni * nj];
    let axes = if nk > 1 { 3 } else { 2 };
    p.lcp = true;
    for c in 0..p.cell_count() {
        let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
        let touches = (0..axes).any(|a| {
            p.face_open[a][c] < 1.0 || (pos[a] > 0 && p.face_open[a][c - strides[a]] < 1.0)
        });
        p.complementarity[c] = u8::from(p.cell_kind[c] == CELL_FLUID && touches);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variational_scenes_have_fractional_faces_and_ghost_weights() {
        for dims in [[32, 32, 1], [16, 16, 16]] {
            for scene in ALL_VAR_SCENES {
                let p = build_variational(scene, dims, Boundary::Variational, 1);
                let fluid: Vec<usize> = (0..p.cell_count())
                    .filter(|&c| p.cell_kind[c] == CELL_FLUID)
                    .collect();
                assert!(fluid.len() > 20, "{scene:?} {dims:?}");
                let fractional = fluid
                    .iter()
                    .any(|&c| (0..3).any(|a| p.face_open[a][c] > 0.0 && p.face_open[a][c] < 1.0));
                assert!(fractional, "{scene:?} {dims:?}: fractional faces");
                // some diagonal is not an integer: a ghost-fluid weight 1/θ ≠ 1
                let ghost = fluid
                    .iter()
                    .any(|&c| (p.diag[c] - p.diag[c].round()).abs() > 1e-3);
                assert!(ghost, "{scene:?} {dims:?}: ghost-fluid weights");
                let vox = build_variational(scene, dims, Boundary::Voxelized, 1);
                assert!(
                    vox.diag.iter().all(|d| d.fract() == 0.0),
                    "{scene:?}: unit stencil"
                );
            }
        }
    }
}
