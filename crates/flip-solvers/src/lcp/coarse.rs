//! The multigrid hierarchy: coarse levels, their matrices (Galerkin `A^H = R A^h P` or direct
//! discretisation, Lai §4.3 / Table 12) and the transfer operators between them.

use super::cache::Coarsen;
use super::csr::Csr;
use super::ell::Ell;
use super::galerkin::{self, galerkin, WithDiag};
use super::level::Scratch;
use super::system::{Level, NONE};
use super::transfer::{
    children, coarse_grid, interpolation, Boundary, CoarseGrid, CoarseMatrix, Interpolation,
};
use flip_abi::{CELL_AIR, CELL_SOLID};

/// Options of a hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MgOptions {
    /// Interpolation (and, transposed, restriction).
    pub interpolation: Interpolation,
    /// Boundary handling of the interpolation.
    pub boundary: Boundary,
    /// Coarse matrices.
    pub coarse: CoarseMatrix,
}

/// Stop coarsening at or below this many unknowns.
const COARSEST_UNKNOWNS: usize = 64;
/// At most this many levels.
const MAX_LEVELS: usize = 16;

/// Levels `0` (finest) … `L−1` (coarsest) with `p[l]: level l+1 → l` and `r[l]: l → l+1`.
/// Kept by the solver between solves; a rebuild reuses every buffer.
pub(crate) struct Hierarchy {
    /// How the levels are built.
    pub opts: MgOptions,
    /// Whether the finest level is red-black ordered (see [`Coarsen::red_black`]).
    red_black: bool,
    /// The levels.
    pub levels: Vec<Level>,
    /// Interpolations.
    pub p: Vec<Ell>,
    /// Restrictions (`r[0]` empty: see `r0_grid`; apply them with [`Hierarchy::restrict`]).
    pub r: Vec<Csr>,
    /// The restriction of the finest level, rows in the grid order of level 1 (restricting in
    /// grid order reads the finest level's vectors far more locally than the colour order) …
    pub r0_grid: Csr,
    /// … and the colour order of level 1 (new → grid-order index).
    pub order1: Vec<u32>,
    /// Coarse geometry of the level being built.
    grid: CoarseGrid,
    /// Restriction (grid-order rows) and coarse matrix (grid order) being built.
    rt: Csr,
    ac: Csr,
    /// Buffers of the Galerkin products.
    scratch: galerkin::Scratch,
}

impl Hierarchy {
    /// An empty hierarchy (filled by [`Coarsen`] through the solver's cache).
    pub fn new(opts: MgOptions, red_black: bool) -> Self {
        Self {
            opts,
            red_black,
            levels: vec![Level::default()],
            p: Vec::new(),
            r: Vec::new(),
            r0_grid: Csr::default(),
            order1: Vec::new(),
            grid: CoarseGrid::default(),
            rt: Csr::default(),
            ac: Csr::default(),
            scratch: galerkin::Scratch::default(),
        }
    }

    /// `y = R x` from level `l` to level `l + 1`.
    pub fn restrict(&self, l: usize, x: &[f64], y: &mut [f64]) {
        if l > 0 {
            return self.r[l].mul(x, y);
        }
        let mut grid_order = vec![0.0; y.len()];
        self.r0_grid.mul(x, &mut grid_order);
        y.iter_mut()
            .zip(&self.order1)
            .for_each(|(y, &k)| *y = grid_order[k as usize]);
    }

    /// Restricts a fine vector to every level: `out[0] = v`, `out[l+1] = R out[l]`.
    pub fn restrict_all(&self, out: &mut [Vec<f64>]) {
        for l in 0..self.r.len() {
            let (fine, coarse) = out.split_at_mut(l + 1);
            self.restrict(l, &fine[l], &mut coarse[0]);
        }
    }
}

impl Coarsen for Hierarchy {
    fn fine_mut(&mut self) -> &mut Level {
        &mut self.levels[0]
    }

    fn red_black(&self) -> bool {
        self.red_black
    }

    /// Builds the levels below the fine one.
    fn coarsen(&mut self, scratch: &mut Scratch) {
        let opts = self.opts;
        // Direct discretisation: coarse couplings scale like h²/H² = ¼ per level relative to the
        // fine unit-coefficient stencil, consistent with R = Pᵀ/2^d (R A P ≈ A/4 per level).
        let mut scale = 1.0;
        let mut l = 0;
        loop {
            let fine = &self.levels[l];
            let active = (0..fine.dimension).all(|a| fine.dims[a] > 2);
            if fine.len() <= COARSEST_UNKNOWNS || !active || l + 1 >= MAX_LEVELS {
                break;
            }
            coarse_grid(fine, &mut self.grid);
            let grid = &self.grid;
            if grid.cells.is_empty() || grid.cells.len() == fine.len() {
                break;
            }
            if self.p.len() <= l {
                self.p.push(Ell::default());
                self.r.push(Csr::default());
            }
            if self.levels.len() <= l + 1 {
                self.levels.push(Level::default());
            }
            let (fines, coarses) = self.levels.split_at_mut(l + 1);
            let fine = &fines[l];
            interpolation(
                fine,
                grid,
                opts.interpolation,
                opts.boundary,
                &mut self.p[l],
            );
            let restrict = 1.0 / (1u32 << fine.dimension) as f64;
            self.p[l].transpose_into(restrict, &mut self.rt);
            scale *= 0.25;
            match opts.coarse {
                CoarseMatrix::Galerkin => {
                    let a = WithDiag {
                        a: &fine.a,
                        diag: &fine.diag,
                    };
                    galerkin(&self.rt, a, &self.p[l], &mut self.scratch, &mut self.ac)
                }
                CoarseMatrix::DirectDiscretisation => self.ac = direct(fine, grid, scale),
            }
            let dim = fine.dimension;
            coarses[0].assemble(
                grid.dims,
                dim,
                &grid.kind,
                &grid.cells,
                &self.ac,
                &grid.s,
                scratch,
            );
            super::faces::coarse_open(fine, &mut coarses[0]);
            self.p[l].map_columns(&scratch.inv);
            if l == 0 {
                std::mem::swap(&mut self.rt, &mut self.r0_grid);
                self.order1.clone_from(&scratch.order);
            } else {
                self.rt.permute_into(&scratch.order, None, &mut self.r[l]);
            }
            l += 1;
        }
        self.levels.truncate(l + 1);
        self.p.truncate(l);
        self.r.truncate(l);
    }
}

/// Direct discretisation on the coarse grid: each coarse face couples with `scale` times the
/// fraction of open fine faces across it (both fine cells non-solid); faces to coarse air cells
/// are Dirichlet (diagonal only), faces to solid are Neumann.
fn direct(fine: &Level, grid: &CoarseGrid, scale: f64) -> Csr {
    let dim = fine.dimension;
    let dims = grid.dims;
    let strides = [1, dims[0], dims[0] * dims[1]];
    let rows = grid
        .cells
        .iter()
        .enumerate()
        .map(|(u, &c)| {
            let c = c as usize;
            let cc = [c % dims[0], (c / dims[0]) % dims[1], c / strides[2]];
            let mut row = vec![(u as u32, 0.0)];
            for a in 0..dim {
                for dir in [-1isize, 1] {
                    let q = cc[a] as isize + dir;
                    if q < 0 || q as usize >= dims[a] {
                        continue;
                    }
                    let nb = (c as isize + dir * strides[a] as isize) as usize;
                    if grid.kind[nb] == CELL_SOLID {
                        continue;
                    }
                    let phi = open_fraction(fine, cc, a, dir);
                    if phi == 0.0 {
                        continue;
                    }
                    let w = scale * phi;
                    row[0].1 += w;
                    if grid.index[nb] != NONE {
                        row.push((grid.index[nb], -w));
                    } else {
                        debug_assert_eq!(grid.kind[nb], CELL_AIR);
                    }
                }
            }
            row
        })
        .collect();
    Csr::from_rows(grid.cells.len(), rows)
}

/// Averaged open fraction (Chentanez & Müller) of the `2^{d−1}` fine faces across the face of
/// coarse cell `cc` on axis `a`, direction `dir`: the mean of their variational fractions.
fn open_fraction(fine: &Level, cc: [usize; 3], a: usize, dir: isize) -> f64 {
    let mut open = 0.0f64;
    for f in children(fine, cc) {
        let fc = fine.coords(f);
        let on_face = if dir > 0 {
            fc[a] == 2 * cc[a] + 1
        } else {
            fc[a] == 2 * cc[a]
        };
        if !on_face {
            continue;
        }
        let mut nb: [isize; 3] = fc.map(|x| x as isize);
        nb[a] += dir;
        if fine.kind[f] != CELL_SOLID && !fine.solid_at(nb) {
            open += f64::from(fine.open_face(fc.map(|x| x as isize), a, dir));
        }
    }
    open / (1usize << (fine.dimension - 1)) as f64
}
