//! The scenes of `bench tallcell`: the Tank (2D: `graphs/tallcell_tank_2d.ron`; 3D: 1.4 m of
//! water over hills in a 4 m square basin 2 m high, the deep-water scene) and the Flood of
//! `graphs/tallcell_flood_3d.ron` (a block of water released in the corner of a valley).

use anyhow::{anyhow, Result};
use flip_core::tallcell::{terrain, TallGrid, TallLiquid};

/// A benchmark scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// A wave tank over hills.
    Tank,
    /// Water released over terrain (3D).
    Flood,
}

impl Scene {
    /// The table's label.
    pub fn name(self) -> &'static str {
        match self {
            Scene::Tank => "Tank",
            Scene::Flood => "Flood",
        }
    }
}

/// The domain's width (m).
const WIDTH: f32 = 4.0;

/// Hills of the Tank in 2D (the `tallcell_source` node's `hills`, height 0.1, amplitude 0.06).
fn hills_2d(x: f32) -> f32 {
    let t = std::f32::consts::TAU * x / WIDTH;
    0.1 + 0.06 * (0.6 * (3.0 * t).sin() + 0.4 * (7.0 * t).cos())
}

/// Hills of the Tank in 3D (the node's 3D `hills`).
fn hills_3d(x: f32, z: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let (t, u) = (tau * x / WIDTH, tau * z / WIDTH);
    0.1 + 0.06 * (0.6 * (3.0 * t).sin() * (2.0 * u).cos() + 0.4 * (5.0 * t + 3.0 * u).cos())
}

/// The Flood's terrain: the formula `graphs/flood_terrain.png` was drawn from (a plain
/// falling from the corner, a valley along the diagonal, bumps), black 0.05 m, white 0.65 m.
fn valley(x: f32, z: f32) -> f32 {
    let (x, z) = (x / WIDTH, z / WIDTH);
    let slope = 0.55 * (1.0 - 0.5 * (x + z));
    let side = 0.35 * ((x - z).abs() * 1.6).min(1.0).powi(2);
    let bumps = 0.08 * (9.0 * x).sin() * (7.0 * z).sin();
    0.05 + 0.6 * (slope + side + bumps).clamp(0.0, 1.0)
}

/// `kind` on `n` columns (per side in 3D) as a `dim`-D grid (`regular: None` = the regular
/// grid of the same columns).
pub fn scene(dim: u8, kind: Scene, n: usize, regular: Option<usize>) -> Result<TallLiquid> {
    let dx = WIDTH / n as f32;
    let k = std::f32::consts::PI / WIDTH;
    let grid = |height: usize, t| TallGrid::new(height, dx, t, regular, 2).map_err(|e| anyhow!(e));
    match (dim, kind) {
        (2, Scene::Tank) => {
            let height = n * 3 / 16;
            let t = terrain::from_fn(n, dx, height.saturating_sub(4), hills_2d);
            Ok(TallLiquid::below(grid(height, t)?, |x| {
                0.45 + 0.02 * (k * x).cos()
            }))
        }
        (2, Scene::Flood) => Err(anyhow!("the Flood is a 3D scene")),
        (_, Scene::Tank) => {
            let height = n / 2;
            let t = terrain::from_map([n, n], dx, height.saturating_sub(4), hills_3d);
            Ok(TallLiquid::below(grid(height, t)?, |x| {
                1.4 + 0.02 * (k * x).cos()
            }))
        }
        (_, Scene::Flood) => {
            let height = n / 4;
            let t = terrain::from_map([n, n], dx, height.saturating_sub(4), valley);
            let dam = 0.3 * WIDTH;
            Ok(TallLiquid::from_level_set(grid(height, t)?, |[x, y, z]| {
                (y - 0.75).max(x - dam).max(z - dam)
            }))
        }
    }
}
