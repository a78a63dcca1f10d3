//! The anisotropic density field `φ(x) = Σ_j V_j σ det(G_j) P(‖G_j (x − x̄_j)‖)` (Yu & Turk
//! 2013, §5) on a grid's cell centres, and the level set of its iso-surface with the particle
//! level set's convention (negative inside, metres). The scatter runs on rayon over slabs of
//! the grid in two parity phases, each slab's kernels in index order: deterministic for any
//! thread count.

use super::anisotropic::{anisotropic_kernels, spline, Kernel, KernelShape};
use crate::grid::{Grid3, GridSpec};
use crate::levelset::fast_sweep;
use crate::solids::Solids;
use glam::Vec3;
use rayon::prelude::*;

/// Iso-value of the field: a flat surface of a uniform half-space sits where the kernels
/// cover half of space.
pub const ISO: f32 = 0.5;

/// The liquid level set of the particles at `pos` from anisotropic kernels, on `fine` (a
/// refinement of `spec`), redistanced by `sweeps` fast-sweeping passes. Resizes `phi`.
pub fn anisotropic_phi(
    spec: &GridSpec,
    fine: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    shape: KernelShape,
    sweeps: usize,
    phi: &mut Grid3<f32>,
) {
    let kernels = anisotropic_kernels(spec, pos, solids, shape);
    let mut field = vec![0.0f32; fine.cell_count()];
    scatter(fine, &kernels, &mut field);
    field_to_phi(fine, &field, sweeps, phi);
}

/// Adds every kernel to the cell centres of `fine` within its support.
fn scatter(fine: &GridSpec, kernels: &[Kernel], field: &mut [f32]) {
    if kernels.is_empty() {
        return;
    }
    let [ni, nj, nk] = fine.dims();
    let layer = ni * nj;
    let reach_z = kernels.iter().map(|k| k.extent.z).fold(0.0, f32::max);
    let reach = (reach_z / fine.dx).ceil() as usize + 1;
    let thickness = 2 * reach; // slabs of one parity are ≥ 2·reach apart: windows are disjoint
    let slabs = nk.div_ceil(thickness);
    let slab_of = |k: &Kernel| fine.cell_of(k.centre)[2] / thickness;
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); slabs];
    for (n, k) in kernels.iter().enumerate() {
        lists[slab_of(k)].push(n as u32);
    }
    for parity in 0..2 {
        let mut windows = Vec::new();
        let (mut rest, mut at) = (&mut field[..], 0usize);
        for slab in (parity..slabs).step_by(2) {
            let lo = (slab * thickness).saturating_sub(reach);
            let hi = ((slab + 1) * thickness + reach).min(nk);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(lo * layer - at);
            let (win, tail) = tail.split_at_mut((hi - lo) * layer);
            (rest, at) = (tail, hi * layer);
            windows.push((slab, lo, hi, win));
        }
        windows.into_par_iter().for_each(|(slab, lo, hi, win)| {
            for &n in &lists[slab] {
                add_kernel(fine, &kernels[n as usize], lo, hi, win);
            }
        });
    }
}

/// Adds one kernel to the cells of layers `lo..hi` held in `win`.
fn add_kernel(fine: &GridSpec, kernel: &Kernel, lo: usize, hi: usize, win: &mut [f32]) {
    let [ni, nj, _] = fine.dims();
    let h = fine.dx;
    let first = |c: f32, e: f32| ((c - e) / h - 0.5).ceil().max(0.0) as usize;
    let last = |c: f32, e: f32, n: usize| {
        (((c + e) / h - 0.5).floor() + 1.0).clamp(0.0, n as f32) as usize
    };
    let (c, e) = (kernel.centre, kernel.extent);
    let (i0, i1) = (first(c.x, e.x), last(c.x, e.x, ni));
    let (j0, j1) = (first(c.y, e.y), last(c.y, e.y, nj));
    let (k0, k1) = (first(c.z, e.z).max(lo), last(c.z, e.z, hi));
    for k in k0..k1 {
        for j in j0..j1 {
            let row = ((k - lo) * nj + j) * ni;
            for i in i0..i1 {
                let x = (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * h;
                let q = (kernel.g * (x - c)).length();
                if q < 2.0 {
                    win[row + i] += kernel.weight * spline(q);
                }
            }
        }
    }
}

/// `φ` from the field: cells with a neighbour across the iso-surface get the distance to it
/// from the crossings along each axis (linear interpolation of `F`, `d = (Σ_a t_a⁻²)^(−½)`), the
/// rest are redistanced from them by fast sweeping; negative where `F > ISO`.
fn field_to_phi(fine: &GridSpec, field: &[f32], sweeps: usize, phi: &mut Grid3<f32>) {
    let far = 1000.0f32.max(2.0 * (fine.ni + fine.nj + fine.nk) as f32) * fine.dx;
    let [ni, nj, nk] = fine.dims();
    phi.reset(ni, nj, nk, far);
    let mut band = vec![0u8; field.len()];
    let mut unsigned = vec![far; field.len()];
    band.par_iter_mut()
        .zip(unsigned.par_iter_mut())
        .with_min_len(4096)
        .enumerate()
        .for_each(|(c, (b, u))| {
            if let Some(d) = distance_to_crossing(fine, field, c) {
                (*b, *u) = (1, d);
            }
        });
    fast_sweep(fine, &band, &mut unsigned, sweeps);
    phi.data
        .par_iter_mut()
        .zip(unsigned.par_iter())
        .enumerate()
        .for_each(|(c, (p, &u))| *p = if field[c] > ISO { -u } else { u });
}

/// Distance from cell `c` to the iso-surface where an axis neighbour lies across it. The field
/// is clamped to `[0, 2·ISO]` first: near a flat surface it overshoots the bulk value (the top
/// layers' flattened kernels), and the clamped profile is nearly odd about the crossing, so the
/// linear interpolation finds it within a few hundredths of a cell even at resolution 1.
fn distance_to_crossing(fine: &GridSpec, field: &[f32], c: usize) -> Option<f32> {
    let value = |n: usize| field[n].min(2.0 * ISO) - ISO;
    let dims = fine.dims();
    let strides = [1, dims[0], dims[0] * dims[1]];
    let at = [c % dims[0], (c / dims[0]) % dims[1], c / strides[2]];
    let f = value(c);
    let mut inv_sq = 0.0f32;
    for a in 0..3 {
        let lo = (at[a] > 0).then(|| c - strides[a]);
        let hi = (at[a] + 1 < dims[a]).then(|| c + strides[a]);
        let t = [lo, hi]
            .into_iter()
            .flatten()
            .map(value)
            .filter(|&g| (g > 0.0) != (f > 0.0))
            .map(|g| f / (f - g))
            .fold(f32::INFINITY, f32::min);
        if t.is_finite() {
            let t = (t * fine.dx).max(1e-6 * fine.dx);
            inv_sq += 1.0 / (t * t);
        }
    }
    (inv_sq > 0.0).then(|| inv_sq.sqrt().recip())
}
