//! The Eulerian liquid on a tall-cell grid: the grid with the level set and the staggered
//! velocity at its samples, carried from step to step.

use super::grid::{Stagger, TallGrid};
use super::refit::{fit_heights, surface_heights};
use super::sample::{at, resample, Outside};
use serde::{Deserialize, Serialize};

/// Grid, liquid level set (negative inside, at cell samples), velocity (`u` at x-face
/// samples, `v` at y-face samples, `w` at z-face samples) and the last pressure (Pa, at cell
/// samples).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TallLiquid {
    /// The grid.
    pub grid: TallGrid,
    /// Liquid signed distance (m).
    pub phi: Vec<f32>,
    /// Velocity along x (m/s).
    pub u: Vec<f32>,
    /// Vertical velocity (m/s).
    pub v: Vec<f32>,
    /// Velocity along z (m/s; zero and unused in 2D).
    #[serde(default)]
    pub w: Vec<f32>,
    /// Pressure of the last projection (Pa).
    pub pressure: Vec<f32>,
}

impl TallLiquid {
    /// Still liquid with φ = +Δx everywhere (no water) on `grid`.
    fn dry(grid: TallGrid) -> Self {
        let n = grid.sample_count();
        Self {
            phi: vec![grid.dx; n],
            u: vec![0.0; n],
            v: vec![0.0; n],
            w: vec![0.0; n],
            pressure: vec![0.0; n],
            grid,
        }
    }

    /// Liquid at rest below the surface `surface(x)` (metres above the bottom; 2D, or the
    /// same profile along every z), the tall cells fitted to it.
    pub fn below(grid: TallGrid, surface: impl Fn(f32) -> f32) -> Self {
        Self::below_map(grid, |x, _| surface(x))
    }

    /// Liquid at rest below the surface `surface(x, z)` (metres above the bottom), the tall
    /// cells fitted to it.
    pub fn below_map(grid: TallGrid, surface: impl Fn(f32, f32) -> f32) -> Self {
        let mut liquid = Self::dry(grid);
        let dx = liquid.grid.dx;
        let heights: Vec<f32> = (0..liquid.grid.column_count())
            .map(|c| {
                let (i, k) = liquid.grid.ik(c);
                surface((i as f32 + 0.5) * dx, (k as f32 + 0.5) * dx) / dx
            })
            .collect();
        liquid.grid.tall = fit_heights(&liquid.grid, &heights);
        liquid.set_phi(|[x, y, z]| y - surface(x, z));
        liquid
    }

    /// Liquid at rest where `phi([x, y, z]) < 0` (a signed distance in metres, e.g. a block
    /// held by a dam that is released at the first step), the tall cells fitted to the
    /// surface the level set has on the regular grid.
    pub fn from_level_set(grid: TallGrid, phi: impl Fn([f32; 3]) -> f32) -> Self {
        let mut liquid = Self::dry(grid);
        let mut regular = liquid.grid.clone();
        regular.regular = regular.height;
        regular.tall.fill(super::grid::MIN_TALL);
        let mut probe = Self::dry(regular);
        probe.set_phi(&phi);
        let surface = surface_heights(&probe.grid, &probe.phi);
        liquid.grid.tall = fit_heights(&liquid.grid, &surface);
        liquid.set_phi(phi);
        liquid
    }

    /// Sets φ at every cell sample from `phi([x, y, z])`.
    pub fn set_phi(&mut self, phi: impl Fn([f32; 3]) -> f32) {
        let g = &self.grid;
        for c in 0..g.column_count() {
            for s in 0..g.slots() {
                let p = super::sample::position(g, Stagger::Centre, c, s);
                self.phi[g.index(c, s)] = phi(p);
            }
        }
    }

    /// The re-fit of each step: new tall-cell heights from the level set, every field
    /// re-sampled with the old layout's rule (information inside a growing tall cell is lost:
    /// the paper's "slight volume gain").
    pub fn refit(&mut self) {
        let surface = surface_heights(&self.grid, &self.phi);
        let tall = fit_heights(&self.grid, &surface);
        if tall == self.grid.tall {
            return;
        }
        let mut new = self.grid.clone();
        new.tall = tall;
        let old = &self.grid;
        let carry = |field: &[f32], stagger, outside| resample(old, &new, field, stagger, outside);
        self.phi = carry(&self.phi, Stagger::Centre, Outside::LevelSet);
        self.u = carry(&self.u, Stagger::FaceX, Outside::Velocity);
        self.v = carry(&self.v, Stagger::FaceY, Outside::Velocity);
        if old.is_3d() {
            self.w = carry(&self.w, Stagger::FaceZ, Outside::Velocity);
        }
        self.pressure = carry(&self.pressure, Stagger::Centre, Outside::Pressure);
        self.grid = new;
    }

    /// Largest speed component over the samples inside the liquid or next to it.
    pub fn max_speed(&self) -> f32 {
        let g = &self.grid;
        let mut top = 0.0f32;
        for n in 0..g.sample_count() {
            if self.phi[n] < g.dx {
                top = top.max(self.u[n].abs()).max(self.v[n].abs());
                if g.is_3d() {
                    top = top.max(self.w[n].abs());
                }
            }
        }
        top
    }

    /// Liquid volume (m³; in 2D the area, m²): each whole cell above the terrain counts the
    /// part of it below the surface, `clamp(½ − φ/Δx, 0, 1)` (exact for a flat surface).
    pub fn volume(&self) -> f64 {
        let g = &self.grid;
        let mut cells = 0.0f64;
        for c in 0..g.column_count() {
            let (i, k) = g.ik(c);
            for y in g.terrain[c]..g.height {
                let ik = [i as i64, k as i64];
                let p = at(
                    g,
                    &self.phi,
                    Stagger::Centre,
                    ik,
                    y as i64,
                    Outside::LevelSet,
                );
                cells += f64::from((0.5 - p / g.dx).clamp(0.0, 1.0));
            }
        }
        let dx = f64::from(g.dx);
        let area = cells * dx * dx;
        if g.is_3d() {
            area * dx
        } else {
            area
        }
    }

    /// Surface height (m) of column `c`.
    pub fn surface(&self, c: usize) -> f32 {
        surface_heights(&self.grid, &self.phi)[c] * self.grid.dx
    }

    /// Samples an unknown of the pressure problem could use (cell samples inside the lid).
    pub fn inside(&self, c: usize, s: usize) -> bool {
        self.grid.row(Stagger::Centre, c, s) < self.grid.height
    }
}
