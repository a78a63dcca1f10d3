//! Connected regions of a symmetric matrix's unknowns, and the pure-Neumann (singular) ones: a
//! region none of whose unknowns has a Dirichlet term has `A 1 = 0`, so its solution is defined
//! up to a constant and its right-hand side must sum to zero. Solvers project the right-hand
//! side onto the range and return the zero-mean solution there; the host's check projects the
//! residual the same way. The one region finder of every solver and of [`crate::check`].
//!
//! Union-find over runs: unknowns coupled to their successor (`c` to `c + 1`, a grid row along
//! x) form a run, and runs are joined through their couplings to earlier unknowns. When every
//! coupling reaches at most one plane back ([`Couplings::plane`]), the cells are cut into slabs
//! of whole planes that are labelled in parallel and joined across the cuts.

use crate::Problem;
use flip_abi as abi;
use rayon::prelude::*;
use std::ops::Range;

/// The coupling graph of a symmetric matrix over cells `0..len()`.
pub trait Couplings: Sync {
    /// Number of cells.
    fn len(&self) -> usize;
    /// Whether there are no cells.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether cell `c` is an unknown.
    fn unknown(&self, c: usize) -> bool;
    /// Whether unknown `c` has a Dirichlet term.
    fn dirichlet(&self, c: usize) -> bool;
    /// Whether unknown `c` is coupled to `c + 1` (an unknown): `c + 1` continues `c`'s run.
    fn coupled_to_next(&self, c: usize) -> bool;
    /// Calls `f` with unknowns before `c` coupled to it (`c - 1` may be left out when
    /// [`Couplings::coupled_to_next`] reports it).
    fn earlier(&self, c: usize, f: impl FnMut(usize));
    /// `Some(plane)` when [`Couplings::earlier`] never reaches more than `plane` cells back and
    /// `len` is a multiple of `plane`: slabs of whole planes are then labelled in parallel.
    fn plane(&self) -> Option<usize> {
        None
    }
}

/// A run of unknowns `start..end` (consecutive cells, each coupled to the next).
type Run = (u32, u32);

/// Union-find state of one slab (run ids local to it), kept between finds.
#[derive(Clone, Debug, Default)]
struct Slab {
    parent: Vec<u32>,
    dirichlet: Vec<bool>,
    runs: Vec<Run>,
}

/// The regions of a [`Couplings`] graph. Buffers are kept between [`Regions::find`]s.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    /// Region of each cell, numbered in the order of their first cell (`u32::MAX` off the
    /// unknowns).
    pub label: Vec<u32>,
    /// Per region: pure Neumann.
    pub singular: Vec<bool>,
    /// Per region: number of unknowns.
    pub size: Vec<usize>,
    /// The runs of the singular regions, with their region, in cell order.
    singular_runs: Vec<(u32, Run)>,
    slabs: Vec<Slab>,
    parent: Vec<u32>,
    dirichlet: Vec<bool>,
}

fn root(parent: &mut [u32], mut a: u32) -> u32 {
    while parent[a as usize] != a {
        let g = parent[parent[a as usize] as usize];
        parent[a as usize] = g;
        a = g;
    }
    a
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (root(parent, a), root(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// Labels the runs of cells `cells` (whose labels are `label`) into `slab`, with run ids local
/// to it. Couplings to cells before the slab are left to the join.
fn label_slab(g: &impl Couplings, cells: Range<usize>, label: &mut [u32], slab: &mut Slab) {
    let start = cells.start;
    slab.parent.clear();
    slab.dirichlet.clear();
    slab.runs.clear();
    let mut c = cells.start;
    while c < cells.end {
        if !g.unknown(c) {
            c += 1;
            continue;
        }
        let id = slab.parent.len() as u32;
        slab.parent.push(id);
        slab.dirichlet.push(false);
        let lo = c;
        // The last run joined through each earlier neighbour slot (skips repeated unions).
        let mut joined = [u32::MAX; 4];
        loop {
            label[c - start] = id;
            if g.dirichlet(c) {
                slab.dirichlet[id as usize] = true;
            }
            let mut slot = 0;
            g.earlier(c, |m| {
                if m >= start {
                    let other = label[m - start];
                    let s = slot.min(3);
                    if other != joined[s] {
                        joined[s] = other;
                        union(&mut slab.parent, id, other);
                    }
                }
                slot += 1;
            });
            let next = g.coupled_to_next(c);
            c += 1;
            if !(next && c < cells.end) {
                break;
            }
        }
        slab.runs.push((lo as u32, c as u32));
    }
}

impl Regions {
    /// The regions of `g`.
    pub fn of(g: &impl Couplings) -> Self {
        let mut r = Self::default();
        r.find(g);
        r
    }

    /// Labels the regions of `g`, reusing this value's buffers.
    pub fn find(&mut self, g: &impl Couplings) {
        let len = g.len();
        self.label.clear();
        self.label.resize(len, u32::MAX);
        self.singular.clear();
        self.size.clear();
        self.singular_runs.clear();
        let plane = g.plane().filter(|&p| p > 0 && len.is_multiple_of(p));
        let planes = plane.map_or(1, |p| len / p);
        let plane = plane.unwrap_or(len.max(1));
        let count = rayon::current_num_threads().clamp(1, 8).min(planes.max(1));
        let cut = |s: usize| (planes * s / count) * plane;
        self.slabs.resize_with(count, Slab::default);
        let mut labels: Vec<&mut [u32]> = Vec::with_capacity(count);
        let mut rest: &mut [u32] = &mut self.label;
        for s in 0..count {
            let (head, tail) = rest.split_at_mut(cut(s + 1).min(len) - cut(s).min(len));
            labels.push(head);
            rest = tail;
        }
        labels
            .into_par_iter()
            .zip(self.slabs.par_iter_mut())
            .enumerate()
            .for_each(|(s, (label, slab))| label_slab(g, cut(s)..cut(s + 1).min(len), label, slab));
        // Global run ids: each slab's shifted by the runs before it.
        self.parent.clear();
        self.dirichlet.clear();
        let mut offsets = Vec::with_capacity(count);
        for slab in &self.slabs {
            let off = self.parent.len() as u32;
            offsets.push(off);
            self.parent.extend(slab.parent.iter().map(|&p| p + off));
            self.dirichlet.extend_from_slice(&slab.dirichlet);
        }
        // Join across the cuts: a slab's first plane to the slab before.
        for s in 1..count {
            let first = cut(s);
            for c in first..(first + plane).min(len) {
                if !g.unknown(c) {
                    continue;
                }
                let a = self.label[c] + offsets[s];
                let parent = &mut self.parent;
                let label = &self.label;
                g.earlier(c, |m| {
                    if m < first {
                        union(parent, a, label[m] + offsets[s - 1]);
                    }
                });
            }
        }
        // A region has a Dirichlet term if any of its runs has.
        for id in 0..self.parent.len() as u32 {
            let r = root(&mut self.parent, id);
            if self.dirichlet[id as usize] {
                self.dirichlet[r as usize] = true;
            }
        }
        // Regions in the order of their first run; `dirichlet` of a root now holds its region.
        let mut region = vec![u32::MAX; self.parent.len()];
        let runs = self.slabs.iter().flat_map(|s| s.runs.iter().copied());
        for (id, run) in (0..self.parent.len() as u32).zip(runs) {
            let r = root(&mut self.parent, id) as usize;
            if region[r] == u32::MAX {
                region[r] = self.singular.len() as u32;
                self.singular.push(!self.dirichlet[r]);
                self.size.push(0);
            }
            let k = region[r];
            self.size[k as usize] += (run.1 - run.0) as usize;
            region[id as usize] = k;
            if self.singular[k as usize] {
                self.singular_runs.push((k, run));
            }
        }
        // Region labels, slab by slab.
        let mut rest: &mut [u32] = &mut self.label;
        let mut labels: Vec<(&mut [u32], usize, u32)> = Vec::with_capacity(count);
        for (s, &off) in offsets.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(cut(s + 1).min(len) - cut(s).min(len));
            labels.push((head, cut(s), off));
            rest = tail;
        }
        let region = &region;
        labels.into_par_iter().zip(self.slabs.par_iter()).for_each(
            |((label, start, off), slab)| {
                for (id, &(lo, hi)) in slab.runs.iter().enumerate() {
                    let k = region[off as usize + id];
                    label[lo as usize - start..hi as usize - start].fill(k);
                }
            },
        );
    }

    /// Whether any region is singular.
    pub fn any_singular(&self) -> bool {
        !self.singular_runs.is_empty()
    }

    /// The runs of unknowns of the singular regions, with their region, in cell order.
    pub fn singular_runs(&self) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
        self.singular_runs
            .iter()
            .map(|&(k, (lo, hi))| (k as usize, lo as usize..hi as usize))
    }

    /// Subtracts, on each singular region, the mean of `v` (one value per cell) over it.
    pub fn remove_mean(&self, v: &mut [f64]) {
        self.remove_mean_with(v, |v, c| v[c], |v, c, mean| v[c] -= mean);
    }

    /// Subtracts, on each singular region, the mean of a vector `v` whose value at a cell
    /// `get` reads and `sub(v, cell, mean)` lowers; sums run in cell order.
    pub fn remove_mean_with<V: ?Sized>(
        &self,
        v: &mut V,
        get: impl Fn(&V, usize) -> f64,
        sub: impl Fn(&mut V, usize, f64),
    ) {
        if !self.any_singular() {
            return;
        }
        let mut sum = vec![0.0f64; self.singular.len()];
        for (k, run) in self.singular_runs() {
            for c in run {
                sum[k] += get(v, c);
            }
        }
        for (k, run) in self.singular_runs() {
            let mean = sum[k] / self.size[k] as f64;
            for c in run {
                sub(v, c, mean);
            }
        }
    }
}

/// The coupling graph of a structured (5/7-point) matrix: fluid cells, coupled where `off` is
/// nonzero; a Dirichlet term is a diagonal above the magnitude of the couplings by more than
/// 1e-6.
pub struct Grid<'a> {
    dims: [usize; 3],
    cell_kind: &'a [u8],
    diag: &'a [f32],
    /// The couplings and index stride of every axis longer than one cell.
    axes: Vec<(&'a [f32], usize)>,
}

impl<'a> Grid<'a> {
    /// The graph of the matrix given by its cell kinds, diagonal and `+x, +y, +z` couplings.
    pub fn new(
        dims: [usize; 3],
        cell_kind: &'a [u8],
        diag: &'a [f32],
        off: [&'a [f32]; 3],
    ) -> Self {
        let strides = [1, dims[0], dims[0] * dims[1]];
        let axes = (0..3)
            .filter(|&a| dims[a] > 1)
            .map(|a| (off[a], strides[a]))
            .collect();
        Self {
            dims,
            cell_kind,
            diag,
            axes,
        }
    }

    /// The graph of `p`'s matrix.
    pub fn of(p: &'a Problem<'_>) -> Self {
        Self::new(p.dims, p.cell_kind, p.diag, p.off)
    }
}

impl Couplings for Grid<'_> {
    fn len(&self) -> usize {
        self.cell_kind.len()
    }
    fn unknown(&self, c: usize) -> bool {
        self.cell_kind[c] == abi::CELL_FLUID
    }
    fn dirichlet(&self, c: usize) -> bool {
        let n = self.len();
        let mut coupled = 0.0;
        for &(off, sa) in &self.axes {
            if c + sa < n && off[c] != 0.0 {
                coupled -= f64::from(off[c]);
            }
            if c >= sa && off[c - sa] != 0.0 {
                coupled -= f64::from(off[c - sa]);
            }
        }
        f64::from(self.diag[c]) > coupled + 1e-6
    }
    fn coupled_to_next(&self, c: usize) -> bool {
        self.dims[0] > 1 && c + 1 < self.len() && self.axes[0].0[c] != 0.0 && self.unknown(c + 1)
    }
    fn earlier(&self, c: usize, mut f: impl FnMut(usize)) {
        for &(off, sa) in &self.axes {
            if sa > 1 && c >= sa && off[c - sa] != 0.0 && self.unknown(c - sa) {
                f(c - sa);
            }
        }
    }
    fn plane(&self) -> Option<usize> {
        let [ni, nj, nk] = self.dims;
        Some(if nk > 1 { ni * nj } else { ni })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1D chain over `n` cells: unknowns `u`, coupled where `link[c]` (c to c + 1),
    /// Dirichlet where `dir`.
    struct Chain {
        u: Vec<bool>,
        link: Vec<bool>,
        dir: Vec<bool>,
        jump: Option<(usize, usize)>,
    }

    impl Couplings for Chain {
        fn len(&self) -> usize {
            self.u.len()
        }
        fn unknown(&self, c: usize) -> bool {
            self.u[c]
        }
        fn dirichlet(&self, c: usize) -> bool {
            self.dir[c]
        }
        fn coupled_to_next(&self, c: usize) -> bool {
            self.link[c]
        }
        fn earlier(&self, c: usize, mut f: impl FnMut(usize)) {
            if let Some((a, b)) = self.jump {
                if c == b {
                    f(a);
                }
            }
        }
    }

    #[test]
    fn runs_join_and_singular_regions_are_projected() {
        // Cells 0-1 a run, 3-4 a run joined to 0 by a long coupling, 6 alone with Dirichlet.
        let g = Chain {
            u: vec![true, true, false, true, true, false, true],
            link: vec![true, false, false, true, false, false, false],
            dir: vec![false, false, false, false, false, false, true],
            jump: Some((0, 3)),
        };
        let r = Regions::of(&g);
        assert_eq!(r.label, vec![0, 0, u32::MAX, 0, 0, u32::MAX, 1]);
        assert_eq!(r.singular, vec![true, false]);
        assert_eq!(r.size, vec![4, 1]);
        let mut v = vec![1.0, 2.0, 9.0, 3.0, 6.0, 9.0, 5.0];
        r.remove_mean(&mut v);
        assert_eq!(v, vec![-2.0, -1.0, 9.0, 0.0, 3.0, 9.0, 5.0]);
    }
}
