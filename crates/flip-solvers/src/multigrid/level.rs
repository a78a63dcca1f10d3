//! One level of the hierarchy, in two layouts.
//!
//! - *Natural* padded arrays (`kind`, `diag`, `excess`, `off`, `unk`): the level's matrix,
//!   written when the hierarchy is (re)built and read by the coarsening. One ghost cell pads every axis with
//!   more than one plane (x, y always; z in 3D), and every padded extent is even, so that a
//!   coarse cell's children and their face neighbours are always inside the fine arrays.
//! - *Colour-split* arrays ([`Colour`]): each padded row `(j, k)` is split into its red and black
//!   cells (colour `(i + j + k) mod 2` of the padded coordinates), stored contiguously per
//!   colour. Cell `ip = 2h + e` of a row is entry `h` of its colour's row, with
//!   `e = (colour + j + k) mod 2`. A red-black half-sweep then writes one colour's array while
//!   reading the other's: rows run in parallel without `unsafe`, and every kernel is a loop over
//!   contiguous slices that the compiler vectorises. Kernels only visit the per-row spans of
//!   unknowns; non-unknowns inside a span have zero coefficients and `inv_diag = inv_norm = 0`,
//!   so kernels need no branches and keep `x = 0` there, and everything outside the spans is
//!   zero (a rebuild clears what the old spans covered, see [`rows::pack_row`]). In particular `x` is
//!   0 on every non-unknown, which the interpolation relies on (air neighbours are Dirichlet
//!   values); a stale correction left on cells that turned to air once stalled real solves.

use crate::hierarchy::MultigridLevel;
use flip_abi::{CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;

mod rows;
mod uniform;
pub(crate) use rows::{cs_rows, pack_row, ColourView, Neighbours, RowGeom};

/// Dispatches a row kernel on `(THREE_D, UNI)`: `dispatch!(three_d, uni, f, [leading const
/// generics], (arguments))`.
macro_rules! dispatch {
    ($three_d:expr, $uni:expr, $f:ident, [$($pre:expr),*], ($($arg:expr),* $(,)?)) => {
        match ($three_d, $uni) {
            (true, true) => $f::<$({ $pre },)* true, true>($($arg),*),
            (true, false) => $f::<$({ $pre },)* true, false>($($arg),*),
            (false, true) => $f::<$({ $pre },)* false, true>($($arg),*),
            (false, false) => $f::<$({ $pre },)* false, false>($($arg),*),
        }
    };
}
pub(crate) use dispatch;

/// Levels with fewer cells than this run their kernels on one thread (rayon overhead).
pub(crate) const PARALLEL_CELLS: usize = 16 * 1024;

/// Colour-split arrays of one colour (see the module documentation).
#[derive(Default)]
pub(crate) struct Colour {
    /// `1 / A[c][c]` on unknowns, 0 elsewhere.
    pub inv_diag: Vec<f32>,
    /// `A[c][c]` on unknowns, 0 elsewhere.
    pub diag: Vec<f32>,
    /// Couplings to the +x, +y, +z neighbours (0 where either cell is not an unknown).
    pub off: [Vec<f32>; 3],
    /// 1 / (sum of the prolongation weights kept for the cell) on unknowns, else 0 (only on
    /// levels with a coarser level).
    pub inv_norm: Vec<f32>,
    /// Iterate (correction) of this level.
    pub x: Vec<f32>,
    /// Right-hand side.
    pub b: Vec<f32>,
    /// Scaled residual `(b - A x) · inv_norm`, input of the restriction.
    pub r: Vec<f32>,
}

/// One grid level.
pub(crate) struct Level {
    /// Cells per axis (unpadded).
    pub dims: [usize; 3],
    /// Padded cells per axis (even where padded).
    pub pdims: [usize; 3],
    /// Natural padded strides of x, y, z.
    pub stride: [usize; 3],
    /// Ghost layers in z (1 in 3D, 0 when `nk == 1`).
    pub pz: usize,
    /// Axes halved when this level was made from the finer one (all false on level 0).
    pub active: [bool; 3],
    /// Entries per colour row: `pdims[0] / 2`.
    pub half: usize,
    /// Cell kinds (`CELL_*`), natural; ghosts are solid.
    pub kind: Vec<u8>,
    /// `A[c][c]`, natural.
    pub diag: Vec<f32>,
    /// `A[c][c] - Σ |couplings|`: the Dirichlet part of the diagonal (0 on Neumann cells).
    pub excess: Vec<f32>,
    /// Face weight behind `excess`: the Dirichlet terms are `Σ w / t` over faces of weight `w`
    /// to a Dirichlet point `t` cells away, and this is `Σ w`, so `dweight / excess` is their
    /// mean distance (both coarsenings carry it down the levels).
    pub dweight: Vec<f32>,
    /// Couplings `A[c][c+x̂]`, `A[c][c+ŷ]`, `A[c][c+ẑ]`, natural; nonzero only between two
    /// unknowns.
    pub off: Vec<[f32; 3]>,
    /// 1 on unknowns (fluid cells with a positive diagonal), natural.
    pub unk: Vec<u8>,
    /// Open fraction of the face to the +x, +y, +z neighbour (rediscretisation only).
    pub open: [Vec<f32>; 3],
    /// Prolongation mask of this level's cells when it is the coarse level of a transfer
    /// (natural): bit `2a` (`2a + 1`) set when the interpolation to the children of the cell
    /// uses its neighbour below (above) along axis `a`.
    pub mask: Vec<u8>,
    /// Colour-split arrays, red (0) and black (1).
    pub cs: [Colour; 2],
    /// Per colour and padded row, the `[lo, hi)` range of `h` holding the row's unknowns.
    pub spans: [Vec<(u32, u32)>; 2],
    /// Number of unknowns.
    pub unknowns: usize,
    /// `Some(w)`: the coupling of the rows flagged in `uniform_rows`, each of whose unknowns is
    /// coupled to every unknown neighbour by the same `w` (the host's unit stencil away from
    /// variational faces and bodies, also with penalty terms on the diagonal). Their kernels
    /// compute `Σ A[c][n] x[n]` as `w Σ x[n]` (non-unknowns hold `x = 0`) without reading
    /// couplings (see [`Level::row_uniform`]).
    pub uniform: Option<f32>,
    /// Per padded row: whether its kernels use `uniform`.
    pub uniform_rows: Vec<bool>,
    /// Natural padded scratch row storage (interpolation source, restriction output).
    pub scratch: Vec<f32>,
}

impl MultigridLevel for Level {
    type Smoother = super::smoother::RedBlack;
    type Transfer = super::transfer::Barycentric;
    type Coarse = super::coarse::CoarseSolver;
    type Build = super::hierarchy::Build;
    /// The scaled residual; after a forward sweep on red cells only (see `smoother`).
    fn residual(&mut self, after_forward: bool) {
        Level::residual(self, after_forward);
    }
    fn zero_x(&mut self) {
        Level::zero_x(self);
    }
}

/// Padded extent of an axis of `n` cells: even, with at least one ghost cell on each side.
fn padded(n: usize) -> usize {
    2 * n.div_ceil(2) + 2
}

impl Level {
    /// An all-solid level of `dims` cells.
    pub fn new(dims: [usize; 3], active: [bool; 3], with_open: bool) -> Self {
        let pz = usize::from(dims[2] > 1);
        let pdims = [
            padded(dims[0]),
            padded(dims[1]),
            if pz == 1 { padded(dims[2]) } else { 1 },
        ];
        let n = pdims[0] * pdims[1] * pdims[2];
        let rows = pdims[1] * pdims[2];
        let half = pdims[0] / 2;
        let open_len = if with_open { n } else { 0 };
        let colour = || {
            let z = || vec![0.0f32; rows * half];
            Colour {
                inv_diag: z(),
                diag: z(),
                off: [z(), z(), z()],
                inv_norm: z(),
                x: z(),
                b: z(),
                r: z(),
            }
        };
        Self {
            dims,
            pdims,
            stride: [1, pdims[0], pdims[0] * pdims[1]],
            pz,
            active,
            half,
            kind: vec![CELL_SOLID; n],
            diag: vec![0.0; n],
            excess: vec![0.0; n],
            dweight: vec![0.0; n],
            off: vec![[0.0; 3]; n],
            unk: vec![0; n],
            open: [
                vec![0.0; open_len],
                vec![0.0; open_len],
                vec![0.0; open_len],
            ],
            mask: vec![0; n],
            cs: [colour(), colour()],
            spans: [vec![(0, 0); rows], vec![(0, 0); rows]],
            unknowns: 0,
            uniform: None,
            uniform_rows: vec![false; rows],
            scratch: vec![0.0; n],
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

    /// Whether the level is three-dimensional (has z ghost planes).
    pub fn three_d(&self) -> bool {
        self.pz == 1
    }

    /// Natural padded index of unpadded cell `(i, j, k)`.
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

    /// Parity `(j + k) mod 2` of padded row `pr`.
    #[inline(always)]
    pub fn row_parity(&self, pr: usize) -> usize {
        (pr % self.pdims[1] + pr / self.pdims[1]) & 1
    }

    /// `(colour, colour-split index)` of natural padded index `c`.
    #[inline(always)]
    pub fn split(&self, c: usize) -> (usize, usize) {
        let pi = self.pdims[0];
        let (pr, ip) = (c / pi, c % pi);
        ((ip + self.row_parity(pr)) & 1, pr * self.half + (ip >> 1))
    }

    /// Minimum rows per rayon task for row loops on this level.
    pub fn min_rows(&self) -> usize {
        (self.rows() / 64).max(1)
    }

    /// Whether cell `c` (natural) is an unknown.
    #[inline(always)]
    pub fn is_unknown(&self, c: usize) -> bool {
        self.unk[c] != 0
    }

    /// Sets `unk` from `kind` and `diag` and drops couplings that do not join two unknowns
    /// (coarse levels, after their matrix was built).
    pub fn compute_unk(&mut self) {
        let pi = self.pdims[0];
        let (kind, diag) = (&self.kind, &self.diag);
        self.unk
            .par_chunks_mut(pi)
            .zip(kind.par_chunks(pi))
            .zip(diag.par_chunks(pi))
            .for_each(|((u, k), d)| {
                for i in 0..pi {
                    u[i] = u8::from(k[i] == CELL_FLUID && d[i] > 0.0);
                }
            });
        let (unk, stride, n) = (&self.unk, self.stride, self.kind.len());
        self.off
            .par_chunks_mut(pi)
            .enumerate()
            .for_each(|(pr, row)| {
                for (ip, o) in row.iter_mut().enumerate() {
                    let c = pr * pi + ip;
                    for (a, o) in o.iter_mut().enumerate() {
                        let nb = c + stride[a];
                        // Written only when nonzero: rows a rank never built stay unmapped.
                        if *o != 0.0 && (unk[c] == 0 || nb >= n || unk[nb] == 0) {
                            *o = 0.0;
                        }
                    }
                }
            });
    }

    /// Copies the natural matrix into the colour-split arrays and recomputes the spans. Entries
    /// outside the spans are zero: the old spans are cleared first (coefficients and `x`, `b`,
    /// `r`, `inv_norm`), so nothing stale survives a rebuild and the cost follows the number of
    /// unknowns. `uniform`: the level's uniform coupling if already known (else the uniform rows
    /// are found).
    pub fn pack(&mut self, uniform: Option<Option<f32>>) {
        let (pi, half) = (self.pdims[0], self.half);
        let min = self.min_rows();
        let mut cs = std::mem::take(&mut self.cs);
        let mut spans = std::mem::take(&mut self.spans);
        let this = &*self;
        let count: usize = cs_rows(&mut cs, &mut spans, half)
            .enumerate()
            .with_min_len(min)
            .map(|(pr, rows)| {
                let nat = (
                    &this.unk[pr * pi..][..pi],
                    &this.diag[pr * pi..][..pi],
                    &this.off[pr * pi..][..pi],
                );
                pack_row(this.row_parity(pr), half, nat, rows)
            })
            .sum();
        self.cs = cs;
        self.spans = spans;
        self.unknowns = count;
        match uniform {
            Some(u) => self.set_uniform(u),
            None => self.find_uniform_rows(),
        }
    }

    /// Sets `x = 0` everywhere.
    pub fn zero_x(&mut self) {
        let par = self.parallel();
        for col in &mut self.cs {
            if par {
                col.x.par_iter_mut().for_each(|v| *v = 0.0);
            } else {
                col.x.fill(0.0);
            }
        }
    }

    /// Writes `x` (both colours) into the natural scratch array on the padded rows `rows`.
    pub fn x_to_scratch(&mut self, rows: std::ops::Range<usize>) {
        let (pi, half) = (self.pdims[0], self.half);
        let pj = self.pdims[1];
        let (x0, x1) = (&self.cs[0].x, &self.cs[1].x);
        let kernel = |pr: usize, row: &mut [f32]| {
            let q = (pr % pj + pr / pj) & 1;
            // Entry h of colour c sits at ip = 2h + ((c + q) & 1).
            let (even, odd) = if q == 0 { (x0, x1) } else { (x1, x0) };
            let (even, odd) = (&even[pr * half..][..half], &odd[pr * half..][..half]);
            for (h, pair) in row.chunks_exact_mut(2).enumerate() {
                pair[0] = even[h];
                pair[1] = odd[h];
            }
        };
        let first = rows.start;
        let scratch = &mut self.scratch[rows.start * pi..rows.end * pi];
        if rows.len() * pi >= PARALLEL_CELLS {
            scratch
                .par_chunks_mut(pi)
                .enumerate()
                .for_each(|(t, row)| kernel(first + t, row));
        } else {
            scratch
                .chunks_mut(pi)
                .enumerate()
                .for_each(|(t, row)| kernel(first + t, row));
        }
    }
}
