//! The liquid surface where it meets a curved solid.
//!
//! Mirroring particles across a curved wall (see [`super::particles`]) puts each image across a
//! different tangent plane, so the mirrored liquid meets the wall at a right angle: a flat
//! surface that meets a sloped or curved wall bends near the contact line by a few hundredths of
//! a cell, and still water in a round container keeps a slow current there. Near shapes, the
//! particle level set is therefore replaced by its linear extrapolation from the cells whose
//! kernel does not reach a shape (`φ(x) = φ(y) + ∇φ(y)·(x − y)`, layer by layer), which continues
//! a flat surface exactly; the mirrored value stays where the two disagree by a cell or more (a
//! film or a drop next to the wall, which the extrapolation cannot see).

use crate::grid::{Grid3, GridSpec};
use crate::solids::Solids;
use glam::Vec3;
use rayon::prelude::*;

/// Cells whose centre lies within this many cells of a shape see mirror images (kernel reach 2,
/// plus the half-diagonal of a cell).
const BAND: f32 = 3.0;
/// Layers of extrapolation into the band and the solid behind it.
const LAYERS: usize = 5;
/// The extrapolation replaces the mirrored value fully when they agree within `AGREE` cells, not
/// at all beyond `2 · AGREE`.
const AGREE: f32 = 0.5;
/// Weight of a step straight across the surface, relative to 1 for a step along it.
const TANGENT_FLOOR: f32 = 0.05;
/// Only values within this many cells of the surface are corrected.
const NEAR_SURFACE: f32 = 3.0;

/// Replaces `phi` near shapes by its extrapolation from cells away from them (module docs).
pub(crate) fn extend_across_shapes(spec: &GridSpec, solids: &Solids, phi: &mut Grid3<f32>) {
    if solids.shapes.is_empty() {
        return;
    }
    let near = near_shapes(spec, solids);
    if !near.iter().any(|&n| n) {
        return;
    }
    let (value, known) = extrapolate(spec, &phi.data, &near);
    let dx = spec.dx;
    phi.data
        .par_iter_mut()
        .zip(value.par_iter())
        .zip(known.par_iter().zip(near.par_iter()))
        .for_each(|((p, &e), (&k, &n))| {
            if !(n && k) || p.abs().min(e.abs()) > NEAR_SURFACE * dx {
                return;
            }
            let gap = (e - *p).abs() / dx;
            let w = ((2.0 * AGREE - gap) / AGREE).clamp(0.0, 1.0);
            *p += w * (e - *p);
        });
}

/// Whether each cell centre lies within [`BAND`] cells of a shape (or inside one).
fn near_shapes(spec: &GridSpec, solids: &Solids) -> Vec<bool> {
    let band = BAND * spec.dx;
    let mut near = vec![false; spec.cell_count()];
    crate::grid::par_for_each_mut(spec.dims(), &mut near, |i, j, k, n| {
        // the walls and shapes together are at least as near as the shapes alone
        if solids.phi[(i, j, k)] < band {
            *n = solids.shapes_distance(spec.cell_center(i, j, k)) < band;
        }
    });
    near
}

/// Linear extrapolation of `phi` from the cells off `near` into `near`, [`LAYERS`] face layers
/// deep; each layer takes the mean over its known face neighbours of `φ_n + ∇φ_n·(x − x_n)`, and
/// the mean of their gradients, weighted towards steps along the surface (`1 − (n̂·e)²`), where
/// the value does not depend on the profile across it. Returns the values and whether each cell got one.
fn extrapolate(spec: &GridSpec, phi: &[f32], near: &[bool]) -> (Vec<f32>, Vec<bool>) {
    let dims = spec.dims();
    let strides = [1, dims[0], dims[0] * dims[1]];
    let axes = spec.dimension();
    let mut known: Vec<bool> = near.iter().map(|&n| !n).collect();
    let mut value = phi.to_vec();
    let mut slope: Vec<Vec3> = (0..phi.len())
        .into_par_iter()
        .map(|c| {
            if known[c] {
                gradient(spec, phi, &known, c)
            } else {
                Vec3::ZERO
            }
        })
        .collect();
    for _ in 0..LAYERS {
        let next: Vec<Option<(f32, Vec3)>> = (0..phi.len())
            .into_par_iter()
            .map(|c| {
                if known[c] {
                    return None;
                }
                let at = index(dims, c);
                let (mut sum, mut grad, mut count) = (0.0f32, Vec3::ZERO, 0.0f32);
                for a in 0..axes {
                    for (ok, n, sign) in [
                        (at[a] > 0, c.wrapping_sub(strides[a]), -1.0f32),
                        (at[a] + 1 < dims[a], c + strides[a], 1.0),
                    ] {
                        if ok && known[n] {
                            // x − x_n is one cell along −sign on axis a; steps along the
                            // surface count most (they need no slope across it)
                            let along = slope[n].normalize_or_zero()[a];
                            let w = 1.0 - along * along + TANGENT_FLOOR;
                            sum += w * (value[n] - sign * spec.dx * slope[n][a]);
                            grad += w * slope[n];
                            count += w;
                        }
                    }
                }
                (count > 0.0).then(|| (sum / count, grad / count))
            })
            .collect();
        let mut grew = false;
        for (c, found) in next.into_iter().enumerate() {
            if let Some((v, g)) = found {
                (value[c], slope[c], known[c]) = (v, g, true);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    (value, known)
}

/// Gradient of `phi` at cell `c` by differences over known neighbours: central where both are
/// known, one-sided where one is, zero along an axis where none is.
fn gradient(spec: &GridSpec, phi: &[f32], known: &[bool], c: usize) -> Vec3 {
    let dims = spec.dims();
    let strides = [1, dims[0], dims[0] * dims[1]];
    let at = index(dims, c);
    let mut g = Vec3::ZERO;
    for a in 0..spec.dimension() {
        let lo = (at[a] > 0 && known[c - strides[a]]).then(|| c - strides[a]);
        let hi = (at[a] + 1 < dims[a] && known[c + strides[a]]).then(|| c + strides[a]);
        g[a] = match (lo, hi) {
            (Some(l), Some(h)) => (phi[h] - phi[l]) / (2.0 * spec.dx),
            (Some(l), None) => (phi[c] - phi[l]) / spec.dx,
            (None, Some(h)) => (phi[h] - phi[c]) / spec.dx,
            (None, None) => 0.0,
        };
    }
    g
}

fn index(dims: [usize; 3], c: usize) -> [usize; 3] {
    [
        c % dims[0],
        (c / dims[0]) % dims[1],
        c / (dims[0] * dims[1]),
    ]
}
