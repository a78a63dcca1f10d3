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

/// Layer-by-layer averaging on one component. Only the front is visited: the invalid faces
/// with a valid neighbour, which after the first layer are the invalid neighbours of the faces
/// just filled, so a layer costs its band, not the grid.
fn extrapolate_component(g: &mut Grid3<f32>, m: &mut Grid3<u8>, layers: usize) {
    if layers == 0 || m.data.iter().all(|&v| v != 0) {
        return;
    }
    let dims = g.dims();
    let mut front = first_front(dims, &m.data);
    let mut values = Vec::with_capacity(front.len());
    for layer in 0..layers {
        if front.is_empty() {
            break;
        }
        values.clear();
        values.extend(
            front
                .iter()
                .map(|&c| mean_of_valid(dims, &g.data, &m.data, c)),
        );
        for (&c, &v) in front.iter().zip(&values) {
            (g.data[c], m.data[c]) = (v, 1);
        }
        if layer + 1 < layers {
            front = next_front(dims, &m.data, &front);
        }
    }
}

/// The ±1 neighbours of face `c` along each axis, in a fixed order (`None` off the grid).
#[inline]
fn neighbours(dims: [usize; 3], c: usize) -> [Option<usize>; 6] {
    let [ni, nj, _] = dims;
    let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
    let strides = [1, ni, ni * nj];
    let mut out = [None; 6];
    for a in 0..3 {
        out[2 * a] = (pos[a] > 0).then(|| c - strides[a]);
        out[2 * a + 1] = (pos[a] + 1 < dims[a]).then(|| c + strides[a]);
    }
    out
}

/// Mean of the valid neighbours of `c` (the caller knows there is one).
#[inline]
fn mean_of_valid(dims: [usize; 3], v: &[f32], m: &[u8], c: usize) -> f32 {
    let (mut sum, mut count) = (0.0f32, 0u32);
    for n in neighbours(dims, c).into_iter().flatten() {
        if m[n] != 0 {
            sum += v[n];
            count += 1;
        }
    }
    sum / count as f32
}

/// Invalid faces with a valid neighbour, ascending.
fn first_front(dims: [usize; 3], m: &[u8]) -> Vec<usize> {
    (0..m.len())
        .into_par_iter()
        .with_min_len(4096)
        .filter(|&c| m[c] == 0 && neighbours(dims, c).into_iter().flatten().any(|n| m[n] != 0))
        .collect()
}

/// Invalid neighbours of the faces just filled, ascending, each once.
fn next_front(dims: [usize; 3], m: &[u8], filled: &[usize]) -> Vec<usize> {
    let mut next: Vec<usize> = filled
        .iter()
        .flat_map(|&c| neighbours(dims, c).into_iter().flatten())
        .filter(|&n| m[n] == 0)
        .collect();
    next.sort_unstable();
    next.dedup();
    next
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

    /// The layer-by-layer Jacobi averaging over the whole grid, as §4.3 states it.
    fn whole_grid_layers(g: &mut Grid3<f32>, m: &mut Grid3<u8>, layers: usize) {
        let dims = g.dims();
        for _ in 0..layers {
            let (v0, m0) = (g.data.clone(), m.data.clone());
            for c in 0..v0.len() {
                let valid_nb = neighbours(dims, c).into_iter().flatten();
                if m0[c] == 0 && valid_nb.clone().any(|n| m0[n] != 0) {
                    (g.data[c], m.data[c]) = (mean_of_valid(dims, &v0, &m0, c), 1);
                }
            }
        }
    }

    #[test]
    fn the_front_gives_the_whole_grid_layers_bit_for_bit() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        for dims in [(17, 13, 1), (9, 7, 6)] {
            let mut g = Grid3::new(dims.0, dims.1, dims.2, 0.0f32);
            let mut m = Grid3::new(dims.0, dims.1, dims.2, 0u8);
            let rows = dims.0 * dims.1;
            for (c, (v, f)) in g.data.iter_mut().zip(m.data.iter_mut()).enumerate() {
                // seeds in the lowest rows only, so the top stays out of reach
                if (c % rows) / dims.0 < 2 && rng.gen_bool(0.3) {
                    (*v, *f) = (rng.gen_range(-1.0..1.0), 1);
                }
            }
            let (mut g2, mut m2) = (g.clone(), m.clone());
            extrapolate_component(&mut g, &mut m, 3);
            whole_grid_layers(&mut g2, &mut m2, 3);
            assert_eq!(m.data, m2.data, "{dims:?}: filled faces differ");
            let bits = |g: &Grid3<f32>| g.data.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&g), bits(&g2), "{dims:?}: values differ");
            assert!(
                m.data.contains(&0),
                "{dims:?}: some faces stay out of reach"
            );
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
