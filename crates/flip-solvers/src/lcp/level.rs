//! One grid level of the LCP hierarchy: geometry, unknowns numbered colour by colour, matrix
//! and the set S. Levels are rebuilt in place, keeping their buffers between solves.

use super::matrix::{LevelMatrix, Rows};
use flip_abi::CELL_SOLID;
use std::ops::Range;

/// Marker for "no unknown here".
pub(crate) const NONE: u32 = u32::MAX;

/// Buffers reused while building levels.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// Colour order: new → grid-order unknown.
    pub order: Vec<u32>,
    /// Its inverse.
    pub inv: Vec<u32>,
}

/// One grid level: geometry, unknowns, matrix and the LCP set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Level {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// 2 or 3.
    pub dimension: usize,
    /// `CELL_*` per grid cell at this level (fluid ⇔ unknown).
    pub kind: Vec<u8>,
    /// Grid cell → unknown ([`NONE`] for non-fluid cells).
    pub unknown: Vec<u32>,
    /// Unknown → grid cell.
    pub cell: Vec<u32>,
    /// Unknown → grid coordinates.
    pub ijk: Vec<[u32; 3]>,
    /// Matrix rows over unknowns.
    pub a: LevelMatrix,
    /// Diagonal of `a`.
    pub diag: Vec<f64>,
    /// Unknowns are numbered colour by colour; the range of each colour.
    pub colours: Vec<Range<usize>>,
    /// Whether each unknown is in S (complementarity row).
    pub s: Vec<bool>,
    /// Open fraction of each grid cell's face towards `+x`, `+y`, `+z` (`faces`).
    pub open: [Vec<f32>; 3],
}

impl Level {
    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.cell.len()
    }

    /// Grid coordinates of `cell`.
    pub fn coords(&self, cell: usize) -> [usize; 3] {
        let [ni, nj, _] = self.dims;
        [cell % ni, (cell / ni) % nj, cell / (ni * nj)]
    }

    /// Linear index of grid coordinates, `None` when outside the grid.
    pub fn index(&self, c: [isize; 3]) -> Option<usize> {
        let inside = (0..3).all(|a| c[a] >= 0 && (c[a] as usize) < self.dims[a]);
        inside
            .then(|| c[0] as usize + self.dims[0] * (c[1] as usize + self.dims[1] * c[2] as usize))
    }

    /// Whether the grid cell at `c` is solid (outside the grid counts as solid).
    pub fn solid_at(&self, c: [isize; 3]) -> bool {
        match self.index(c) {
            Some(i) => self.kind[i] == CELL_SOLID,
            None => true,
        }
    }

    /// Lower bounds of the fine LCP: 0 on S, −∞ elsewhere.
    pub fn lower_into(&self, out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.s
                .iter()
                .map(|&s| if s { 0.0 } else { f64::NEG_INFINITY }),
        );
    }

    /// Sets the level from unknowns listed in grid order (`cells`), their matrix rows (columns
    /// in the same grid-order numbering) and S flags, renumbering the unknowns by colour.
    /// Leaves the permutation `new → grid-order index` in `scratch.order`, its inverse in
    /// `scratch.inv`.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        dims: [usize; 3],
        dimension: usize,
        kind: &[u8],
        cells: &[u32],
        a: &impl Rows,
        s: &[bool],
        scratch: &mut Scratch,
    ) {
        let n = cells.len();
        colour_order(n, a, &mut scratch.order, &mut self.colours);
        inverse_into(&scratch.order, &mut scratch.inv);
        let order = &scratch.order;
        self.a.permuted_from(a, order, &scratch.inv, &mut self.diag);
        self.dims = dims;
        self.dimension = dimension;
        self.kind.clear();
        self.kind.extend_from_slice(kind);
        self.cell.clear();
        self.cell.extend(order.iter().map(|&o| cells[o as usize]));
        self.ijk.clear();
        let [ni, nj, _] = dims.map(|d| d as u32);
        self.ijk.extend(
            self.cell
                .iter()
                .map(|&c| [c % ni, (c / ni) % nj, c / (ni * nj)]),
        );
        self.s.clear();
        self.s.extend(order.iter().map(|&o| s[o as usize]));
        self.unknown.clear();
        self.unknown.resize(kind.len(), NONE);
        for (u, &c) in self.cell.iter().enumerate() {
            self.unknown[c as usize] = u as u32;
        }
    }
}

/// Greedy multicolouring in index order: no two coupled unknowns share a colour, so each colour
/// class can be relaxed in parallel (red-black on a 5/7-point stencil, a few more colours on
/// the wider Galerkin stencils). Row `i` of `a` lists the unknowns coupled to `i` (`i` itself
/// may be listed). Writes `order` (unknowns sorted by colour, index order within a colour) and
/// the range of each colour in that order.
pub(crate) fn colour_order(
    n: usize,
    a: &impl Rows,
    order: &mut Vec<u32>,
    ranges: &mut Vec<std::ops::Range<usize>>,
) {
    let mut colour = vec![u32::MAX; n];
    let mut count: Vec<usize> = Vec::new();
    let mut used: Vec<bool> = Vec::new();
    for i in 0..n {
        used.iter_mut().for_each(|u| *u = false);
        a.for_row(i, |j, _| {
            let c = colour[j as usize];
            if c != u32::MAX {
                used[c as usize] = true;
            }
        });
        let c = used.iter().position(|u| !u).unwrap_or(used.len());
        if c == used.len() {
            used.push(false);
            count.push(0);
        }
        colour[i] = c as u32;
        count[c] += 1;
    }
    ranges.clear();
    let mut next = Vec::with_capacity(count.len());
    let mut start = 0;
    for &len in &count {
        ranges.push(start..start + len);
        next.push(start);
        start += len;
    }
    order.clear();
    order.resize(n, 0);
    for (i, &c) in colour.iter().enumerate() {
        order[next[c as usize]] = i as u32;
        next[c as usize] += 1;
    }
}

/// Inverse of a permutation given as `new → old`.
pub(crate) fn inverse_into(order: &[u32], inv: &mut Vec<u32>) {
    inv.clear();
    inv.resize(order.len(), 0);
    for (new, &old) in order.iter().enumerate() {
        inv[old as usize] = new as u32;
    }
}
