//! Naive Surface Nets over a cell-centred level set, through `fast-surface-nets`.

use super::TriMesh;
use crate::grid::{Grid3, GridSpec};
use fast_surface_nets::ndshape::{RuntimeShape, Shape};
use fast_surface_nets::{surface_nets, SurfaceNetsBuffer};
use glam::Vec3;
use rayon::prelude::*;

/// Padding before the first sample along each axis, and after the last: the crate makes no
/// faces on the lower boundary nor for edges leaving the last cell, so two padding layers on the
/// high side keep every sign change inside and the mesh closed.
const PAD_LOW: usize = 1;
const PAD_HIGH: usize = 2;

/// Meshes the zero level of `phi` (negative inside) sampled at the cell centres of `spec`. The
/// field is padded with outside values, so the mesh of any level set is closed. Normals are the
/// normalised level-set gradient.
pub fn polygonise(spec: &GridSpec, phi: &Grid3<f32>) -> TriMesh {
    assert_eq!(phi.dims(), spec.dims(), "level set on another grid");
    let [pi, pj, pk] = spec.dims().map(|n| n + PAD_LOW + PAD_HIGH);
    let shape = RuntimeShape::<u32, 3>::new([pi as u32, pj as u32, pk as u32]);
    let padded = pad(spec, phi, [pi, pj, pk]);
    let mut buffer = SurfaceNetsBuffer::default();
    let max = [pi, pj, pk].map(|n| n as u32 - 1);
    surface_nets(&padded, &shape, [0; 3], max, &mut buffer);
    debug_assert_eq!(shape.size() as usize, padded.len());
    let h = spec.dx;
    let offset = Vec3::splat(0.5 - PAD_LOW as f32);
    let positions = buffer
        .positions
        .par_iter()
        .map(|p| (Vec3::from(*p) + offset) * h)
        .collect();
    let normals = buffer
        .normals
        .par_iter()
        .map(|n| Vec3::from(*n).normalize_or_zero())
        .collect();
    let triangles = buffer
        .indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    TriMesh {
        positions,
        normals,
        triangles,
    }
}

/// `phi` inside a frame of outside values (`dx`), x fastest like the crate's shape.
fn pad(spec: &GridSpec, phi: &Grid3<f32>, [pi, pj, _]: [usize; 3]) -> Vec<f32> {
    let outside = spec.dx;
    let [ni, nj, nk] = spec.dims();
    let mut padded = vec![outside; pi * pj * (nk + PAD_LOW + PAD_HIGH)];
    padded
        .par_chunks_mut(pi * pj)
        .enumerate()
        .for_each(|(pk, layer)| {
            let Some(k) = pk.checked_sub(PAD_LOW).filter(|&k| k < nk) else {
                return;
            };
            for j in 0..nj {
                let row = (j + PAD_LOW) * pi + PAD_LOW;
                let src = phi.index(0, j, k);
                layer[row..row + ni].copy_from_slice(&phi.data[src..src + ni]);
            }
        });
    padded
}
