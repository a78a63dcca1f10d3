//! The re-fit of each step (Chentanez & Müller 2011 §3): every tall cell's top follows the
//! liquid surface, `under_surface` regular cells below it, and neighbouring tall cells (along
//! x and along z) differ by at most `D` cells ("restricted").

use super::grid::{Stagger, TallGrid, MIN_TALL};

/// Height of the liquid surface per column, in cells from the bottom: where φ crosses zero
/// above the highest liquid sample (linear between samples); the terrain for a dry column.
pub fn surface_heights(grid: &TallGrid, phi: &[f32]) -> Vec<f32> {
    (0..grid.column_count())
        .map(|i| {
            let centre = |s: usize| grid.row(Stagger::Centre, i, s) as f32 + 0.5;
            let wet = (0..grid.slots()).rev().find(|&s| {
                phi[grid.index(i, s)] < 0.0 && grid.row(Stagger::Centre, i, s) < grid.height
            });
            let Some(s) = wet else {
                return grid.terrain[i] as f32;
            };
            let p = phi[grid.index(i, s)];
            if s + 1 == grid.slots() {
                return centre(s) - p / grid.dx;
            }
            let q = phi[grid.index(i, s + 1)];
            let t = p / (p - q);
            centre(s) + t * (centre(s + 1) - centre(s))
        })
        .collect()
}

/// Tall-cell heights for `surface` (cells per column): the top `under_surface` cells below
/// the surface, at least [`MIN_TALL`], then lowered until neighbours differ by at most `D`:
/// the smallest of `target_j + D·|i − j|₁` over the columns `j` of the map (a city-block
/// distance transform, exact in two raster passes).
pub fn fit_heights(grid: &TallGrid, surface: &[f32]) -> Vec<usize> {
    if grid.fixed {
        return grid.tall.clone();
    }
    let mut h: Vec<usize> = (0..grid.column_count())
        .map(|i| {
            let ground = grid.terrain[i] as i64;
            let target = surface[i].floor() as i64 - grid.under_surface as i64 - ground;
            let room = (grid.height as i64 - ground - 1).max(MIN_TALL as i64);
            target.clamp(MIN_TALL as i64, room) as usize
        })
        .collect();
    let (d, nx) = (grid.max_step, grid.columns[0]);
    for c in 0..h.len() {
        let (i, k) = grid.ik(c);
        if i > 0 {
            h[c] = h[c].min(h[c - 1] + d);
        }
        if k > 0 {
            h[c] = h[c].min(h[c - nx] + d);
        }
    }
    for c in (0..h.len()).rev() {
        let (i, k) = grid.ik(c);
        if i + 1 < nx {
            h[c] = h[c].min(h[c + 1] + d);
        }
        if k + 1 < grid.columns[1] {
            h[c] = h[c].min(h[c + nx] + d);
        }
    }
    h
}
