//! The Eulerian liquid on a tall-cell grid: the grid with the level set and the staggered
//! velocity at its samples, carried from step to step.

use super::grid::{Stagger, TallGrid};
use super::refit::{fit_heights, surface_heights};
use super::sample::{at, resample, Outside};
use serde::{Deserialize, Serialize};

/// Grid, liquid level set (negative inside, at cell samples), velocity (`u` at x-face
/// samples, `v` at y-face samples) and the last pressure (Pa, at cell samples).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TallLiquid {
    /// The grid.
    pub grid: TallGrid,
    /// Liquid signed distance (m).
    pub phi: Vec<f32>,
    /// Horizontal velocity (m/s).
    pub u: Vec<f32>,
    /// Vertical velocity (m/s).
    pub v: Vec<f32>,
    /// Pressure of the last projection (Pa).
    pub pressure: Vec<f32>,
}

impl TallLiquid {
    /// Liquid at rest below the surface `surface(x)` (metres above the bottom), the tall
    /// cells fitted to it.
    pub fn below(grid: TallGrid, surface: impl Fn(f32) -> f32) -> Self {
        let n = grid.sample_count();
        let mut liquid = Self {
            phi: vec![0.0; n],
            u: vec![0.0; n],
            v: vec![0.0; n],
            pressure: vec![0.0; n],
            grid,
        };
        let dx = liquid.grid.dx;
        let heights: Vec<f32> = (0..liquid.grid.columns)
            .map(|i| surface((i as f32 + 0.5) * dx) / dx)
            .collect();
        liquid.grid.tall = fit_heights(&liquid.grid, &heights);
        liquid.set_phi(|x, y| y - surface(x));
        liquid
    }

    /// Sets φ at every cell sample from `phi(x, y)`.
    pub fn set_phi(&mut self, phi: impl Fn(f32, f32) -> f32) {
        let g = &self.grid;
        for i in 0..g.columns {
            for s in 0..g.slots() {
                let (x, y) = super::sample::position(g, Stagger::Centre, i, s);
                self.phi[g.index(i, s)] = phi(x, y);
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
        self.phi = resample(old, &new, &self.phi, Stagger::Centre, Outside::LevelSet);
        self.u = resample(old, &new, &self.u, Stagger::FaceX, Outside::Velocity);
        self.v = resample(old, &new, &self.v, Stagger::FaceY, Outside::Velocity);
        self.pressure = resample(
            old,
            &new,
            &self.pressure,
            Stagger::Centre,
            Outside::Pressure,
        );
        self.grid = new;
    }

    /// Largest speed over the samples inside the liquid or next to it.
    pub fn max_speed(&self) -> f32 {
        let g = &self.grid;
        let mut top = 0.0f32;
        for i in 0..g.columns {
            for s in 0..g.slots() {
                let c = g.index(i, s);
                if self.phi[c] < g.dx {
                    top = top.max(self.u[c].abs()).max(self.v[c].abs());
                }
            }
        }
        top
    }

    /// Liquid area (2D volume, m²): each whole cell above the terrain counts the part of it
    /// below the surface, `clamp(½ − φ/Δx, 0, 1)` (exact for a flat surface).
    pub fn volume(&self) -> f64 {
        let g = &self.grid;
        let mut cells = 0.0f64;
        for i in 0..g.columns {
            for y in g.terrain[i]..g.height {
                let p = at(
                    g,
                    &self.phi,
                    Stagger::Centre,
                    i as i64,
                    y as i64,
                    Outside::LevelSet,
                );
                cells += f64::from((0.5 - p / g.dx).clamp(0.0, 1.0));
            }
        }
        cells * f64::from(g.dx) * f64::from(g.dx)
    }

    /// Surface height (m) of column `i`.
    pub fn surface(&self, i: usize) -> f32 {
        surface_heights(&self.grid, &self.phi)[i] * self.grid.dx
    }

    /// Samples an unknown of the pressure problem could use (cell samples inside the lid).
    pub fn inside(&self, i: usize, s: usize) -> bool {
        self.grid.row(Stagger::Centre, i, s) < self.grid.height
    }
}
