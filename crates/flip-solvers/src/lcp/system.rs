//! The fine-level system of an LCP solve: unknowns (fluid cells, numbered by colour), the
//! matrix in CSR form, the set S, and the pure-Neumann regions whose right-hand side is
//! projected onto the range (Lai et al. eq. 3.11 with `b = -rhs`).

use super::csr::{colour_order, inverse, Csr};
use crate::neumann::Regions;
use crate::stencil::Stencil;
use flip_plugin::abi::{CELL_FLUID, CELL_SOLID};
use flip_plugin::sdk::Problem;
use std::ops::Range;

/// Marker for "no unknown here".
pub(crate) const NONE: u32 = u32::MAX;

/// One grid level: geometry, unknowns, matrix and the LCP set.
#[derive(Clone, Debug)]
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
    /// Matrix rows (with the diagonal), over unknowns.
    pub a: Csr,
    /// Diagonal of `a`.
    pub diag: Vec<f64>,
    /// Unknowns are numbered colour by colour; the range of each colour.
    pub colours: Vec<Range<usize>>,
    /// Whether each unknown is in S (complementarity row).
    pub s: Vec<bool>,
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
    pub fn lower(&self) -> Vec<f64> {
        self.s
            .iter()
            .map(|&s| if s { 0.0 } else { f64::NEG_INFINITY })
            .collect()
    }

    /// Builds a level from unknowns listed in grid order (`cells`), their matrix rows (columns
    /// in the same grid-order numbering) and S flags; renumbers the unknowns by colour.
    /// Returns the level and the permutation `new → grid-order index`.
    pub fn assemble(
        dims: [usize; 3],
        dimension: usize,
        kind: Vec<u8>,
        cells: Vec<u32>,
        a: Csr,
        s: Vec<bool>,
    ) -> (Self, Vec<u32>) {
        let (order, colours) = colour_order(&a);
        let inv = inverse(&order);
        let a = a.permute(&order, &inv);
        let cell: Vec<u32> = order.iter().map(|&o| cells[o as usize]).collect();
        let s: Vec<bool> = order.iter().map(|&o| s[o as usize]).collect();
        let mut unknown = vec![NONE; kind.len()];
        for (u, &c) in cell.iter().enumerate() {
            unknown[c as usize] = u as u32;
        }
        let diag = a.diagonal();
        let level = Self {
            dims,
            dimension,
            kind,
            unknown,
            cell,
            a,
            diag,
            colours,
            s,
        };
        (level, order)
    }
}

/// Cell-to-unknown mapping and singular regions of the fine system of a problem.
#[derive(Clone, Debug)]
pub(crate) struct FineSystem {
    /// Unknown → grid cell (same numbering as the fine [`Level`]).
    pub cell: Vec<u32>,
    /// Per unknown: index of its singular, linearly solved region (for mean removal), or NONE.
    region: Vec<u32>,
    /// Size of each such region.
    region_size: Vec<usize>,
}

impl FineSystem {
    /// Builds the fine level of `p` and its mapping.
    pub fn new(p: &Problem<'_>) -> (Self, Level) {
        let stencil = Stencil::of(p);
        let n = p.cell_count();
        let strides = stencil.strides();
        let cells: Vec<u32> = (0..n as u32)
            .filter(|&c| p.cell_kind[c as usize] == CELL_FLUID)
            .collect();
        let mut grid_to_u = vec![NONE; n];
        for (u, &c) in cells.iter().enumerate() {
            grid_to_u[c as usize] = u as u32;
        }
        let rows = cells
            .iter()
            .map(|&c| {
                let c = c as usize;
                let mut row = vec![(grid_to_u[c], p.diag[c] as f64)];
                for a in 0..3 {
                    let o = p.off[a][c];
                    if o != 0.0 && grid_to_u[c + strides[a]] != NONE {
                        row.push((grid_to_u[c + strides[a]], o as f64));
                    }
                    if c >= strides[a] {
                        let o = p.off[a][c - strides[a]];
                        if o != 0.0 && grid_to_u[c - strides[a]] != NONE {
                            row.push((grid_to_u[c - strides[a]], o as f64));
                        }
                    }
                }
                row
            })
            .collect();
        let a = Csr::from_rows(cells.len(), rows);
        let s: Vec<bool> = cells
            .iter()
            .map(|&c| p.lcp && p.complementarity[c as usize] != 0)
            .collect();
        let (level, _) = Level::assemble(p.dims, p.dimension, p.cell_kind.to_vec(), cells, a, s);
        // Pure-Neumann regions without complementarity rows are solved linearly: project rhs.
        let regions = Regions::find(&stencil);
        let mut has_s = vec![false; regions.singular.len()];
        for (u, &c) in level.cell.iter().enumerate() {
            if level.s[u] {
                has_s[regions.label[c as usize] as usize] = true;
            }
        }
        let mut map = vec![NONE; regions.singular.len()];
        let mut region_size = Vec::new();
        for (r, (&sing, &hs)) in regions.singular.iter().zip(&has_s).enumerate() {
            if sing && !hs {
                map[r] = region_size.len() as u32;
                region_size.push(regions.size[r]);
            }
        }
        let region: Vec<u32> = level
            .cell
            .iter()
            .map(|&c| map[regions.label[c as usize] as usize])
            .collect();
        let sys = Self {
            cell: level.cell.clone(),
            region,
            region_size,
        };
        (sys, level)
    }

    /// The right-hand side over unknowns, projected onto the range on singular regions.
    pub fn rhs(&self, p: &Problem<'_>) -> Vec<f64> {
        let mut rhs = self.gather(p.rhs);
        self.remove_mean(&mut rhs);
        rhs
    }

    /// Subtracts the mean over each singular, linearly solved region.
    pub fn remove_mean(&self, v: &mut [f64]) {
        if self.region_size.is_empty() {
            return;
        }
        let mut sum = vec![0.0; self.region_size.len()];
        for (u, &r) in self.region.iter().enumerate() {
            if r != NONE {
                sum[r as usize] += v[u];
            }
        }
        for (u, &r) in self.region.iter().enumerate() {
            if r != NONE {
                v[u] -= sum[r as usize] / self.region_size[r as usize] as f64;
            }
        }
    }

    /// Grid values at the unknowns.
    pub fn gather(&self, grid: &[f64]) -> Vec<f64> {
        self.cell.iter().map(|&c| grid[c as usize]).collect()
    }

    /// Writes unknowns back to the grid; non-fluid cells get 0.
    pub fn scatter(&self, x: &[f64], grid: &mut [f64]) {
        grid.iter_mut().for_each(|g| *g = 0.0);
        for (u, &c) in self.cell.iter().enumerate() {
            grid[c as usize] = x[u];
        }
    }
}

/// Copy of everything a hierarchy depends on, to reuse it while the matrix and S stay the same.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatrixKey {
    dims: [usize; 3],
    lcp: bool,
    kind: Vec<u8>,
    diag: Vec<f32>,
    off: [Vec<f32>; 3],
    complementarity: Vec<u8>,
}

impl MatrixKey {
    /// The key of `p`.
    pub fn of(p: &Problem<'_>) -> Self {
        Self {
            dims: p.dims,
            lcp: p.lcp,
            kind: p.cell_kind.to_vec(),
            diag: p.diag.to_vec(),
            off: [p.off[0].to_vec(), p.off[1].to_vec(), p.off[2].to_vec()],
            complementarity: p.complementarity.to_vec(),
        }
    }
}

/// A value built from a problem's matrix, rebuilt only when the matrix or S change.
pub(crate) struct Cached<T> {
    entry: Option<(MatrixKey, FineSystem, T)>,
}

impl<T> Default for Cached<T> {
    fn default() -> Self {
        Self { entry: None }
    }
}

impl<T> Cached<T> {
    /// The fine system and the value for `p`, building them with `build` when needed.
    pub fn get(&mut self, p: &Problem<'_>, build: impl FnOnce(Level) -> T) -> (&FineSystem, &T) {
        let key = MatrixKey::of(p);
        let stale = match &self.entry {
            Some(e) => e.0 != key,
            None => true,
        };
        if stale {
            let (sys, level) = FineSystem::new(p);
            self.entry = Some((key, sys, build(level)));
        }
        let e = self.entry.as_ref().expect("just built");
        (&e.1, &e.2)
    }
}
