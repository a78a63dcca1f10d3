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
//!   zero (a rebuild clears what the old spans covered, see [`pack_row`]). In particular `x` is
//!   0 on every non-unknown, which the interpolation relies on (air neighbours are Dirichlet
//!   values); a stale correction left on cells that turned to air once stalled real solves.

use flip_plugin::abi::{CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;

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
    /// `Some(w)` when every pair of face-adjacent unknowns is coupled by the same `w` (the
    /// host's unit stencil, also with penalty terms on the diagonal): kernels then compute
    /// `Σ A[c][n] x[n]` as `w Σ x[n]` (non-unknowns hold `x = 0`) without reading couplings.
    pub uniform: Option<f32>,
    /// Natural padded scratch row storage (interpolation source, restriction output).
    pub scratch: Vec<f32>,
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
                        if unk[c] == 0 || nb >= n || unk[nb] == 0 {
                            *o = 0.0;
                        }
                    }
                }
            });
    }

    /// Copies the natural matrix into the colour-split arrays and recomputes the spans. Entries
    /// outside the spans are zero: the old spans are cleared first (coefficients and `x`, `b`,
    /// `r`, `inv_norm`), so nothing stale survives a rebuild and the cost follows the number of
    /// unknowns. `uniform`: the level's uniform coupling if already known (else computed).
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
        self.uniform = match uniform {
            Some(u) => u,
            None => self.uniform_coupling(),
        };
    }

    /// The common coupling of all face-adjacent unknown pairs, if there is one.
    fn uniform_coupling(&self) -> Option<f32> {
        let pi = self.pdims[0];
        let axes = if self.three_d() { 3 } else { 2 };
        let per_row = |pr: usize| -> Option<Option<f32>> {
            let mut seen: Option<Option<f32>> = None;
            for ip in 1..pi - 1 {
                let c = pr * pi + ip;
                if self.unk[c] == 0 {
                    continue;
                }
                for a in 0..axes {
                    let nb = c + self.stride[a];
                    if nb < self.len() && self.unk[nb] != 0 {
                        seen = merge_uniform(seen, Some(Some(self.off[c][a])));
                        if seen == Some(None) {
                            return seen;
                        }
                    }
                }
            }
            seen
        };
        match (0..self.rows())
            .into_par_iter()
            .map(per_row)
            .reduce(|| None, merge_uniform)
        {
            None => Some(0.0),
            Some(w) => w,
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

    /// `r = (b - A x) · inv_norm` on both colours, or on red cells only with `red_only` (0 on
    /// non-unknowns).
    pub fn residual(&mut self, red_only: bool) {
        let half = self.half;
        let three_d = self.three_d();
        let (uniform, w) = (self.uniform, self.uniform.unwrap_or(0.0));
        let pj = self.pdims[1];
        let spans = &self.spans;
        let parity = |pr: usize| (pr % pj + pr / pj) & 1;
        let [c0, c1] = &mut self.cs;
        let (r0, r1) = (&mut c0.r, &mut c1.r);
        let (c0, c1) = (
            ColourView::of(&c0.inv_diag, &c0.diag, &c0.off, &c0.inv_norm, &c0.x, &c0.b),
            ColourView::of(&c1.inv_diag, &c1.diag, &c1.off, &c1.inv_norm, &c1.x, &c1.b),
        );
        let kernel = |pr: usize, out0: &mut [f32], out1: &mut [f32]| {
            let q = parity(pr);
            for (colour, out) in [(0usize, out0), (1usize, out1)] {
                if red_only && colour == 1 {
                    continue;
                }
                let (lo, hi) = spans[colour][pr];
                if lo >= hi {
                    continue;
                }
                let (me, ot) = if colour == 0 { (&c0, &c1) } else { (&c1, &c0) };
                let e = (colour + q) & 1;
                let g = RowGeom {
                    base: pr * half,
                    lo: lo as usize,
                    hi: hi as usize,
                    e,
                    sy: half,
                    sz: half * pj,
                };
                let out = &mut out[g.lo..g.hi];
                dispatch!(
                    three_d,
                    uniform.is_some(),
                    residual_row,
                    [],
                    (&g, me, ot, w, out)
                );
            }
        };
        if self.kind.len() >= PARALLEL_CELLS {
            let min = (spans[0].len() / 64).max(1);
            r0.par_chunks_mut(half)
                .zip(r1.par_chunks_mut(half))
                .enumerate()
                .with_min_len(min)
                .for_each(|(pr, (a, b))| kernel(pr, a, b));
        } else {
            r0.chunks_mut(half)
                .zip(r1.chunks_mut(half))
                .enumerate()
                .for_each(|(pr, (a, b))| kernel(pr, a, b));
        }
    }

    /// The couplings as three separate natural arrays (for `neumann::Regions` on small levels).
    pub fn off_arrays(&self) -> [Vec<f32>; 3] {
        [0, 1, 2].map(|a| self.off.iter().map(|o| o[a]).collect())
    }

    /// Writes `x` (both colours) into the natural scratch array.
    pub fn x_to_scratch(&mut self) {
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
        if self.parallel() {
            self.scratch
                .par_chunks_mut(pi)
                .enumerate()
                .for_each(|(pr, row)| kernel(pr, row));
        } else {
            self.scratch
                .chunks_mut(pi)
                .enumerate()
                .for_each(|(pr, row)| kernel(pr, row));
        }
    }
}

/// Borrowed colour-split arrays of one colour, read-only.
pub(crate) struct ColourView<'a> {
    pub inv_diag: &'a [f32],
    pub diag: &'a [f32],
    pub off: [&'a [f32]; 3],
    pub inv_norm: &'a [f32],
    pub x: &'a [f32],
    pub b: &'a [f32],
}

impl<'a> ColourView<'a> {
    /// A view of the given arrays.
    pub fn of(
        inv_diag: &'a [f32],
        diag: &'a [f32],
        off: &'a [Vec<f32>; 3],
        inv_norm: &'a [f32],
        x: &'a [f32],
        b: &'a [f32],
    ) -> Self {
        Self {
            inv_diag,
            diag,
            off: [&off[0], &off[1], &off[2]],
            inv_norm,
            x,
            b,
        }
    }
}

/// Geometry of one colour row inside a kernel: the colour-split offset of the row, the span,
/// the parity `e` and the colour-split strides of y and z.
pub(crate) struct RowGeom {
    pub base: usize,
    pub lo: usize,
    pub hi: usize,
    pub e: usize,
    pub sy: usize,
    pub sz: usize,
}

impl RowGeom {
    /// Number of entries in the span.
    #[inline(always)]
    pub fn n(&self) -> usize {
        self.hi - self.lo
    }
    /// The span of `a` shifted by `shift` entries (colour-split index `base + lo + shift ..`).
    #[inline(always)]
    pub fn at<'a, T>(&self, a: &'a [T], shift: isize) -> &'a [T] {
        let start = (self.base + self.lo) as isize + shift;
        &a[start as usize..][..self.n()]
    }
    /// Shifts of the six neighbours in the other colour's arrays: x+, x-, y+, y-, z+, z-.
    #[inline(always)]
    pub fn shifts(&self) -> [isize; 6] {
        let e = self.e as isize;
        let (sy, sz) = (self.sy as isize, self.sz as isize);
        [e, e - 1, sy, -sy, sz, -sz]
    }
}

/// The six neighbours of the cells of a colour row: their couplings (from the other colour's
/// arrays for the - sides) and values, as slices aligned with the row's span.
pub(crate) struct Neighbours<'a, T> {
    /// Couplings x+, x-, y+, y-, z+, z- (unused in uniform mode).
    pub c: [&'a [f32]; 6],
    /// Values x+, x-, y+, y-, z+, z-.
    pub u: [&'a [T]; 6],
}

impl<'a, T> Neighbours<'a, T> {
    /// The neighbours of row `g` of colour `me_off`'s cells, values from `u_ot` (other colour).
    #[inline(always)]
    pub fn new(
        g: &RowGeom,
        me_off: [&'a [f32]; 3],
        ot_off: [&'a [f32]; 3],
        u_ot: &'a [T],
        three_d: bool,
        uniform: bool,
    ) -> Self {
        let s = g.shifts();
        let empty: &[f32] = &[];
        let u = |k: usize| {
            if k < 4 || three_d {
                g.at(u_ot, s[k])
            } else {
                &u_ot[..0]
            }
        };
        let c = |k: usize| {
            if uniform || (k >= 4 && !three_d) {
                empty
            } else if k & 1 == 0 {
                g.at(me_off[k / 2], 0)
            } else {
                g.at(ot_off[k / 2], s[k])
            }
        };
        Self {
            c: [c(0), c(1), c(2), c(3), c(4), c(5)],
            u: [u(0), u(1), u(2), u(3), u(4), u(5)],
        }
    }
}

impl Neighbours<'_, f32> {
    /// `Σ A[c][n] x[n]` for entry `t` (`w`: the uniform coupling when `UNI`).
    #[inline(always)]
    pub fn sum<const THREE_D: bool, const UNI: bool>(&self, w: f32, t: usize) -> f32 {
        let u = &self.u;
        if UNI {
            let s = (u[0][t] + u[1][t]) + (u[2][t] + u[3][t]);
            w * if THREE_D { s + (u[4][t] + u[5][t]) } else { s }
        } else {
            let c = &self.c;
            let s =
                (c[0][t] * u[0][t] + c[1][t] * u[1][t]) + (c[2][t] * u[2][t] + c[3][t] * u[3][t]);
            if THREE_D {
                s + (c[4][t] * u[4][t] + c[5][t] * u[5][t])
            } else {
                s
            }
        }
    }
}

impl<T: Copy + Into<f64>> Neighbours<'_, T> {
    /// `Σ A[c][n] u[n]` for entry `t` in f64.
    #[inline(always)]
    pub fn sum64<const THREE_D: bool, const UNI: bool>(&self, w: f64, t: usize) -> f64 {
        let u = &self.u;
        let v = |k: usize| -> f64 { u[k][t].into() };
        if UNI {
            let s = (v(0) + v(1)) + (v(2) + v(3));
            w * if THREE_D { s + (v(4) + v(5)) } else { s }
        } else {
            let c = |k: usize| f64::from(self.c[k][t]);
            let s = (c(0) * v(0) + c(1) * v(1)) + (c(2) * v(2) + c(3) * v(3));
            if THREE_D {
                s + (c(4) * v(4) + c(5) * v(5))
            } else {
                s
            }
        }
    }
}

/// One colour row of the scaled residual.
#[inline(always)]
fn residual_row<const THREE_D: bool, const UNI: bool>(
    g: &RowGeom,
    me: &ColourView<'_>,
    ot: &ColourView<'_>,
    w: f32,
    out: &mut [f32],
) {
    let nb = Neighbours::new(g, me.off, ot.off, ot.x, THREE_D, UNI);
    let n = g.n();
    let (b, d, x, wn) = (
        g.at(me.b, 0),
        g.at(me.diag, 0),
        g.at(me.x, 0),
        g.at(me.inv_norm, 0),
    );
    let out = &mut out[..n];
    for t in 0..n {
        out[t] = (b[t] - d[t] * x[t] - nb.sum::<THREE_D, UNI>(w, t)) * wn[t];
    }
}

/// Merges per-row uniform-coupling findings: `None` = no pair seen, `Some(Some(w))` = every pair
/// coupled by `w`, `Some(None)` = mixed.
pub(crate) fn merge_uniform(a: Option<Option<f32>>, b: Option<Option<f32>>) -> Option<Option<f32>> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(Some(v)), Some(Some(w))) if v == w => Some(Some(v)),
        _ => Some(None),
    }
}

/// Both colours' rows of one colour-split array, row by row.
fn pair_rows<'a>(
    a: &'a mut [f32],
    b: &'a mut [f32],
    half: usize,
) -> rayon::iter::Zip<rayon::slice::ChunksMut<'a, f32>, rayon::slice::ChunksMut<'a, f32>> {
    a.par_chunks_mut(half).zip(b.par_chunks_mut(half))
}

/// The colour-split rows written by [`pack_row`]: per colour `inv_diag, diag, ox, oy, oz, x,
/// b, r`, and the span.
pub(crate) type CsRows<'a> = ([[&'a mut [f32]; 8]; 2], [&'a mut (u32, u32); 2]);

/// A parallel iterator over the padded rows of `cs`, yielding [`CsRows`].
pub(crate) fn cs_rows<'a>(
    cs: &'a mut [Colour; 2],
    spans: &'a mut [Vec<(u32, u32)>; 2],
    half: usize,
) -> impl IndexedParallelIterator<Item = CsRows<'a>> {
    let [c0, c1] = cs;
    let [s0, s1] = spans;
    let [ox0, oy0, oz0] = &mut c0.off;
    let [ox1, oy1, oz1] = &mut c1.off;
    pair_rows(&mut c0.inv_diag, &mut c1.inv_diag, half)
        .zip(pair_rows(&mut c0.diag, &mut c1.diag, half))
        .zip(pair_rows(ox0, ox1, half))
        .zip(pair_rows(oy0, oy1, half))
        .zip(pair_rows(oz0, oz1, half))
        .zip(pair_rows(&mut c0.x, &mut c1.x, half))
        .zip(pair_rows(&mut c0.b, &mut c1.b, half))
        .zip(pair_rows(&mut c0.r, &mut c1.r, half))
        .zip(s0.par_iter_mut().zip(s1.par_iter_mut()))
        .map(|((((((((inv, dg), ox), oy), oz), x), b), r), span)| {
            (
                [
                    [inv.0, dg.0, ox.0, oy.0, oz.0, x.0, b.0, r.0],
                    [inv.1, dg.1, ox.1, oy.1, oz.1, x.1, b.1, r.1],
                ],
                [span.0, span.1],
            )
        })
}

/// Packs one padded row (natural `unk`, `diag`, `off` of the row, parity `q`) into its
/// colour-split rows; returns its number of unknowns. Coefficients are written over the new
/// span (0 on non-unknowns) and cleared where only the old span reached; `x` is cleared over
/// the old span (the coarsest level's non-unknowns must read 0), `b` and `r` where only the old
/// span reached (kernels write them over the spans before reading).
pub(crate) fn pack_row(
    q: usize,
    half: usize,
    (unk, diag, off): (&[u8], &[f32], &[[f32; 3]]),
    (rows, spans): CsRows<'_>,
) -> usize {
    let first = unk.iter().position(|&u| u != 0);
    let last = unk.iter().rposition(|&u| u != 0);
    let mut count = 0;
    for (colour, (arrays, span)) in rows.into_iter().zip(spans).enumerate() {
        let (olo, ohi) = (span.0 as usize, span.1 as usize);
        let [inv, dg, ox, oy, oz, x, b, r] = arrays;
        x[olo..ohi].fill(0.0);
        *span = (0, 0);
        let e = (colour + q) & 1;
        // Entries h with first <= 2h + e <= last (first >= 1): the new span's candidates.
        let (lo, hi) = match (first, last) {
            (Some(f), Some(l)) => ((f - e).div_ceil(2), ((l + 1) - e).div_ceil(2).min(half)),
            _ => (0, 0),
        };
        let (mut nlo, mut nhi, mut n) = (usize::MAX, 0, 0);
        for h in lo..hi {
            let ip = 2 * h + e;
            if unk[ip] == 0 {
                for v in [&mut *inv, &mut *dg, &mut *ox, &mut *oy, &mut *oz] {
                    v[h] = 0.0;
                }
                continue;
            }
            let d = diag[ip];
            dg[h] = d;
            inv[h] = 1.0 / d;
            let o = off[ip];
            ox[h] = o[0];
            oy[h] = o[1];
            oz[h] = o[2];
            nlo = nlo.min(h);
            nhi = h + 1;
            n += 1;
        }
        if n > 0 {
            *span = (nlo as u32, nhi as u32);
        }
        // Clear what only the old span covered (outside [lo, hi) and outside the new span).
        let (nlo, nhi) = if n > 0 { (nlo, nhi) } else { (lo, lo) };
        for (a, z) in [(olo, ohi.min(nlo)), (olo.max(nhi), ohi)] {
            if a < z {
                for v in [
                    &mut *inv, &mut *dg, &mut *ox, &mut *oy, &mut *oz, &mut *b, &mut *r,
                ] {
                    v[a..z].fill(0.0);
                }
            }
        }
        // Entries of [lo, hi) outside [nlo, nhi) were written as non-unknowns above, but b and
        // r there may be stale: clear them too.
        for (a, z) in [(lo, nlo.min(hi)), (nhi.max(lo), hi)] {
            if a < z {
                b[a..z].fill(0.0);
                r[a..z].fill(0.0);
            }
        }
        count += n;
    }
    count
}
