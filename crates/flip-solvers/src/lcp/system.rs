//! The fine-level system of an LCP solve: unknowns (fluid cells, red then black), the matrix,
//! the set S, and the pure-Neumann regions whose right-hand side is projected onto the range
//! (Lai et al. eq. 3.11 with `b = -rhs`). Rebuilt in place, reusing the previous solve's
//! buffers, and only when the matrix or S changed.

use super::fine;
use super::grid::GridLevel;
use super::level::Scratch;
pub(crate) use super::level::{Level, NONE};
use super::matrix::{LevelMatrix, Rows};
use flip_sdk::regions::{Couplings, Regions};
use flip_sdk::Problem;

/// Cell-to-unknown mapping, grid-layout view and singular regions of the fine system.
#[derive(Clone, Debug, Default)]
pub(crate) struct FineSystem {
    /// Unknown → grid cell (same numbering as the fine [`Level`]).
    pub cell: Vec<u32>,
    /// The fine level in grid layout.
    pub grid: GridLevel,
    /// Per unknown: index of its singular, linearly solved region (for mean removal), or NONE.
    region: Vec<u32>,
    /// Size of each such region.
    region_size: Vec<usize>,
    /// Connected regions (scratch).
    regions: Regions,
    /// Per unknown: the row has a Dirichlet term (scratch).
    dirichlet: Vec<bool>,
}

impl FineSystem {
    /// Builds the fine level of `p` into `level` (reusing its buffers) and the mapping: red-black
    /// ordered with the grid-layout view, or greedily coloured without it (`red_black` false).
    pub fn build(
        &mut self,
        p: &Problem<'_>,
        level: &mut Level,
        red_black: bool,
        scratch: &mut Scratch,
    ) {
        if red_black {
            fine::build(p, level, &mut self.grid, &mut self.dirichlet);
        } else {
            self.grid = GridLevel::default();
            fine::build_greedy(p, level, &mut self.dirichlet, scratch);
        }
        super::faces::fine_open(p, level);
        let n = level.len();
        // Pure-Neumann regions without complementarity rows are solved linearly: project rhs.
        let regions = &mut self.regions;
        regions.find(&CompactRows {
            a: &level.a,
            dirichlet: &self.dirichlet[..n],
        });
        let mut has_s = vec![false; regions.singular.len()];
        for (&l, &s) in regions.label.iter().zip(&level.s) {
            has_s[l as usize] |= s;
        }
        let mut map = vec![NONE; regions.singular.len()];
        self.region_size.clear();
        for (r, (&sing, &hs)) in regions.singular.iter().zip(&has_s).enumerate() {
            if sing && !hs {
                map[r] = self.region_size.len() as u32;
                self.region_size.push(regions.size[r]);
            }
        }
        self.region.clear();
        self.region
            .extend(regions.label.iter().map(|&l| map[l as usize]));
        self.cell.clone_from(&level.cell);
    }

    /// The right-hand side over unknowns, projected onto the range on singular regions.
    pub fn rhs_into(&self, p: &Problem<'_>, out: &mut Vec<f64>) {
        self.gather_into(p.rhs, out);
        self.remove_mean(out);
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
    pub fn gather_into(&self, grid: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.cell.iter().map(|&c| grid[c as usize]));
    }

    /// Writes unknowns back to the grid; non-fluid cells get 0.
    pub fn scatter(&self, x: &[f64], grid: &mut [f64]) {
        grid.iter_mut().for_each(|g| *g = 0.0);
        for (u, &c) in self.cell.iter().enumerate() {
            grid[c as usize] = x[u];
        }
    }
}

/// The fine system's rows as the region finder's coupling graph: every unknown, coupled to the
/// columns of its row (a symmetric pattern), Dirichlet where the fine level says so.
struct CompactRows<'a> {
    a: &'a LevelMatrix,
    dirichlet: &'a [bool],
}

impl Couplings for CompactRows<'_> {
    fn len(&self) -> usize {
        self.dirichlet.len()
    }
    fn unknown(&self, _: usize) -> bool {
        true
    }
    fn dirichlet(&self, u: usize) -> bool {
        self.dirichlet[u]
    }
    fn coupled_to_next(&self, _: usize) -> bool {
        false
    }
    fn earlier(&self, u: usize, mut f: impl FnMut(usize)) {
        self.a.for_row(u, |j, _| {
            if (j as usize) < u {
                f(j as usize);
            }
        });
    }
}
