//! One level of the hierarchy. Arrays are padded by one ghost cell on each side of every axis
//! with more than one plane (x, y always; z in 3D), so stencil kernels never test bounds: ghost
//! cells are solid, have zero coefficients and keep `x = 0`.

use flip_plugin::abi::{CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Levels with fewer cells than this run their kernels on one thread (rayon overhead).
pub(crate) const PARALLEL_CELLS: usize = 16 * 1024;

/// An f32 vector with relaxed atomic element access, so that the rows of a red-black sweep can
/// be updated in parallel without `unsafe` (relaxed loads and stores are plain moves).
pub(crate) struct SharedF32(Vec<AtomicU32>);

impl SharedF32 {
    /// `n` zeros.
    pub fn zeros(n: usize) -> Self {
        Self((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    /// Element `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> f32 {
        f32::from_bits(self.0[i].load(Relaxed))
    }
    /// Sets element `i`.
    #[inline(always)]
    pub fn set(&self, i: usize, v: f32) {
        self.0[i].store(v.to_bits(), Relaxed);
    }
}

/// Per-cell coefficients read by the smoother: `1/A[c][c]` (0 for non-unknowns) and the
/// couplings `A[c][c+x̂]`, `A[c][c+ŷ]`, `A[c][c+ẑ]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct Coef {
    /// Inverse diagonal; 0 marks a cell that is not an unknown.
    pub inv_diag: f32,
    /// Couplings to the +x, +y, +z neighbours (≤ 0).
    pub off: [f32; 3],
}

/// One grid level.
pub(crate) struct Level {
    /// Cells per axis (unpadded).
    pub dims: [usize; 3],
    /// Padded cells per axis.
    pub pdims: [usize; 3],
    /// Padded strides of x, y, z.
    pub stride: [usize; 3],
    /// Ghost layers in z (1 in 3D, 0 when `nk == 1`).
    pub pz: usize,
    /// Axes halved when this level was made from the finer one (all false on level 0).
    pub active: [bool; 3],
    /// Cell kinds (`CELL_*`); ghosts are solid.
    pub kind: Vec<u8>,
    /// `A[c][c]`.
    pub diag: Vec<f32>,
    /// `A[c][c] - Σ |couplings|`: the Dirichlet part of the diagonal (0 on Neumann cells).
    pub excess: Vec<f32>,
    /// Smoother coefficients.
    pub coef: Vec<Coef>,
    /// Open fraction of the face to the +x, +y, +z neighbour (rediscretisation only).
    pub open: [Vec<f32>; 3],
    /// Per padded row, the unpadded `[lo, hi)` range of i holding its unknowns.
    pub spans: Vec<(u32, u32)>,
    /// Per cell: 1 / (sum of the interpolation weights kept for it from the next coarser level).
    pub inv_norm: Vec<f32>,
    /// Iterate (correction) of this level.
    pub x: SharedF32,
    /// Right-hand side of this level.
    pub b: Vec<f32>,
    /// Scaled residual `(b - A x) · inv_norm`, input of the restriction.
    pub r: Vec<f32>,
}

impl Level {
    /// An all-solid level of `dims` cells.
    pub fn new(dims: [usize; 3], active: [bool; 3], with_open: bool) -> Self {
        let pz = usize::from(dims[2] > 1);
        let pdims = [dims[0] + 2, dims[1] + 2, dims[2] + 2 * pz];
        let n = pdims[0] * pdims[1] * pdims[2];
        let open_len = if with_open { n } else { 0 };
        Self {
            dims,
            pdims,
            stride: [1, pdims[0], pdims[0] * pdims[1]],
            pz,
            active,
            kind: vec![CELL_SOLID; n],
            diag: vec![0.0; n],
            excess: vec![0.0; n],
            coef: vec![Coef::default(); n],
            open: [
                vec![0.0; open_len],
                vec![0.0; open_len],
                vec![0.0; open_len],
            ],
            spans: vec![(0, 0); pdims[1] * pdims[2]],
            inv_norm: vec![1.0; n],
            x: SharedF32::zeros(n),
            b: vec![0.0; n],
            r: vec![0.0; n],
        }
    }

    /// Number of padded cells.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether kernels on this level are worth running in parallel.
    pub fn parallel(&self) -> bool {
        self.len() >= PARALLEL_CELLS
    }

    /// Padded index of unpadded cell `(i, j, k)`.
    #[inline(always)]
    pub fn at(&self, i: usize, j: usize, k: usize) -> usize {
        (i + 1) + self.stride[1] * (j + 1) + self.stride[2] * (k + self.pz)
    }

    /// For padded row `pr`, its unpadded `(j, k)`, or `None` for a ghost row.
    #[inline(always)]
    pub fn row_jk(&self, pr: usize) -> Option<(usize, usize)> {
        let (jp, kp) = (pr % self.pdims[1], pr / self.pdims[1]);
        let j = jp.checked_sub(1).filter(|&j| j < self.dims[1])?;
        let k = kp.checked_sub(self.pz).filter(|&k| k < self.dims[2])?;
        Some((j, k))
    }

    /// Number of padded rows.
    pub fn rows(&self) -> usize {
        self.pdims[1] * self.pdims[2]
    }

    /// Recomputes `inv_diag` and the per-row spans of unknowns from `kind` and `diag`.
    pub fn finish(&mut self) {
        let pi = self.pdims[0];
        let kind = &self.kind;
        let diag = &self.diag;
        self.coef
            .par_chunks_mut(pi)
            .zip(self.spans.par_iter_mut())
            .enumerate()
            .for_each(|(pr, (row, span))| {
                let base = pr * pi;
                let (mut lo, mut hi) = (u32::MAX, 0u32);
                for (ip, cf) in row.iter_mut().enumerate() {
                    let c = base + ip;
                    let unknown = kind[c] == CELL_FLUID && diag[c] > 0.0;
                    cf.inv_diag = if unknown { 1.0 / diag[c] } else { 0.0 };
                    if unknown {
                        lo = lo.min(ip as u32 - 1);
                        hi = ip as u32;
                    }
                }
                *span = if lo == u32::MAX { (0, 0) } else { (lo, hi) };
            });
    }

    /// `r = (b - A x) · inv_norm` on unknowns, 0 elsewhere.
    pub fn residual(&mut self) {
        let pi = self.pdims[0];
        let (coef, diag, b, x) = (&self.coef, &self.diag, &self.b, &self.x);
        let spans = &self.spans;
        let (sy, sz) = (self.stride[1], self.stride[2]);
        let three_d = self.pz == 1;
        let inv_norm = &self.inv_norm;
        let kernel = |pr: usize, row: &mut [f32]| {
            row.fill(0.0);
            let (lo, hi) = spans[pr];
            let base = pr * pi;
            let cells = (lo as usize + 1)..(hi as usize + 1);
            for (ip, out) in row.iter_mut().enumerate().take(cells.end).skip(cells.start) {
                let c = base + ip;
                let cf = coef[c];
                if cf.inv_diag == 0.0 {
                    continue;
                }
                let mut ax = diag[c] * x.get(c)
                    + cf.off[0] * x.get(c + 1)
                    + coef[c - 1].off[0] * x.get(c - 1)
                    + cf.off[1] * x.get(c + sy)
                    + coef[c - sy].off[1] * x.get(c - sy);
                if three_d {
                    ax += cf.off[2] * x.get(c + sz) + coef[c - sz].off[2] * x.get(c - sz);
                }
                *out = (b[c] - ax) * inv_norm[c];
            }
        };
        if self.parallel() {
            self.r
                .par_chunks_mut(pi)
                .enumerate()
                .for_each(|(pr, row)| kernel(pr, row));
        } else {
            self.r
                .chunks_mut(pi)
                .enumerate()
                .for_each(|(pr, row)| kernel(pr, row));
        }
    }

    /// Sets `x = 0` everywhere.
    pub fn zero_x(&self) {
        if self.parallel() {
            (0..self.len())
                .into_par_iter()
                .for_each(|c| self.x.set(c, 0.0));
        } else {
            (0..self.len()).for_each(|c| self.x.set(c, 0.0));
        }
    }

    /// The couplings as three separate arrays (for `neumann::Regions` on small levels).
    pub fn off_arrays(&self) -> [Vec<f32>; 3] {
        [0, 1, 2].map(|a| self.coef.iter().map(|cf| cf.off[a]).collect())
    }
}
