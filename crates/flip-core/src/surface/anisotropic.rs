//! Anisotropic particle kernels (Yu & Turk 2013, "Reconstructing surfaces of particle-based
//! fluids using anisotropic kernels", §4–5): per particle, a weighted PCA of its neighbours
//! stretches the kernel along the surface and flattens it across, and the kernel centres are
//! Laplacian-smoothed. Lengths are in simulation cells (`dx`); the constants assume the
//! project's 8 particles per cell (spacing `dx/2`). Particles near a solid get mirror images so
//! a wall does not look like a free surface. Deterministic for any thread count.

use super::eigen::symmetric_eigen;
use crate::grid::GridSpec;
use crate::levelset::shape_image;
use crate::solids::Solids;
use glam::{Mat3, Vec3};
use rayon::prelude::*;

/// Smoothing length `h` of the isotropic kernel (cells); the neighbourhood radius is `r = 2h`,
/// the support of the cubic spline (≈ 113 neighbours in the bulk).
const H: f32 = 0.75;
/// Fewer neighbours than this: isotropic kernel `k_n·I` (Yu & Turk's `N_ε`).
const N_EPS: usize = 25;
/// Largest ratio of the kernel's principal variances (`k_r`).
const K_R: f32 = 4.0;
/// Scale of an isolated particle's kernel (`k_n`).
const K_N: f32 = 0.5;
/// Largest principal scale, which bounds a kernel's reach to `2h·S_MAX`.
const S_MAX: f32 = 2.0;
/// Per-axis variance of the weight `1 − (d/r)³` over a uniform ball of radius `r`, in units of
/// `r²`: `k_s = 1/(0.15 r²)` makes a bulk particle's kernel the isotropic one.
const BULK_VARIANCE: f32 = 0.15;
/// Normalisation of the 3D cubic spline on `q = |x|/h < 2` (Monaghan 1992).
const SIGMA: f32 = 1.0 / std::f32::consts::PI;

/// One particle's kernel: `W(x) = weight · P(|G (x − centre)|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kernel {
    /// The smoothed centre `x̄_i` (metres).
    pub centre: Vec3,
    /// The symmetric shape matrix `G_i` (1/metres).
    pub g: Mat3,
    /// `V_i σ det(G_i)`, with the particle volume `V_i = 1/ρ_i`.
    pub weight: f32,
    /// Half-extent of the support's bounding box along x, y, z (metres).
    pub extent: Vec3,
}

/// The cubic spline `P(q)` on `q < 2` (Monaghan 1992).
pub fn spline(q: f32) -> f32 {
    if q < 1.0 {
        1.0 - 1.5 * q * q + 0.75 * q * q * q
    } else if q < 2.0 {
        0.25 * (2.0 - q).powi(3)
    } else {
        0.0
    }
}

/// How the kernels are shaped and placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelShape {
    /// Kernel-centre smoothing weight `λ` (0: the particles themselves).
    pub centre_smoothing: f32,
    /// Whether the PCA shapes the kernels (false: the isotropic kernel `I/h` everywhere).
    pub anisotropic: bool,
}

/// The kernels of the particles at `pos` and of their mirror images across the solids.
pub fn anisotropic_kernels(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    shape: KernelShape,
) -> Vec<Kernel> {
    let points = match solids {
        Some(s) => with_images(spec, pos, s, 2.0 * H * spec.dx),
        None => pos.to_vec(),
    };
    let grid = NeighbourGrid::new(spec, &points, 2.0 * H * spec.dx);
    // in bucket order, for locality; the order is fixed, so the field's sums are too
    grid.sorted
        .par_iter()
        .with_min_len(1024)
        .map(|&x| kernel(spec, &grid, x, shape))
        .collect()
}

/// `pos` followed by the images of the points within `reach` of a solid: across each solid
/// domain wall, axis by axis (edges and corners get double and triple images), and across the
/// nearest surface of the other shapes.
fn with_images(spec: &GridSpec, pos: &[Vec3], solids: &Solids, reach: f32) -> Vec<Vec3> {
    let mut points = pos.to_vec();
    let shapes: Vec<Vec3> = pos
        .par_iter()
        .with_min_len(4096)
        .filter_map(|&x| {
            let [i, j, k] = spec.cell_of(x);
            (solids.phi[(i, j, k)] <= reach + spec.dx)
                .then(|| shape_image(spec, solids, x, reach))
                .flatten()
        })
        .collect();
    points.extend(shapes);
    let ext = spec.extent();
    for a in 0..spec.dimension() {
        let (low, high) = (spec.dx, ext[a] - spec.dx);
        let images: Vec<Vec3> = points
            .par_iter()
            .with_min_len(4096)
            .flat_map_iter(|&x| {
                let mut out = Vec::new();
                for plane in [low, high] {
                    let mut image = x;
                    image[a] = 2.0 * plane - x[a];
                    if (x[a] - plane).abs() < reach && wall_is_solid(spec, solids, image) {
                        out.push(image);
                    }
                }
                out
            })
            .collect();
        points.extend(images);
    }
    points
}

/// Whether the wall cell that holds `image` (clamped into the grid) is solid (not carved).
fn wall_is_solid(spec: &GridSpec, solids: &Solids, image: Vec3) -> bool {
    let [i, j, k] = spec.cell_of(image);
    solids.phi[(i, j, k)] < 0.0
}

/// Points sorted by cells of the neighbourhood radius (a stable counting sort), so that the
/// three buckets of a row along x are one contiguous run.
struct NeighbourGrid {
    origin: Vec3,
    size: f32,
    dims: [usize; 3],
    start: Vec<u32>,
    sorted: Vec<Vec3>,
}

impl NeighbourGrid {
    fn new(spec: &GridSpec, points: &[Vec3], size: f32) -> Self {
        let origin = Vec3::splat(-size);
        let dims = spec
            .extent()
            .to_array()
            .map(|e| ((e + 2.0 * size) / size) as usize + 1);
        let mut grid = Self {
            origin,
            size,
            dims,
            start: vec![0; dims.iter().product::<usize>() + 1],
            sorted: vec![Vec3::ZERO; points.len()],
        };
        let buckets: Vec<usize> = points.par_iter().map(|&p| grid.bucket(p)).collect();
        for &b in &buckets {
            grid.start[b + 1] += 1;
        }
        for b in 0..grid.start.len() - 1 {
            grid.start[b + 1] += grid.start[b];
        }
        let mut next = grid.start.clone();
        for (&p, &b) in points.iter().zip(&buckets) {
            grid.sorted[next[b] as usize] = p;
            next[b] += 1;
        }
        grid
    }

    fn coords(&self, p: Vec3) -> [usize; 3] {
        let g = ((p - self.origin) / self.size).to_array();
        [0, 1, 2].map(|a| (g[a].max(0.0) as usize).min(self.dims[a] - 1))
    }

    fn bucket(&self, p: Vec3) -> usize {
        let [i, j, k] = self.coords(p);
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Calls `f` with every point in the 27 buckets around `p`, in a fixed order.
    fn for_each_near(&self, p: Vec3, mut f: impl FnMut(Vec3)) {
        let c = self.coords(p);
        let (i0, i1) = (c[0].saturating_sub(1), (c[0] + 1).min(self.dims[0] - 1));
        for k in c[2].saturating_sub(1)..(c[2] + 2).min(self.dims[2]) {
            for j in c[1].saturating_sub(1)..(c[1] + 2).min(self.dims[1]) {
                let row = self.dims[0] * (j + self.dims[1] * k);
                let (s, e) = (self.start[row + i0], self.start[row + i1 + 1]);
                self.sorted[s as usize..e as usize]
                    .iter()
                    .for_each(|&q| f(q));
            }
        }
    }
}

/// The kernel of the point at `x` from its neighbours within `r = 2h`.
fn kernel(spec: &GridSpec, grid: &NeighbourGrid, x: Vec3, shape: KernelShape) -> Kernel {
    let h = H * spec.dx;
    let r = 2.0 * h;
    let (mut sw, mut swd, mut swdd, mut density, mut count) = (0.0, Vec3::ZERO, Mat3::ZERO, 0.0, 0);
    grid.for_each_near(x, |y| {
        let d = y - x;
        let d2 = d.length_squared();
        if d2 < r * r {
            let dist = d2.sqrt();
            let w = 1.0 - (dist / r).powi(3); // w_ij = 1 − (|x_i − x_j|/r_i)³
            sw += w;
            swd += w * d;
            swdd += w * outer(d, d);
            density += spline(dist / h); // ρ_i = Σ_j m_j W(x_i − x_j, h), σ/h³ below
            count += 1;
        }
    });
    let density = density * SIGMA / h.powi(3);
    let mean = swd / sw; // x_i^w − x_i, with x_i^w = Σ_j w_ij x_j / Σ_j w_ij
    let centre = x + shape.centre_smoothing * mean; // x̄_i = (1 − λ) x_i + λ x_i^w
                                                    // C_i = Σ_j w_ij (x_j − x_i^w)(x_j − x_i^w)ᵀ / Σ_j w_ij
    let covariance = swdd * (1.0 / sw) - outer(mean, mean);
    let (scales, rotation) = if shape.anisotropic {
        principal_scales(covariance, r, count)
    } else {
        (Vec3::ONE, Mat3::IDENTITY)
    };
    // G_i = R Σ̃⁻¹ Rᵀ / h, and its inverse for the support's extent
    let g = rotation * Mat3::from_diagonal(scales.recip()) * rotation.transpose() / h;
    let g_inv = rotation * Mat3::from_diagonal(scales) * rotation.transpose() * h;
    let det = 1.0 / (h.powi(3) * scales.x * scales.y * scales.z);
    let rows = g_inv.transpose();
    Kernel {
        centre,
        g,
        weight: SIGMA * det / density,
        extent: 2.0
            * Vec3::new(
                rows.x_axis.length(),
                rows.y_axis.length(),
                rows.z_axis.length(),
            ),
    }
}

/// `Σ̃` and `R` of `C = R Σ Rᵀ`: `k_n·I` with fewer than `N_ε` neighbours, otherwise the
/// eigenvalues clamped to `σ_k ≥ σ_1/k_r` and scaled by `k_s = 1/(0.15 r²)` (bulk → `I`).
fn principal_scales(covariance: Mat3, r: f32, count: usize) -> (Vec3, Mat3) {
    if count < N_EPS {
        return (Vec3::splat(K_N), Mat3::IDENTITY);
    }
    let (sigma, rotation) = symmetric_eigen(covariance);
    let floor = sigma.x / K_R;
    let k_s = 1.0 / (BULK_VARIANCE * r * r);
    let scaled = sigma.max(Vec3::splat(floor)) * k_s;
    (
        scaled.clamp(Vec3::splat(K_N / K_R), Vec3::splat(S_MAX)),
        rotation,
    )
}

fn outer(a: Vec3, b: Vec3) -> Mat3 {
    Mat3::from_cols(a * b.x, a * b.y, a * b.z)
}
