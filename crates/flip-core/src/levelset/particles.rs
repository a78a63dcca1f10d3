//! Liquid level set from particles (Zhu & Bridson 2005, "Animating sand as a fluid", §4):
//! `φ(x) = |x − x̄(x)| − r`, with `x̄` the kernel-weighted mean of the nearby particles.
//!
//! The kernel is the trilinear hat splatted to cell centres and smoothed once by `[¼ ½ ¼]`
//! along each axis: at a cell centre that is the tensor product of `K(u) = ½ − |u|/4` on
//! `|u| < 2` cells. For a half-space of uniformly spread particles the offset `d = |x − x̄|/dx`
//! at height `t` cells above the surface is known in closed form (`d = (2 + 2t)/3` for
//! `0 ≤ t ≤ 2`, `d = 2s²(3 − s)/(3(8 − s²))` with `s = 2 + t` for `−2 ≤ t ≤ 0`), so instead of a
//! fixed radius `r` we invert that profile: a flat surface lands exactly where the particles
//! end, whatever the particle count per cell. Particles near a solid are mirrored across it
//! (the domain walls exactly, on the grid; other solids across their nearest surface), so a
//! wall does not look like a free surface and the liquid's level set continues into the solid
//! as the mirror image.

use super::sweep::{fast_sweep, fast_sweep_capped};
use crate::grid::{Grid3, GridSpec};
use crate::solids::Solids;
use crate::transfer::{bucket, Lattice, Slabs};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// Kernel half-width in cells: particles closer than this to a solid are mirrored.
const SUPPORT: f32 = 2.0;
/// Offset `d` of a point on a flat surface (`t = 0`).
const D_SURFACE: f32 = 2.0 / 3.0;

/// How far from the surface the distance is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redistance {
    /// Full fast-sweeping passes (0: only the cells next to the surface get a distance).
    pub sweeps: usize,
    /// Narrow band in cells: `|φ|` is the swept distance up to `band · dx` and clamped to it
    /// beyond (a VDB-style background); 0 sweeps the whole grid.
    pub band: usize,
}

impl Redistance {
    /// `sweeps` passes over the whole grid.
    pub fn whole_grid(sweeps: usize) -> Self {
        Self { sweeps, band: 0 }
    }
}

/// Reusable buffers of [`particle_phi`].
#[derive(Debug, Default)]
pub struct ParticlePhiScratch {
    lists: Vec<Vec<Vec<u32>>>,
    /// Per cell: Σw, Σw·x, Σw·y, Σw·z.
    acc: Vec<[f32; 4]>,
    tmp: Vec<[f32; 4]>,
    mirrors: Vec<Vec3>,
    mirror_mass: Vec<f32>,
    band: Vec<u8>,
    /// The unsigned distance being swept.
    unsigned: Vec<f32>,
}

/// Builds the liquid signed distance (negative inside, metres) on cell centres from particle
/// positions `pos`; with `solids`, particles within the kernel's reach of a solid are mirrored
/// across it. Cells next to the surface get the inverted Zhu–Bridson distance, the rest are
/// redistanced as `redistance` says. Deterministic for any thread count. Resizes
/// `phi`.
pub fn particle_phi(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    redistance: Redistance,
    scratch: &mut ParticlePhiScratch,
    phi: &mut Grid3<f32>,
) {
    build(spec, pos, solids, redistance, scratch, phi, None);
}

/// [`particle_phi`], also writing the particle density: per cell centre, the trilinear kernel
/// sum of the particles and their solid images (particles per cell, wherever the kernel's
/// support is covered, walls included). Resizes `density`.
pub fn particle_phi_and_density(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    redistance: Redistance,
    scratch: &mut ParticlePhiScratch,
    phi: &mut Grid3<f32>,
    density: &mut Grid3<f32>,
) {
    build(spec, pos, solids, redistance, scratch, phi, Some(density));
}

fn build(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    redistance: Redistance,
    scratch: &mut ParticlePhiScratch,
    phi: &mut Grid3<f32>,
    density: Option<&mut Grid3<f32>>,
) {
    let far = 1000.0f32.max(2.0 * (spec.ni + spec.nj + spec.nk) as f32) * spec.dx;
    phi.reset(spec.ni, spec.nj, spec.nk, far);
    scratch.acc.clear();
    scratch.acc.resize(spec.cell_count(), [0.0; 4]);
    splat(spec, pos, None, &mut scratch.lists, &mut scratch.acc);
    if let Some(solids) = solids {
        if !solids.shapes.is_empty() {
            let (m, mass) = (&mut scratch.mirrors, &mut scratch.mirror_mass);
            mirror_shapes(spec, pos, solids, m, mass);
            splat(spec, m, Some(mass), &mut scratch.lists, &mut scratch.acc);
        }
        mirror_walls(spec, solids, &mut scratch.acc);
    }
    if let Some(density) = density {
        density.reset(spec.ni, spec.nj, spec.nk, 0.0);
        let sums = density.data.par_iter_mut().zip(scratch.acc.par_iter());
        sums.for_each(|(d, a)| *d = a[0]);
    }
    for axis in 0..spec.dimension() {
        smooth(spec, axis, &mut scratch.acc, &mut scratch.tmp);
    }
    offsets(spec, &scratch.acc, &mut phi.data);
    surface_band(spec, &phi.data, &mut scratch.band);
    // φ holds the offset d (cells) for now; the band gets its distance, the rest is swept
    // a cell starting at the cap is only lowered by a neighbour nearer than it, so the sweep
    // leaves min(distance, cap) and skips the cells beyond the band at the cost of a compare
    let cap = match redistance.band {
        0 => far,
        band => band as f32 * spec.dx,
    };
    let unsigned = &mut scratch.unsigned;
    unsigned.clear();
    unsigned.resize(phi.data.len(), cap);
    unsigned
        .par_iter_mut()
        .zip(phi.data.par_iter())
        .zip(scratch.band.par_iter())
        .for_each(|((u, &d), &b)| {
            if b != 0 {
                *u = (height_above_surface(d).abs() * spec.dx).min(cap);
            }
        });
    match redistance.band {
        0 => fast_sweep(spec, &scratch.band, unsigned, redistance.sweeps),
        _ => fast_sweep_capped(spec, &scratch.band, unsigned, redistance.sweeps, cap),
    }
    phi.data
        .par_iter_mut()
        .zip(unsigned.par_iter())
        .for_each(|(o, &u)| *o = if *o < D_SURFACE { -u } else { u });
    if let Some(solids) = solids {
        super::contact::extend_across_shapes(spec, solids, phi);
    }
}

/// Trilinear splat of weight and weighted position to the cell centres, slab by slab in two
/// parity phases (as P2G), so each cell sums its particles in one fixed order. `mass` scales
/// each point's weights (1 without it).
fn splat(
    spec: &GridSpec,
    pos: &[Vec3],
    mass: Option<&[f32]>,
    lists: &mut Vec<Vec<Vec<u32>>>,
    acc: &mut [[f32; 4]],
) {
    if pos.is_empty() {
        return;
    }
    let slabs = Slabs::new(spec);
    let lattice = Lattice::new(spec);
    let chunks = bucket(spec, pos, &slabs, lists);
    let lists = &lists[..chunks];
    let d = spec.dims();
    let layer_len: usize = d[..slabs.axis].iter().product();
    for parity in 0..2 {
        let mut windows = Vec::new();
        let (mut rest, mut at) = (&mut acc[..], 0usize);
        for slab in (parity..slabs.count).step_by(2) {
            let (lo, hi) = slabs.layers(usize::MAX, slab);
            let (start, end) = (lo * layer_len, hi * layer_len);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - at);
            let (win, tail) = tail.split_at_mut(end - start);
            (rest, at) = (tail, end);
            windows.push((slab, start, win));
        }
        windows.into_par_iter().for_each(|(slab, offset, win)| {
            for l in lists {
                for &p in &l[slab] {
                    let x = pos[p as usize];
                    let m = mass.map_or(1.0, |m| m[p as usize]);
                    let b = lattice.stencil(x).cell_block();
                    let w = b.weights();
                    let [ox, oy, oz] = b.off;
                    let base = b.base - offset;
                    let layers = if oz == 0 { 1 } else { 2 };
                    // (1, x, y, z) scaled by each corner's weight: one 4-wide add per corner
                    let point = Vec4::new(1.0, x.x, x.y, x.z);
                    for l in 0..layers {
                        for r in 0..2 {
                            let at = base + l * oz + r * oy;
                            let row = &mut win[at..=at + ox]; // one bounds check per row
                            let (w0, w1) = (m * w[4 * l + 2 * r], m * w[4 * l + 2 * r + 1]);
                            row[0] = (Vec4::from_array(row[0]) + w0 * point).to_array();
                            row[ox] = (Vec4::from_array(row[ox]) + w1 * point).to_array();
                        }
                    }
                }
            }
        });
    }
}

/// Mirror images of the particles within the kernel's reach of a shape (not a domain wall,
/// see [`mirror_walls`]), across the shape's nearest surface ([`shape_image`]). An image
/// beyond the outermost cell centres keeps only the weight the hat gives the outermost cells
/// (`mass`), as if the grid went on.
fn mirror_shapes(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: &Solids,
    out: &mut Vec<Vec3>,
    mass: &mut Vec<f32>,
) {
    let reach = SUPPORT * spec.dx;
    let dims = spec.dims();
    let weight = |image: Vec3| {
        let mut m = 1.0f32;
        for a in 0..spec.dimension() {
            let g = image[a] / spec.dx - 0.5;
            let beyond = (-g).max(g - (dims[a] - 1) as f32).max(0.0);
            m *= (1.0 - beyond).max(0.0);
        }
        m
    };
    let (images, masses): (Vec<Vec3>, Vec<f32>) = pos
        .par_iter()
        .with_min_len(4096)
        .filter_map(|&x| {
            let [i, j, k] = spec.cell_of(x);
            // a cheap test first: no solid within reach of any point of this cell
            if solids.phi[(i, j, k)] > reach + spec.dx {
                return None;
            }
            let image = shape_image(spec, solids, x, reach)?;
            let m = weight(image);
            (m > 0.0).then_some((image, m))
        })
        .unzip();
    *out = images;
    *mass = masses;
}

/// Mirrors the splatted sums across the domain walls, as if every particle within reach of a
/// wall had an image behind it: the walls' inner faces lie on cell faces, so the image of a
/// cell-centre stencil is the mirrored stencil, and the sums of the first wall cell and the
/// first liquid cell swap into each other with the wall-normal position reflected. Axis by
/// axis, so edges and corners get double and triple images. Skipped where a wall has been
/// carved away.
fn mirror_walls(spec: &GridSpec, solids: &Solids, acc: &mut [[f32; 4]]) {
    let dims = spec.dims();
    let strides = [1, dims[0], dims[0] * dims[1]];
    for a in 0..spec.dimension() {
        if dims[a] < 4 {
            continue;
        }
        let n = dims[a];
        let low = spec.dx;
        let high = (n - 1) as f32 * spec.dx;
        // every line along axis a, by the index of its first cell
        let stride = strides[a];
        let firsts = (0..acc.len() / n).map(|l| l % stride + (l / stride) * stride * n);
        for first in firsts {
            for (wall, inner, plane) in [
                (first, first + strides[a], low),
                (
                    first + (n - 1) * strides[a],
                    first + (n - 2) * strides[a],
                    high,
                ),
            ] {
                if solids.phi.data[wall] >= 0.0 {
                    continue; // carved open
                }
                let reflect = |v: [f32; 4]| {
                    let mut r = v;
                    r[1 + a] = 2.0 * plane * v[0] - v[1 + a];
                    r
                };
                let (w, i) = (acc[wall], acc[inner]);
                let (rw, ri) = (reflect(i), reflect(w));
                for q in 0..4 {
                    acc[wall][q] += rw[q];
                    acc[inner][q] += ri[q];
                }
            }
        }
    }
}

/// The reflection `x − 2 d n` of `x` across the nearest shape surface (`d` its distance, `n`
/// the gradient of the shapes' distance), when a shape, not a wall, is within `reach`.
pub(crate) fn shape_image(spec: &GridSpec, solids: &Solids, x: Vec3, reach: f32) -> Option<Vec3> {
    let d = solids.shapes_distance(x);
    if !(d > 0.0 && d < reach && d < solids.wall_distance(x)) {
        return None;
    }
    let h = 0.25 * spec.dx;
    let mut n = Vec3::ZERO;
    for a in 0..spec.dimension() {
        let mut e = Vec3::ZERO;
        e[a] = h;
        n[a] = solids.shapes_distance(x + e) - solids.shapes_distance(x - e);
    }
    (n.length_squared() > 0.0).then(|| x - 2.0 * d * n.normalize())
}

/// One `[¼ ½ ¼]` pass along `axis` (zero beyond the grid).
fn smooth(spec: &GridSpec, axis: usize, acc: &mut Vec<[f32; 4]>, tmp: &mut Vec<[f32; 4]>) {
    let d = spec.dims();
    let stride = [1, d[0], d[0] * d[1]][axis];
    let n = d[axis];
    tmp.resize(acc.len(), [0.0; 4]);
    let src = &acc[..];
    tmp.par_iter_mut()
        .with_min_len(4096)
        .enumerate()
        .for_each(|(c, o)| {
            let i = (c / stride) % n;
            let mut v = src[c].map(|x| 0.5 * x);
            for (ok, nb) in [(i > 0, c.wrapping_sub(stride)), (i + 1 < n, c + stride)] {
                if ok {
                    for (a, b) in v.iter_mut().zip(src[nb]) {
                        *a += 0.25 * b;
                    }
                }
            }
            *o = v;
        });
    std::mem::swap(acc, tmp);
}

/// Writes the offset `d = |x − x̄|/dx` of every cell (`+∞` where no particle is in reach).
fn offsets(spec: &GridSpec, acc: &[[f32; 4]], out: &mut [f32]) {
    let [ni, nj, _] = spec.dims();
    out.par_iter_mut()
        .with_min_len(4096)
        .enumerate()
        .for_each(|(c, o)| {
            let [w, sx, sy, sz] = acc[c];
            *o = if w > 0.0 {
                let (i, j, k) = (c % ni, (c / ni) % nj, c / (ni * nj));
                let mut mean = Vec3::new(sx, sy, sz) / w;
                if spec.is_2d() {
                    mean.z = spec.cell_center(i, j, k).z;
                }
                (spec.cell_center(i, j, k) - mean).length() / spec.dx
            } else {
                f32::INFINITY
            };
        });
}

/// Marks cells with a neighbour on the other side of the surface (offset `d` across 2/3).
fn surface_band(spec: &GridSpec, d: &[f32], band: &mut Vec<u8>) {
    let iso = D_SURFACE;
    let dims = spec.dims();
    let strides = [1, dims[0], dims[0] * dims[1]];
    band.resize(d.len(), 0);
    band.par_iter_mut()
        .with_min_len(4096)
        .enumerate()
        .for_each(|(c, b)| {
            let inside = d[c] < iso;
            let pos = [c % dims[0], (c / dims[0]) % dims[1], c / strides[2]];
            let crosses = (0..spec.dimension()).any(|a| {
                let lo = pos[a] > 0 && (d[c - strides[a]] < iso) != inside;
                let hi = pos[a] + 1 < dims[a] && (d[c + strides[a]] < iso) != inside;
                lo || hi
            });
            *b = u8::from(crosses);
        });
}

/// Height `t` (cells) above a flat surface at which the kernel-weighted mean of a uniform
/// half-space of particles is `d` cells away: the inverse of the profile in the module docs.
pub(crate) fn height_above_surface(d: f32) -> f32 {
    if d >= D_SURFACE {
        return 1.5 * d - 1.0;
    }
    let profile = |s: f32| 2.0 * s * s * (3.0 - s) / (3.0 * (8.0 - s * s));
    let (mut lo, mut hi) = (0.0f32, 2.0f32);
    for _ in 0..32 {
        let mid = 0.5 * (lo + hi);
        if profile(mid) < d {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi) - 2.0
}
