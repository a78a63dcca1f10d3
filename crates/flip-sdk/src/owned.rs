//! A pressure problem that owns its arrays: what a host assembles into, what solver tests and
//! benchmarks build, and what a dump file holds. [`OwnedProblem::view`] lends it as a
//! [`Problem`].

use super::{stencil, Array, Problem};
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};

/// Owned arrays of a pressure problem (meaning of every field: `abi::PressureProblem`). The
/// inputs are [`Array`]s, which a host may back with memory its solver reads directly; the
/// solution is a plain `Vec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedProblem {
    /// Cells per axis (`[ni, nj, 1]` in 2D).
    pub dims: [usize; 3],
    /// 2 or 3.
    pub dimension: usize,
    /// Cell size (m).
    pub dx: f64,
    /// Solve the LCP on `complementarity` cells.
    pub lcp: bool,
    /// Step index.
    pub step: u64,
    /// `CELL_*`.
    pub cell_kind: Array<u8>,
    /// Diagonal.
    pub diag: Array<f32>,
    /// +x, +y, +z couplings.
    pub off: [Array<f32>; 3],
    /// Right-hand side.
    pub rhs: Array<f64>,
    /// Liquid signed distance.
    pub liquid_phi: Array<f32>,
    /// Solid signed distance.
    pub solid_phi: Array<f32>,
    /// Set S.
    pub complementarity: Array<u8>,
    /// Open fraction of the face to the +x, +y, +z neighbour.
    pub face_open: [Array<f32>; 3],
    /// Solution / initial guess.
    pub pressure: Vec<f64>,
}

impl OwnedProblem {
    /// A problem with every cell air and zero arrays.
    pub fn empty(dims: [usize; 3], dx: f64) -> Self {
        let n = dims[0] * dims[1] * dims[2];
        Self {
            dims,
            dimension: if dims[2] == 1 { 2 } else { 3 },
            dx,
            cell_kind: vec![CELL_AIR; n].into(),
            diag: vec![0.0; n].into(),
            off: [(); 3].map(|()| vec![0.0; n].into()),
            rhs: vec![0.0; n].into(),
            liquid_phi: vec![0.0; n].into(),
            solid_phi: vec![1.0; n].into(),
            complementarity: vec![0; n].into(),
            face_open: [(); 3].map(|()| vec![1.0; n].into()),
            pressure: vec![0.0; n],
            ..Self::default()
        }
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.cell_kind.len()
    }

    /// Linear index of `(i, j, k)`.
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Closes every face to a solid cell or to the outside of the grid and opens every other
    /// face (the voxelized boundary), so [`Self::assemble_matrix`] gives the unit stencil.
    pub fn open_faces_from_kinds(&mut self) {
        let [ni, nj, nk] = self.dims;
        let strides = [1, ni, ni * nj];
        for a in 0..3 {
            self.face_open[a].resize(self.cell_kind.len(), 0.0);
            for c in 0..self.cell_kind.len() {
                let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
                let inside = a < self.dimension && pos[a] + 1 < [ni, nj, nk][a];
                let open = inside
                    && self.cell_kind[c] != CELL_SOLID
                    && self.cell_kind[c + strides[a]] != CELL_SOLID;
                self.face_open[a][c] = if open { 1.0 } else { 0.0 };
            }
        }
    }

    /// Builds the voxelized unit-coefficient 5/7-point matrix from `cell_kind` (air =
    /// Dirichlet at the air cell centre, solid and outside the grid = Neumann), with
    /// `face_open` set to match. Leaves `rhs` alone.
    pub fn assemble_matrix(&mut self) {
        self.open_faces_from_kinds();
        self.assemble_weighted(false);
    }

    /// Builds the variational ghost-fluid matrix from `cell_kind`, `face_open` and `liquid_phi`
    /// by the shared stencil rule ([`super::stencil`]). Leaves `rhs` alone.
    pub fn assemble_variational(&mut self) {
        self.assemble_weighted(true);
    }

    /// A face of open fraction `w` between two fluid cells couples them by `-w`; a face to an
    /// air cell adds `w/θ` to the diagonal (`w` without `ghost_fluid`); faces to solids add
    /// nothing.
    fn assemble_weighted(&mut self, ghost_fluid: bool) {
        let [ni, nj, nk] = self.dims;
        let strides = [1, ni, ni * nj];
        for c in 0..self.cell_count() {
            self.diag[c] = 0.0;
            for a in 0..3 {
                self.off[a][c] = 0.0;
            }
            if self.cell_kind[c] != CELL_FLUID {
                continue;
            }
            let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
            for a in 0..self.dimension {
                for dir in [-1isize, 1] {
                    let q = pos[a] as isize + dir;
                    if q < 0 || q as usize >= [ni, nj, nk][a] {
                        continue;
                    }
                    let nb = (c as isize + dir * strides[a] as isize) as usize;
                    let w = self.face_open[a][if dir == 1 { c } else { nb }];
                    match self.cell_kind[nb] {
                        CELL_SOLID => {}
                        CELL_FLUID => {
                            self.diag[c] += w;
                            if dir == 1 {
                                self.off[a][c] = -w;
                            }
                        }
                        _ if ghost_fluid => {
                            let (pi, po) = (self.liquid_phi[c], self.liquid_phi[nb]);
                            self.diag[c] += stencil::dirichlet_weight(w, pi, po);
                        }
                        _ => self.diag[c] += w,
                    }
                }
            }
        }
    }

    /// The SDK view of this problem (what a plugin receives).
    pub fn view(&mut self) -> Problem<'_> {
        Problem {
            dims: self.dims,
            dimension: self.dimension,
            dx: self.dx,
            lcp: self.lcp,
            step: self.step,
            cell_kind: &self.cell_kind,
            diag: &self.diag,
            off: [&self.off[0], &self.off[1], &self.off[2]],
            rhs: &self.rhs,
            liquid_phi: &self.liquid_phi,
            solid_phi: &self.solid_phi,
            complementarity: &self.complementarity,
            face_open: [&self.face_open[0], &self.face_open[1], &self.face_open[2]],
            pressure: &mut self.pressure,
        }
    }

    /// Copies a view (for solvers that build modified systems).
    pub fn from_view(p: &Problem<'_>) -> Self {
        Self {
            dims: p.dims,
            dimension: p.dimension,
            dx: p.dx,
            lcp: p.lcp,
            step: p.step,
            cell_kind: p.cell_kind.into(),
            diag: p.diag.into(),
            off: p.off.map(Array::from),
            rhs: p.rhs.into(),
            liquid_phi: p.liquid_phi.into(),
            solid_phi: p.solid_phi.into(),
            complementarity: p.complementarity.into(),
            face_open: p.face_open.map(Array::from),
            pressure: p.pressure.to_vec(),
        }
    }

    /// This rank's slab of a global problem (`layout`: `abi::distributed`'s contract): the
    /// owned layers and the ghost layers around them, with the coupling out of the top local
    /// layer cleared (its neighbour is not held).
    pub fn slab(&self, layout: &flip_abi::SlabLayout) -> Self {
        let layer = layout.layer_len();
        let lo = (layout.first - layout.ghost_lo) as usize * layer;
        let range = lo..lo + layout.local_layers() * layer;
        let cut = |v: &[f32]| Array::from(&v[range.clone()]);
        let mut out = Self {
            dims: layout.local_dims(),
            cell_kind: self.cell_kind[range.clone()].into(),
            diag: cut(&self.diag),
            off: [cut(&self.off[0]), cut(&self.off[1]), cut(&self.off[2])],
            rhs: self.rhs[range.clone()].into(),
            liquid_phi: cut(&self.liquid_phi),
            solid_phi: cut(&self.solid_phi),
            complementarity: self.complementarity[range.clone()].into(),
            face_open: [
                cut(&self.face_open[0]),
                cut(&self.face_open[1]),
                cut(&self.face_open[2]),
            ],
            pressure: self.pressure[range.clone()].to_vec(),
            ..self.clone_header()
        };
        let n = out.cell_count();
        let axis = layout.axis as usize;
        out.off[axis][n - layer..].fill(0.0);
        out
    }

    /// The scalar fields only (dimensions of the grid, arrays empty).
    fn clone_header(&self) -> Self {
        Self {
            dims: self.dims,
            dimension: self.dimension,
            dx: self.dx,
            lcp: self.lcp,
            step: self.step,
            ..Self::default()
        }
    }
}
