//! The tall-cell problem kind (`abi::TallCellProblem`): a CSR system with the geometry of its
//! restricted tall-cell grid, as a safe view and in owned form.

use super::csr::{CsrError, CsrProblem, OwnedCsr};
use flip_abi as abi;

/// A geometry field that does not fit the contract (or the CSR part's error).
#[derive(Debug, thiserror::Error)]
pub enum TallCellError {
    /// The CSR part is broken.
    #[error(transparent)]
    Csr(#[from] CsrError),
    /// A required array pointer is null.
    #[error("array `{0}` is null")]
    Null(&'static str),
    /// An array has the wrong length.
    #[error("array `{0}` has {1} entries, expected {2}")]
    Length(&'static str, usize, usize),
    /// A size or value is out of range.
    #[error("{0}")]
    Bad(String),
}

/// The grid of a tall-cell problem, borrowed (meaning of every field: `abi::TallCellProblem`).
#[derive(Clone, Copy, Debug)]
pub struct TallGeometry<'a> {
    /// 2 or 3.
    pub dimension: usize,
    /// Columns along x and z (`[nx, 1]` in 2D).
    pub columns: [usize; 2],
    /// Regular cells per column.
    pub regular: usize,
    /// Domain height in cells.
    pub height: usize,
    /// Cell size (m).
    pub dx: f64,
    /// Terrain per column (cells).
    pub terrain: &'a [u32],
    /// Tall-cell height per column (cells, ≥ 2).
    pub tall: &'a [u32],
    /// Solid top of the x faces and the z faces (empty in 2D), in cells.
    pub face_top: [&'a [f32]; 2],
    /// Level set per sample (m).
    pub phi: &'a [f32],
    /// Sample of each CSR row.
    pub row_sample: &'a [u32],
}

impl TallGeometry<'_> {
    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.columns[0] * self.columns[1]
    }

    /// Samples per column.
    pub fn slots(&self) -> usize {
        self.regular + 2
    }

    /// Checks sizes and values against a system of `rows` rows.
    ///
    /// # Errors
    /// [`TallCellError`] naming the first field that does not fit.
    pub fn validate(&self, rows: usize) -> Result<(), TallCellError> {
        let [nx, nz] = self.columns;
        if !(self.dimension == 3 || (self.dimension == 2 && nz == 1)) || nx == 0 || nz == 0 {
            return Err(TallCellError::Bad(format!(
                "columns {nx}×{nz} do not fit dimension {}",
                self.dimension
            )));
        }
        let n = self.column_count();
        let faces_z = if self.dimension == 3 {
            nx * (nz + 1)
        } else {
            0
        };
        let lens = [
            ("terrain", self.terrain.len(), n),
            ("tall", self.tall.len(), n),
            ("face_top_x", self.face_top[0].len(), (nx + 1) * nz),
            ("face_top_z", self.face_top[1].len(), faces_z),
            ("phi", self.phi.len(), n * self.slots()),
            ("row_sample", self.row_sample.len(), rows),
        ];
        for (name, len, want) in lens {
            if len != want {
                return Err(TallCellError::Length(name, len, want));
            }
        }
        if let Some(c) = self.tall.iter().position(|&t| t < 2) {
            return Err(TallCellError::Bad(format!(
                "column {c}: tall height {} is below 2",
                self.tall[c]
            )));
        }
        if !(self.dx.is_finite() && self.dx > 0.0) {
            return Err(TallCellError::Bad(format!(
                "dx {} is not positive",
                self.dx
            )));
        }
        let samples = self.phi.len() as u32;
        if let Some(r) = self.row_sample.iter().position(|&s| s >= samples) {
            return Err(TallCellError::Bad(format!(
                "row {r}: sample {} out of range",
                self.row_sample[r]
            )));
        }
        Ok(())
    }
}

/// A borrowed tall-cell problem: the system and its grid.
#[derive(Debug)]
pub struct TallCellProblem<'a> {
    /// The assembled system.
    pub csr: CsrProblem<'a>,
    /// Its grid.
    pub geometry: TallGeometry<'a>,
}

impl TallCellProblem<'_> {
    /// Checks the system and the geometry.
    ///
    /// # Errors
    /// [`TallCellError`] naming the first violation.
    pub fn validate(&self) -> Result<(), TallCellError> {
        self.csr.validate()?;
        self.geometry.validate(self.csr.rows())
    }

    /// Reconstructs the safe view of a C problem.
    ///
    /// # Safety
    /// As [`CsrProblem::from_abi`] for `raw.csr`; every geometry pointer is valid for the
    /// length `abi::TallCellProblem` documents for `'a`.
    ///
    /// # Errors
    /// [`TallCellError`] for null pointers or broken sizes.
    pub unsafe fn from_abi(
        raw: &abi::TallCellProblem,
    ) -> Result<TallCellProblem<'_>, TallCellError> {
        // SAFETY: the caller's contract.
        let csr = unsafe { CsrProblem::from_abi(&raw.csr) }?;
        let [nx, nz] = raw.columns.map(|c| c as usize);
        let n = nx * nz;
        let slots = raw.regular as usize + 2;
        macro_rules! slice {
            ($field:ident, $len:expr) => {{
                if raw.$field.is_null() {
                    return Err(TallCellError::Null(stringify!($field)));
                }
                // SAFETY: non-null, valid for `$len` elements (the caller's contract).
                unsafe { std::slice::from_raw_parts(raw.$field, $len) }
            }};
        }
        let face_z: &[f32] = if raw.dimension == 3 {
            slice!(face_top_z, nx * (nz + 1))
        } else {
            &[]
        };
        let geometry = TallGeometry {
            dimension: raw.dimension as usize,
            columns: [nx, nz],
            regular: raw.regular as usize,
            height: raw.height as usize,
            dx: raw.dx,
            terrain: slice!(terrain, n),
            tall: slice!(tall, n),
            face_top: [slice!(face_top_x, (nx + 1) * nz), face_z],
            phi: slice!(phi, n * slots),
            row_sample: slice!(row_sample, csr.rows()),
        };
        let view = TallCellProblem { csr, geometry };
        view.validate()?;
        Ok(view)
    }

    /// The C view the host hands to a plugin (borrows `self`'s arrays).
    pub fn to_abi(&mut self) -> abi::TallCellProblem {
        let g = self.geometry;
        abi::TallCellProblem {
            csr: self.csr.to_abi(),
            dimension: g.dimension as u32,
            columns: g.columns.map(|c| c as u32),
            regular: g.regular as u32,
            height: g.height as u32,
            reserved: 0,
            dx: g.dx,
            terrain: g.terrain.as_ptr(),
            tall: g.tall.as_ptr(),
            face_top_x: g.face_top[0].as_ptr(),
            face_top_z: if g.dimension == 3 {
                g.face_top[1].as_ptr()
            } else {
                std::ptr::null()
            },
            phi: g.phi.as_ptr(),
            row_sample: g.row_sample.as_ptr(),
        }
    }
}

/// The geometry of a tall-cell problem, owned (the host builds it beside its [`OwnedCsr`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedTallGeometry {
    /// See [`TallGeometry::dimension`].
    pub dimension: usize,
    /// See [`TallGeometry::columns`].
    pub columns: [usize; 2],
    /// See [`TallGeometry::regular`].
    pub regular: usize,
    /// See [`TallGeometry::height`].
    pub height: usize,
    /// See [`TallGeometry::dx`].
    pub dx: f64,
    /// See [`TallGeometry::terrain`].
    pub terrain: Vec<u32>,
    /// See [`TallGeometry::tall`].
    pub tall: Vec<u32>,
    /// See [`TallGeometry::face_top`].
    pub face_top: [Vec<f32>; 2],
    /// See [`TallGeometry::phi`].
    pub phi: Vec<f32>,
    /// See [`TallGeometry::row_sample`].
    pub row_sample: Vec<u32>,
}

impl OwnedTallGeometry {
    /// The borrowed geometry.
    pub fn view(&self) -> TallGeometry<'_> {
        TallGeometry {
            dimension: self.dimension,
            columns: self.columns,
            regular: self.regular,
            height: self.height,
            dx: self.dx,
            terrain: &self.terrain,
            tall: &self.tall,
            face_top: [&self.face_top[0], &self.face_top[1]],
            phi: &self.phi,
            row_sample: &self.row_sample,
        }
    }

    /// The problem of `csr` on this grid.
    pub fn problem<'a>(&'a self, csr: &'a mut OwnedCsr) -> TallCellProblem<'a> {
        TallCellProblem {
            csr: csr.view(),
            geometry: self.view(),
        }
    }
}
