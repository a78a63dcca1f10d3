//! The viscosity problem kind (`abi::ViscosityProblem`): the implicit viscosity system on the
//! face velocities with its MAC grid, as a safe view and in owned form.

use super::csr::{CsrError, CsrProblem, OwnedCsr};
use flip_abi as abi;

/// A grid field that does not fit the contract (or the CSR part's error).
#[derive(Debug, thiserror::Error)]
pub enum ViscosityError {
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

/// Entries of the face grid of `axis` (`dims + e_axis`).
pub fn face_count(dims: [usize; 3], axis: usize) -> usize {
    (0..3).map(|a| dims[a] + usize::from(a == axis)).product()
}

/// Entries of the grid of edges along `axis`: `dims + 1 − e_axis` in 3D; in 2D the nodes
/// (`axis = 2`) and none for the other axes.
pub fn edge_count(dims: [usize; 3], dimension: usize, axis: usize) -> usize {
    if dimension == 2 {
        return if axis == 2 {
            (dims[0] + 1) * (dims[1] + 1)
        } else {
            0
        };
    }
    (0..3).map(|a| dims[a] + usize::from(a != axis)).product()
}

/// The grid of a viscosity problem, borrowed (meaning of every field:
/// `abi::ViscosityProblem`). Arrays of axes a 2D problem lacks are empty.
#[derive(Clone, Copy, Debug)]
pub struct ViscosityGrid<'a> {
    /// 2 or 3.
    pub dimension: usize,
    /// Cells per axis.
    pub dims: [usize; 3],
    /// Cell size (m).
    pub dx: f64,
    /// Time step (s).
    pub dt: f64,
    /// Axis of each row's face.
    pub row_axis: &'a [u8],
    /// Index of each row's face in its axis's grid.
    pub row_face: &'a [u32],
    /// Row of every face per axis ([`abi::NO_ROW`]: known).
    pub face_row: [&'a [u32]; 3],
    /// Liquid fraction per face, per axis.
    pub face_weight: [&'a [f32]; 3],
    /// Liquid fraction per cell.
    pub cell_weight: &'a [f32],
    /// Kinematic viscosity per cell (m²/s).
    pub viscosity: &'a [f32],
    /// Liquid fraction per edge, per edge axis.
    pub edge_weight: [&'a [f32]; 3],
}

impl ViscosityGrid<'_> {
    /// Checks sizes and the row ↔ face maps against a system of `rows` rows.
    ///
    /// # Errors
    /// [`ViscosityError`] naming the first field that does not fit.
    pub fn validate(&self, rows: usize) -> Result<(), ViscosityError> {
        let d = self.dims;
        let dim = self.dimension;
        if !(dim == 3 || (dim == 2 && d[2] == 1)) || d.contains(&0) {
            return Err(ViscosityError::Bad(format!(
                "cells {d:?} do not fit dimension {dim}"
            )));
        }
        for (name, v) in [("dx", self.dx), ("dt", self.dt)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ViscosityError::Bad(format!("{name} {v} is not positive")));
            }
        }
        let cells = d.iter().product::<usize>();
        let axes = |a: usize| if a < dim { face_count(d, a) } else { 0 };
        let lens = [
            ("row_axis", self.row_axis.len(), rows),
            ("row_face", self.row_face.len(), rows),
            ("face_row_x", self.face_row[0].len(), axes(0)),
            ("face_row_y", self.face_row[1].len(), axes(1)),
            ("face_row_z", self.face_row[2].len(), axes(2)),
            ("face_weight_x", self.face_weight[0].len(), axes(0)),
            ("face_weight_y", self.face_weight[1].len(), axes(1)),
            ("face_weight_z", self.face_weight[2].len(), axes(2)),
            ("cell_weight", self.cell_weight.len(), cells),
            ("viscosity", self.viscosity.len(), cells),
            (
                "edge_weight_x",
                self.edge_weight[0].len(),
                edge_count(d, dim, 0),
            ),
            (
                "edge_weight_y",
                self.edge_weight[1].len(),
                edge_count(d, dim, 1),
            ),
            (
                "edge_weight_z",
                self.edge_weight[2].len(),
                edge_count(d, dim, 2),
            ),
        ];
        for (name, len, want) in lens {
            if len != want {
                return Err(ViscosityError::Length(name, len, want));
            }
        }
        for r in 0..rows {
            let a = self.row_axis[r] as usize;
            let f = self.row_face[r] as usize;
            if a >= dim || self.face_row[a].get(f) != Some(&(r as u32)) {
                return Err(ViscosityError::Bad(format!(
                    "row {r}: face {f} of axis {a} does not map back to it"
                )));
            }
        }
        let mapped: usize = (0..dim)
            .map(|a| {
                self.face_row[a]
                    .iter()
                    .filter(|&&r| r != abi::NO_ROW)
                    .count()
            })
            .sum();
        if mapped != rows {
            return Err(ViscosityError::Bad(format!(
                "{mapped} faces map to rows, the system has {rows}"
            )));
        }
        Ok(())
    }
}

/// A borrowed viscosity problem: the system and its grid.
#[derive(Debug)]
pub struct ViscosityProblem<'a> {
    /// The assembled system; its `pressure` holds the face velocities.
    pub csr: CsrProblem<'a>,
    /// Its grid.
    pub grid: ViscosityGrid<'a>,
}

impl ViscosityProblem<'_> {
    /// The unknown face velocities (m/s): the initial guess in, the solution out.
    pub fn velocity(&mut self) -> &mut [f64] {
        self.csr.pressure
    }

    /// Checks the system (symmetric, linear) and the grid.
    ///
    /// # Errors
    /// [`ViscosityError`] naming the first violation.
    pub fn validate(&self) -> Result<(), ViscosityError> {
        self.csr.validate()?;
        if !self.csr.symmetric || self.csr.lcp {
            return Err(ViscosityError::Bad(
                "the viscosity system is symmetric and linear".into(),
            ));
        }
        self.grid.validate(self.csr.rows())
    }

    /// Reconstructs the safe view of a C problem.
    ///
    /// # Safety
    /// As [`CsrProblem::from_abi`] for `raw.csr`; every grid pointer is valid for the length
    /// `abi::ViscosityProblem` documents for `'a` (null where it allows).
    ///
    /// # Errors
    /// [`ViscosityError`] for null pointers or broken sizes.
    pub unsafe fn from_abi(
        raw: &abi::ViscosityProblem,
    ) -> Result<ViscosityProblem<'_>, ViscosityError> {
        // SAFETY: the caller's contract.
        let csr = unsafe { CsrProblem::from_abi(&raw.csr) }?;
        let dims = raw.dims.map(|c| c as usize);
        let dim = raw.dimension as usize;
        if !(dim == 2 || dim == 3) {
            return Err(ViscosityError::Bad(format!("dimension {dim}")));
        }
        let rows = csr.rows();
        let cells = dims.iter().product::<usize>();
        fn slice<'r, T>(
            p: *const T,
            len: usize,
            name: &'static str,
        ) -> Result<&'r [T], ViscosityError> {
            if len == 0 {
                return Ok(&[]);
            }
            if p.is_null() {
                return Err(ViscosityError::Null(name));
            }
            // SAFETY: non-null, valid for `len` elements (the caller's contract).
            Ok(unsafe { std::slice::from_raw_parts(p, len) })
        }
        let faces = |a: usize| if a < dim { face_count(dims, a) } else { 0 };
        let edges = |a: usize| edge_count(dims, dim, a);
        let grid = ViscosityGrid {
            dimension: dim,
            dims,
            dx: raw.dx,
            dt: raw.dt,
            row_axis: slice(raw.row_axis, rows, "row_axis")?,
            row_face: slice(raw.row_face, rows, "row_face")?,
            face_row: [
                slice(raw.face_row[0], faces(0), "face_row_x")?,
                slice(raw.face_row[1], faces(1), "face_row_y")?,
                slice(raw.face_row[2], faces(2), "face_row_z")?,
            ],
            face_weight: [
                slice(raw.face_weight[0], faces(0), "face_weight_x")?,
                slice(raw.face_weight[1], faces(1), "face_weight_y")?,
                slice(raw.face_weight[2], faces(2), "face_weight_z")?,
            ],
            cell_weight: slice(raw.cell_weight, cells, "cell_weight")?,
            viscosity: slice(raw.viscosity, cells, "viscosity")?,
            edge_weight: [
                slice(raw.edge_weight[0], edges(0), "edge_weight_x")?,
                slice(raw.edge_weight[1], edges(1), "edge_weight_y")?,
                slice(raw.edge_weight[2], edges(2), "edge_weight_z")?,
            ],
        };
        let view = ViscosityProblem { csr, grid };
        view.validate()?;
        Ok(view)
    }

    /// The C view the host hands to a plugin (borrows `self`'s arrays).
    pub fn to_abi(&mut self) -> abi::ViscosityProblem {
        let g = self.grid;
        let ptr = |s: &[u32]| {
            if s.is_empty() {
                std::ptr::null()
            } else {
                s.as_ptr()
            }
        };
        let ptr_f = |s: &[f32]| {
            if s.is_empty() {
                std::ptr::null()
            } else {
                s.as_ptr()
            }
        };
        abi::ViscosityProblem {
            csr: self.csr.to_abi(),
            dimension: g.dimension as u32,
            dims: g.dims.map(|c| c as u32),
            dx: g.dx,
            dt: g.dt,
            row_axis: g.row_axis.as_ptr(),
            row_face: g.row_face.as_ptr(),
            face_row: g.face_row.map(ptr),
            face_weight: g.face_weight.map(ptr_f),
            cell_weight: g.cell_weight.as_ptr(),
            viscosity: g.viscosity.as_ptr(),
            edge_weight: g.edge_weight.map(ptr_f),
        }
    }
}

/// The grid of a viscosity problem, owned (the host builds it beside its [`OwnedCsr`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedViscosityGrid {
    /// See [`ViscosityGrid::dimension`].
    pub dimension: usize,
    /// See [`ViscosityGrid::dims`].
    pub dims: [usize; 3],
    /// See [`ViscosityGrid::dx`].
    pub dx: f64,
    /// See [`ViscosityGrid::dt`].
    pub dt: f64,
    /// See [`ViscosityGrid::row_axis`].
    pub row_axis: Vec<u8>,
    /// See [`ViscosityGrid::row_face`].
    pub row_face: Vec<u32>,
    /// See [`ViscosityGrid::face_row`].
    pub face_row: [Vec<u32>; 3],
    /// See [`ViscosityGrid::face_weight`].
    pub face_weight: [Vec<f32>; 3],
    /// See [`ViscosityGrid::cell_weight`].
    pub cell_weight: Vec<f32>,
    /// See [`ViscosityGrid::viscosity`].
    pub viscosity: Vec<f32>,
    /// See [`ViscosityGrid::edge_weight`].
    pub edge_weight: [Vec<f32>; 3],
}

impl OwnedViscosityGrid {
    /// The borrowed grid.
    pub fn view(&self) -> ViscosityGrid<'_> {
        ViscosityGrid {
            dimension: self.dimension,
            dims: self.dims,
            dx: self.dx,
            dt: self.dt,
            row_axis: &self.row_axis,
            row_face: &self.row_face,
            face_row: [&self.face_row[0], &self.face_row[1], &self.face_row[2]],
            face_weight: [
                &self.face_weight[0],
                &self.face_weight[1],
                &self.face_weight[2],
            ],
            cell_weight: &self.cell_weight,
            viscosity: &self.viscosity,
            edge_weight: [
                &self.edge_weight[0],
                &self.edge_weight[1],
                &self.edge_weight[2],
            ],
        }
    }

    /// The problem of `csr` on this grid.
    pub fn problem<'a>(&'a self, csr: &'a mut OwnedCsr) -> ViscosityProblem<'a> {
        ViscosityProblem {
            csr: csr.view(),
            grid: self.view(),
        }
    }
}
