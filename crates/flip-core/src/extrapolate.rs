//! Velocity extrapolation into the faces no particle reached (Karlsson §4.3).

use crate::grid::{Grid3, GridSpec};
use crate::mac::{MacGrid, MacMask};
use rayon::prelude::*;

/// Extrapolates each velocity component into its faces with `valid == 0`, up to `layers` faces
/// away from the valid ones, and marks the filled faces valid. Faces that are valid on entry
/// are never changed. Each layer gives an invalid face with valid neighbours (same component,
/// ±1 along each axis) the mean of those neighbours, computed from the previous layer only
/// (Jacobi order, so the result does not depend on traversal order or thread count). This is
/// the layer-by-layer form of §4.3's constant-along-the-normal condition (eq. 39): values are
/// carried outwards from the liquid, the direction `∇φ` points in. `phi` (the liquid level set)
/// is only checked for size: the band is measured in faces from the valid region, which is
/// what the layer count bounds. In 2D `w` is left alone.
pub fn extrapolate(
    spec: &GridSpec,
    vel: &mut MacGrid,
    valid: &mut MacMask,
    phi: &Grid3<f32>,
    layers: usize,
) {
    assert_eq!(phi.dims(), spec.dims(), "phi on another grid");
    let comps = spec.dimension();
    for (g, m) in vel.axes_mut().into_iter().zip(valid.axes_mut()).take(comps) {
        assert_eq!(g.dims(), m.dims(), "velocity and mask differ");
        extrapolate_component(g, m, layers);
    }
}

/// Layer-by-layer averaging on one component.
fn extrapolate_component(g: &mut Grid3<f32>, m: &mut Grid3<u8>, layers: usize) {
    if layers == 0 || m.data.iter().all(|&v| v != 0) {
        return;
    }
    let mut next_v = vec![0.0f32; g.len()];
    let mut next_m = vec![0u8; m.len()];
    for _ in 0..layers {
        let filled = one_layer(g.dims(), &g.data, &m.data, &mut next_v, &mut next_m);
        std::mem::swap(&mut g.data, &mut next_v);
        std::mem::swap(&mut m.data, &mut next_m);
        if !filled {
            break;
        }
    }
}

/// One Jacobi layer from `(v, m)` into `(nv, nm)`; returns whether any face was filled.
fn one_layer(dims: [usize; 3], v: &[f32], m: &[u8], nv: &mut [f32], nm: &mut [u8]) -> bool {
    let [ni, nj, _] = dims;
    let strides = [1, ni, ni * nj];
    nv.par_chunks_mut(ni)
        .zip(nm.par_chunks_mut(ni))
        .enumerate()
        .map(|(row, (nvs, nms))| {
            let (j, k) = (row % nj, row / nj);
            let mut filled = false;
            for i in 0..ni {
                let c = i + ni * row;
                if m[c] != 0 {
                    (nvs[i], nms[i]) = (v[c], m[c]);
                    continue;
                }
                let (mut sum, mut count) = (0.0f32, 0u32);
                let pos = [i, j, k];
                for (a, &s) in strides.iter().enumerate() {
                    if pos[a] > 0 && m[c - s] != 0 {
                        sum += v[c - s];
                        count += 1;
                    }
                    if pos[a] + 1 < dims[a] && m[c + s] != 0 {
                        sum += v[c + s];
                        count += 1;
                    }
                }
                if count > 0 {
                    (nvs[i], nms[i]) = (sum / count as f32, 1);
                    filled = true;
                } else {
                    (nvs[i], nms[i]) = (v[c], 0);
                }
            }
            filled
        })
        .reduce(|| false, |a, b| a || b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn fills_a_band_and_never_touches_valid_faces() {
        for spec in [GridSpec::new(12, 16, 1, 0.1), GridSpec::new(8, 10, 6, 0.1)] {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
            let mut vel = MacGrid::zeros(&spec);
            let mut valid = MacMask::zeros(&spec);
            for (g, m) in vel
                .axes_mut()
                .into_iter()
                .zip(valid.axes_mut())
                .take(spec.dimension())
            {
                let ni = g.ni;
                let nj = g.nj;
                for (c, (v, f)) in g.data.iter_mut().zip(m.data.iter_mut()).enumerate() {
                    let j = (c / ni) % nj;
                    if j < 4 {
                        (*v, *f) = (rng.gen_range(-1.0..1.0), 1);
                    }
                }
            }
            let (before_v, before_m) = (vel.clone(), valid.clone());
            let phi = Grid3::new(spec.ni, spec.nj, spec.nk, 0.0f32);
            extrapolate(&spec, &mut vel, &mut valid, &phi, 3);
            for c in 0..spec.dimension() {
                let (g, m) = (vel.axes()[c], valid.axes()[c]);
                let (g0, m0) = (before_v.axes()[c], before_m.axes()[c]);
                for f in 0..g.len() {
                    let j = (f / g.ni) % g.nj;
                    if m0.data[f] == 1 {
                        assert_eq!(
                            g.data[f].to_bits(),
                            g0.data[f].to_bits(),
                            "valid face changed"
                        );
                    }
                    // rows 4, 5, 6 are within 3 layers; row 7 is not
                    assert_eq!(m.data[f], u8::from(j < 7), "component {c} row {j}");
                    if (4..7).contains(&j) {
                        // each filled value is a mean of values in [-1, 1]
                        assert!(g.data[f].abs() <= 1.0 && g.data[f] != 0.0);
                    }
                }
            }
            assert_eq!(vel.w.data.iter().any(|&w| w != 0.0), !spec.is_2d());
        }
    }

    #[test]
    fn constant_field_extends_constant() {
        let spec = GridSpec::new(10, 10, 1, 0.1);
        let mut vel = MacGrid::zeros(&spec);
        let mut valid = MacMask::zeros(&spec);
        vel.u[(5, 5, 0)] = 2.5;
        valid.u[(5, 5, 0)] = 1;
        let phi = Grid3::new(10, 10, 1, 0.0f32);
        extrapolate(&spec, &mut vel, &mut valid, &phi, 2);
        let filled = valid.u.data.iter().filter(|&&m| m == 1).count();
        assert_eq!(filled, 13); // the diamond of radius 2
        assert!(vel
            .u
            .data
            .iter()
            .zip(&valid.u.data)
            .all(|(v, m)| *m == 0 || *v == 2.5));
        assert!(valid.v.data.iter().all(|&m| m == 0));
    }
}
