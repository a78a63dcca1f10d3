//! Connected regions of the fine level's unknowns, found once per hierarchy rebuild by a
//! union-find over row runs. A region none of whose cells has a Dirichlet term is pure Neumann
//! (singular): its right-hand side is projected onto the range and its solution returned with
//! zero mean, as `neumann::Regions` does for the other solvers. Only singular regions are kept,
//! as lists of row runs; usually there are none.
//!
//! The grid is cut into slabs of whole planes (rows in 2D), labelled in parallel; the slabs'
//! runs are then joined across the cuts, where only the coupling between a slab's first plane
//! and the previous slab's last plane is left to test.

use super::level::Level;
use rayon::prelude::*;

/// A run of unknowns coupled along x: `(padded row, ip_lo, ip_hi)` (natural padded x range).
type Run = (u32, u32, u32);

/// Union-find state of one slab (ids local to it), kept between rebuilds.
#[derive(Default)]
struct Slab {
    /// Union-find parents of the runs.
    parent: Vec<u32>,
    /// Whether a run has a Dirichlet term.
    dirichlet: Vec<bool>,
    /// The runs.
    runs: Vec<Run>,
}

/// Singular regions of level 0, as row runs of unknowns.
#[derive(Default)]
pub(crate) struct Regions {
    /// Per singular region, its runs.
    singular: Vec<Vec<Run>>,
    /// Per singular region, its number of cells.
    size: Vec<usize>,
    /// Run label of each natural cell, local to its slab (valid on unknowns during a pass).
    label: Vec<u32>,
    /// Per-slab state.
    slabs: Vec<Slab>,
    /// Global union-find parents (slab ids shifted by the slab's offset).
    parent: Vec<u32>,
    /// Whether a run (after the pass: a run's region, on roots) has a Dirichlet term.
    dirichlet: Vec<bool>,
}

fn find(parent: &mut [u32], mut a: u32) -> u32 {
    while parent[a as usize] != a {
        let g = parent[parent[a as usize] as usize];
        parent[a as usize] = g;
        a = g;
    }
    a
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// Labels the runs of padded rows `rows` (whose labels are `label`, starting at natural index
/// `start`) into `slab`. Couplings to cells before `start` are left to the merge.
fn label_slab(level: &Level, rows: std::ops::Range<usize>, label: &mut [u32], slab: &mut Slab) {
    let pi = level.pdims[0];
    let start = rows.start * pi;
    let (sy, sz) = (level.stride[1], level.stride[2]);
    let axes = if level.three_d() { 3 } else { 2 };
    slab.parent.clear();
    slab.dirichlet.clear();
    slab.runs.clear();
    for pr in rows {
        if level.row_jk(pr).is_none() {
            continue;
        }
        let base = pr * pi;
        let mut ip = 1;
        while ip + 1 < pi {
            let c = base + ip;
            if !level.is_unknown(c) {
                ip += 1;
                continue;
            }
            let id = slab.parent.len() as u32;
            slab.parent.push(id);
            slab.dirichlet.push(false);
            let lo = ip;
            // Run labels below (y) and behind (z) already joined to this run.
            let mut joined = [u32::MAX; 3];
            loop {
                let c = base + ip;
                label[c - start] = id;
                if level.excess[c] > 0.0 {
                    slab.dirichlet[id as usize] = true;
                }
                for (a, s) in [(1, sy), (2, sz)].into_iter().take(axes - 1) {
                    // Couplings join unknowns only.
                    if c < start + s || level.off[c - s][a] == 0.0 {
                        continue;
                    }
                    let other = label[c - s - start];
                    if other != joined[a] {
                        joined[a] = other;
                        union(&mut slab.parent, id, other);
                    }
                }
                ip += 1;
                if !(ip + 1 < pi && level.off[c][0] != 0.0) {
                    break;
                }
            }
            slab.runs.push((pr as u32, lo as u32, ip as u32));
        }
    }
}

impl Regions {
    /// Labels the regions of `level`'s unknowns (natural arrays; couplings `off` join two
    /// unknowns only).
    pub fn find(&mut self, level: &Level) {
        let pi = level.pdims[0];
        self.label.resize(level.len(), u32::MAX);
        self.singular.clear();
        self.size.clear();
        // Slabs of whole planes (3D) or rows (2D).
        let plane = if level.three_d() { level.pdims[1] } else { 1 };
        let planes = level.rows() / plane;
        let count = rayon::current_num_threads().clamp(1, 8).min(planes.max(1));
        let cut = |s: usize| (planes * s / count) * plane;
        self.slabs.resize_with(count, Slab::default);
        let mut labels: Vec<&mut [u32]> = Vec::with_capacity(count);
        let mut rest: &mut [u32] = &mut self.label;
        for s in 0..count {
            let (head, tail) = rest.split_at_mut((cut(s + 1) - cut(s)) * pi);
            labels.push(head);
            rest = tail;
        }
        labels
            .into_par_iter()
            .zip(self.slabs.par_iter_mut())
            .enumerate()
            .for_each(|(s, (label, slab))| label_slab(level, cut(s)..cut(s + 1), label, slab));
        // Global ids: each slab's shifted by the runs before it.
        self.parent.clear();
        self.dirichlet.clear();
        let mut offsets = Vec::with_capacity(count);
        for slab in &self.slabs {
            let off = self.parent.len() as u32;
            offsets.push(off);
            self.parent.extend(slab.parent.iter().map(|&p| p + off));
            self.dirichlet.extend_from_slice(&slab.dirichlet);
        }
        // Join across the cuts: a slab's first plane to the previous slab's last one.
        let (axis, stride) = if level.three_d() {
            (2, level.stride[2])
        } else {
            (1, level.stride[1])
        };
        for s in 1..count {
            for c in cut(s) * pi..(cut(s) + plane) * pi {
                if c >= stride && level.off[c - stride][axis] != 0.0 {
                    let a = self.label[c] + offsets[s];
                    let b = self.label[c - stride] + offsets[s - 1];
                    union(&mut self.parent, a, b);
                }
            }
        }
        // A region has a Dirichlet term if any of its runs has; roots without are singular.
        for id in 0..self.parent.len() as u32 {
            let root = find(&mut self.parent, id);
            if self.dirichlet[id as usize] {
                self.dirichlet[root as usize] = true;
            }
        }
        let mut slot: Vec<u32> = Vec::new();
        let runs = self.slabs.iter().flat_map(|s| s.runs.iter().copied());
        for (id, run) in (0..self.parent.len() as u32).zip(runs) {
            let root = find(&mut self.parent, id);
            if self.dirichlet[root as usize] {
                continue;
            }
            if slot.is_empty() {
                slot = vec![u32::MAX; self.parent.len()];
            }
            if slot[root as usize] == u32::MAX {
                slot[root as usize] = self.singular.len() as u32;
                self.singular.push(Vec::new());
                self.size.push(0);
            }
            let s = slot[root as usize] as usize;
            self.singular[s].push(run);
            self.size[s] += (run.2 - run.1) as usize;
        }
    }

    /// Whether any region is singular.
    pub fn any_singular(&self) -> bool {
        !self.singular.is_empty()
    }

    /// Subtracts, on each singular region, the mean of the colour-split vector `v` of `level`.
    pub fn remove_mean<T: Copy + Into<f64> + FromF64>(&self, level: &Level, v: &mut [Vec<T>; 2]) {
        let half = level.half;
        let idx = |pr: u32, ip: u32| {
            let q = level.row_parity(pr as usize);
            (
                (ip as usize + q) & 1,
                pr as usize * half + (ip as usize >> 1),
            )
        };
        for (runs, &size) in self.singular.iter().zip(&self.size) {
            let mut sum = 0.0f64;
            for &(pr, lo, hi) in runs {
                for ip in lo..hi {
                    let (c, i) = idx(pr, ip);
                    sum += v[c][i].into();
                }
            }
            let mean = sum / size as f64;
            for &(pr, lo, hi) in runs {
                for ip in lo..hi {
                    let (c, i) = idx(pr, ip);
                    v[c][i] = T::from_f64(v[c][i].into() - mean);
                }
            }
        }
    }
}

/// Conversion back from f64 for [`Regions::remove_mean`].
pub(crate) trait FromF64 {
    fn from_f64(v: f64) -> Self;
}

impl FromF64 for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl FromF64 for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
