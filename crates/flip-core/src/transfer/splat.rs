//! P2G (Karlsson Alg. 2-3): a parallel, deterministic, race-free splat.
//!
//! Particles are bucketed into slabs two cells thick along the slowest axis (z in 3D, y in 2D),
//! keeping their original order inside a slab. A particle of cell layer `l` touches face layers
//! `l-1..=l+1` only, so slabs of one parity never share a face: even slabs splat in parallel,
//! then odd slabs. Every face therefore sums its contributions in one fixed order, whatever the
//! thread count.

use super::stencil::{matches_spec, Block, Lattice};
use crate::grid::GridSpec;
use crate::mac::{MacGrid, MacMask};
use crate::particles::Particles;
use glam::Vec3;
use rayon::prelude::*;

/// Cells per slab along the slab axis; must be ≥ 2 for same-parity slabs to be disjoint.
pub(crate) const SLAB: usize = 2;

/// Reusable buffers of [`p2g`] (particle buckets and weight sums), kept between steps so that
/// a step allocates nothing large.
#[derive(Debug, Default)]
pub struct TransferScratch {
    /// `lists[chunk][slab]`: indices of the particles of one contiguous chunk in one slab.
    lists: Vec<Vec<Vec<u32>>>,
    /// Per component and face: (Σ w·v, Σ w), interleaved so that a splat touches one line.
    acc: [Vec<[f32; 2]>; 3],
}

/// Geometry of the slab decomposition.
#[derive(Clone, Copy)]
pub(crate) struct Slabs {
    /// Slab axis: 1 in 2D, 2 in 3D.
    pub axis: usize,
    /// Cells along the slab axis.
    pub cells: usize,
    /// Number of slabs.
    pub count: usize,
}

impl Slabs {
    pub(crate) fn new(spec: &GridSpec) -> Self {
        let axis = if spec.is_2d() { 1 } else { 2 };
        let cells = spec.dims()[axis];
        Self {
            axis,
            cells,
            count: cells.div_ceil(SLAB),
        }
    }
    /// Slab of a particle at `q = p / dx` (its cell layer, clamped, over `SLAB`).
    #[inline(always)]
    fn of(&self, q: Vec3) -> usize {
        let layer = (q[self.axis].max(0.0) as u32 as usize).min(self.cells - 1);
        layer / SLAB
    }
    /// Face layers `[lo, hi)` of component `c` touched by the particles of slab `s` (for
    /// `c != axis` also the cell-centre layers they touch).
    pub(crate) fn layers(&self, c: usize, s: usize) -> (usize, usize) {
        let (a, b) = (s * SLAB, ((s + 1) * SLAB).min(self.cells));
        if c == self.axis {
            (a, b + 1)
        } else {
            (a.saturating_sub(1), (b + 1).min(self.cells))
        }
    }
}

/// A slab's window into one component's accumulators: face layers `[lo, hi)`.
struct Window<'a> {
    acc: &'a mut [[f32; 2]],
    /// Linear index of `acc[0]` in the component.
    offset: usize,
}

impl Window<'_> {
    /// Alg. 2: adds `w·v` and `w` to the corners of `b` (4 corners on a single layer), where
    /// `v = value + slope·(corner − t)` (APIC's affine term with `slope` per sample spacing,
    /// Jiang et al. 2015 eq. 9; zero for PIC/FLIP).
    #[inline(always)]
    fn splat(&mut self, b: &Block, value: f32, slope: Vec3) {
        let w = b.weights();
        let v0 = value - slope.dot(Vec3::from(b.t));
        let [ox, oy, oz] = b.off;
        let base = b.base - self.offset;
        let layers = if oz == 0 { 1 } else { 2 };
        for l in 0..layers {
            for r in 0..2 {
                let at = base + l * oz + r * oy;
                let row = &mut self.acc[at..=at + ox]; // one bounds check per row
                let (w0, w1) = (w[4 * l + 2 * r], w[4 * l + 2 * r + 1]);
                let v = v0 + slope.y * r as f32 + slope.z * l as f32;
                row[0][0] += w0 * v;
                row[0][1] += w0;
                row[ox][0] += w1 * (v + slope.x);
                row[ox][1] += w1;
            }
        }
    }
}

/// The work of one slab in one parity phase.
struct SlabTask<'a> {
    slab: usize,
    win: [Option<Window<'a>>; 3],
}

/// P2G (Karlsson Alg. 2-3, eq. 19-20; trilinear splat of the tutorial): each face gets the
/// hat-weighted average of nearby particle velocities; particles that carry an APIC affine
/// velocity contribute `v_p + C_p·(x_face − x_p)` (Jiang et al. 2015). Writes `vel` (normalised; 0 where no
/// weight) and `valid` (1 where the weight sum is > 0). Resizes `vel`/`valid` to `spec` if
/// needed. Deterministic for any thread count. In 2D `w` is 0 and invalid.
pub fn p2g(
    spec: &GridSpec,
    particles: &Particles,
    vel: &mut MacGrid,
    valid: &mut MacMask,
    scratch: &mut TransferScratch,
) {
    if !matches_spec(spec, vel) {
        *vel = MacGrid::zeros(spec);
    }
    if valid.u.dims() != vel.u.dims()
        || valid.v.dims() != vel.v.dims()
        || valid.w.dims() != vel.w.dims()
    {
        *valid = MacMask::zeros(spec);
    }
    let slabs = Slabs::new(spec);
    let lattice = Lattice::new(spec);
    let chunks = bucket(spec, &particles.pos, &slabs, &mut scratch.lists);
    for (g, acc) in vel.axes().into_iter().zip(scratch.acc.iter_mut()) {
        acc.resize(g.len(), [0.0; 2]);
        acc.par_iter_mut()
            .with_min_len(4096)
            .for_each(|a| *a = [0.0; 2]);
    }
    for parity in 0..2 {
        let lists = &scratch.lists[..chunks];
        let tasks = phase_tasks(spec, &slabs, parity, &mut scratch.acc);
        tasks
            .into_par_iter()
            .for_each(|mut t| splat_slab(&lattice, particles, lists, &mut t));
    }
    normalise(vel, valid, &scratch.acc);
    if spec.is_2d() {
        vel.w.fill(0.0);
        valid.w.fill(0);
    }
}

/// Fills `lists[chunk][slab]` with indices into `pos`; returns the number of chunks used.
pub(crate) fn bucket(
    spec: &GridSpec,
    pos: &[Vec3],
    slabs: &Slabs,
    lists: &mut Vec<Vec<Vec<u32>>>,
) -> usize {
    let n = pos.len();
    assert!(n <= u32::MAX as usize, "too many particles for u32 indices");
    let chunk_len = n.div_ceil(4 * rayon::current_num_threads()).max(8192);
    let chunks = n.div_ceil(chunk_len).max(1);
    lists.truncate(chunks);
    lists.resize_with(chunks, Vec::new);
    let inv_dx = 1.0 / spec.dx;
    lists.par_iter_mut().enumerate().for_each(|(c, l)| {
        l.resize_with(slabs.count, Vec::new);
        l.iter_mut().for_each(Vec::clear);
        let end = ((c + 1) * chunk_len).min(n);
        for p in (c * chunk_len).min(end)..end {
            l[slabs.of(pos[p] * inv_dx)].push(p as u32);
        }
    });
    chunks
}

/// Splits every component's accumulators into the disjoint windows of the slabs of `parity`.
fn phase_tasks<'a>(
    spec: &GridSpec,
    slabs: &Slabs,
    parity: usize,
    acc: &'a mut [Vec<[f32; 2]>; 3],
) -> Vec<SlabTask<'a>> {
    let mut tasks: Vec<SlabTask<'a>> = (parity..slabs.count)
        .step_by(2)
        .map(|slab| SlabTask {
            slab,
            win: [None, None, None],
        })
        .collect();
    let d = spec.dims();
    for (c, acc) in acc.iter_mut().enumerate().take(spec.dimension()) {
        // faces of component c: one more along axis c
        let layer_len: usize = (0..slabs.axis)
            .map(|a| d[a] + usize::from(a == c))
            .product();
        let (mut rest, mut at) = (&mut acc[..], 0usize);
        for t in tasks.iter_mut() {
            let (lo, hi) = slabs.layers(c, t.slab);
            let (start, end) = (lo * layer_len, hi * layer_len);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - at);
            let (win, tail) = tail.split_at_mut(end - start);
            (rest, at) = (tail, end);
            t.win[c] = Some(Window {
                acc: win,
                offset: start,
            });
        }
    }
    tasks
}

/// Splats the particles of one slab into its windows, in particle order.
fn splat_slab(
    lattice: &Lattice,
    particles: &Particles,
    lists: &[Vec<Vec<u32>>],
    task: &mut SlabTask<'_>,
) {
    let [wu, wv, ww] = &mut task.win;
    let (Some(wu), Some(wv)) = (wu.as_mut(), wv.as_mut()) else {
        return;
    };
    let affine = particles.has_affine().then_some(&particles.affine[..]);
    let dx = lattice.dx();
    for l in lists {
        for &p in &l[task.slab] {
            let p = p as usize;
            let (x, v) = (particles.pos[p], particles.vel[p]);
            let c = affine.map_or([Vec3::ZERO; 3], |a| a[p].map(|g| g * dx));
            let st = lattice.stencil(x);
            wu.splat(&st.block::<0>(), v.x, c[0]);
            wv.splat(&st.block::<1>(), v.y, c[1]);
            if let Some(ww) = ww.as_mut() {
                ww.splat(&st.block::<2>(), v.z, c[2]);
            }
        }
    }
}

/// Alg. 3: divides by the weight sums and marks faces with weight.
fn normalise(vel: &mut MacGrid, valid: &mut MacMask, acc: &[Vec<[f32; 2]>; 3]) {
    for ((g, m), acc) in vel.axes_mut().into_iter().zip(valid.axes_mut()).zip(acc) {
        let faces = g
            .data
            .par_iter_mut()
            .zip(m.data.par_iter_mut())
            .zip(acc.par_iter());
        faces.with_min_len(4096).for_each(|((v, m), &[sum, w])| {
            (*v, *m) = if w > 0.0 { (sum / w, 1) } else { (0.0, 0) };
        });
    }
}

#[cfg(test)]
mod tests;
