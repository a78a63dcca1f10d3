use flip_abi as abi;

/// A problem field that does not fit the contract.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// Dimensions are zero, inconsistent or too large.
    #[error("bad dimensions {0:?} (dimension {1})")]
    Dims([u32; 3], u32),
    /// A required array pointer is null.
    #[error("array `{0}` is null")]
    Null(&'static str),
    /// An array has the wrong length.
    #[error("array `{0}` has {1} entries, expected {2}")]
    Length(&'static str, usize, usize),
}

/// A safe, borrowed view of a pressure problem (see [`abi::PressureProblem`] for the meaning of
/// every field). Arrays are dense with x fastest: `i + ni * (j + nj * k)`.
pub struct Problem<'a> {
    /// Cells per axis; `dims[2] == 1` in 2D.
    pub dims: [usize; 3],
    /// 2 or 3.
    pub dimension: usize,
    /// Cell size in metres.
    pub dx: f64,
    /// Solve the LCP on `complementarity` cells.
    pub lcp: bool,
    /// Time-step index.
    pub step: u64,
    /// `abi::CELL_*` per cell.
    pub cell_kind: &'a [u8],
    /// `A[c][c]`.
    pub diag: &'a [f32],
    /// `A[c][c+x̂]`, `A[c][c+ŷ]`, `A[c][c+ẑ]`.
    pub off: [&'a [f32]; 3],
    /// Right-hand side.
    pub rhs: &'a [f64],
    /// Liquid signed distance (negative inside).
    pub liquid_phi: &'a [f32],
    /// Solid signed distance (negative inside).
    pub solid_phi: &'a [f32],
    /// Set S of Lai et al.: cells that may separate from a solid.
    pub complementarity: &'a [u8],
    /// Open fraction of the face between `c` and `c + â` per axis (`abi::PressureProblem`).
    pub face_open: [&'a [f32]; 3],
    /// Initial guess in, solution out.
    pub pressure: &'a mut [f64],
}

impl<'a> Problem<'a> {
    /// Number of cells `ni * nj * nk`.
    pub fn cell_count(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Linear index of cell `(i, j, k)`.
    #[inline]
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Whether cell `c` is an unknown.
    #[inline]
    pub fn is_fluid(&self, c: usize) -> bool {
        self.cell_kind[c] == abi::CELL_FLUID
    }

    /// Checks lengths and dimensions of a view built from slices.
    ///
    /// # Errors
    /// [`ProblemError`] naming the first field that does not fit.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let n = self.cell_count();
        let ok_dims = self.dims.iter().all(|&d| d > 0)
            && (self.dimension == 3 || (self.dimension == 2 && self.dims[2] == 1));
        if !ok_dims {
            let d = self.dims.map(|d| d as u32);
            return Err(ProblemError::Dims(d, self.dimension as u32));
        }
        let lens: [(&'static str, usize); 13] = [
            ("cell_kind", self.cell_kind.len()),
            ("diag", self.diag.len()),
            ("off_x", self.off[0].len()),
            ("off_y", self.off[1].len()),
            ("off_z", self.off[2].len()),
            ("rhs", self.rhs.len()),
            ("liquid_phi", self.liquid_phi.len()),
            ("solid_phi", self.solid_phi.len()),
            ("complementarity", self.complementarity.len()),
            ("face_open_x", self.face_open[0].len()),
            ("face_open_y", self.face_open[1].len()),
            ("face_open_z", self.face_open[2].len()),
            ("pressure", self.pressure.len()),
        ];
        for (name, len) in lens {
            if len != n {
                return Err(ProblemError::Length(name, len, n));
            }
        }
        Ok(())
    }

    /// Builds the C view the host hands to a plugin. The returned struct borrows `self`'s arrays
    /// through raw pointers: keep `self` alive and unmoved while it is used.
    pub fn to_abi(&mut self) -> abi::PressureProblem {
        abi::PressureProblem {
            dims: self.dims.map(|d| d as u32),
            dimension: self.dimension as u32,
            dx: self.dx,
            lcp: u32::from(self.lcp),
            step: self.step,
            cell_kind: self.cell_kind.as_ptr(),
            diag: self.diag.as_ptr(),
            off_x: self.off[0].as_ptr(),
            off_y: self.off[1].as_ptr(),
            off_z: self.off[2].as_ptr(),
            rhs: self.rhs.as_ptr(),
            liquid_phi: self.liquid_phi.as_ptr(),
            solid_phi: self.solid_phi.as_ptr(),
            complementarity: self.complementarity.as_ptr(),
            face_open_x: self.face_open[0].as_ptr(),
            face_open_y: self.face_open[1].as_ptr(),
            face_open_z: self.face_open[2].as_ptr(),
            pressure: self.pressure.as_mut_ptr(),
        }
    }

    /// Reconstructs the safe view of a C problem.
    ///
    /// # Safety
    /// Every pointer in `raw` must be valid for `ni*nj*nk` elements for `'a`, `pressure`
    /// writable and not aliased by the other arrays.
    ///
    /// # Errors
    /// [`ProblemError`] for bad dimensions or null pointers.
    pub unsafe fn from_abi(raw: &abi::PressureProblem) -> Result<Self, ProblemError> {
        let d = raw.dims;
        let dims = d.map(|x| x as usize);
        let valid = d.iter().all(|&x| x > 0)
            && (raw.dimension == 3 || (raw.dimension == 2 && d[2] == 1))
            && dims[0]
                .checked_mul(dims[1])
                .and_then(|x| x.checked_mul(dims[2]))
                .is_some();
        if !valid {
            return Err(ProblemError::Dims(d, raw.dimension));
        }
        let n = dims[0] * dims[1] * dims[2];
        macro_rules! slice {
            ($field:ident) => {{
                if raw.$field.is_null() {
                    return Err(ProblemError::Null(stringify!($field)));
                }
                // SAFETY: non-null, and the caller guarantees `n` valid elements for 'a.
                unsafe { std::slice::from_raw_parts(raw.$field, n) }
            }};
        }
        if raw.pressure.is_null() {
            return Err(ProblemError::Null("pressure"));
        }
        Ok(Self {
            dims,
            dimension: raw.dimension as usize,
            dx: raw.dx,
            lcp: raw.lcp != 0,
            step: raw.step,
            cell_kind: slice!(cell_kind),
            diag: slice!(diag),
            off: [slice!(off_x), slice!(off_y), slice!(off_z)],
            rhs: slice!(rhs),
            liquid_phi: slice!(liquid_phi),
            solid_phi: slice!(solid_phi),
            complementarity: slice!(complementarity),
            face_open: [
                slice!(face_open_x),
                slice!(face_open_y),
                slice!(face_open_z),
            ],
            // SAFETY: non-null, writable and unaliased for 'a (caller's contract).
            pressure: unsafe { std::slice::from_raw_parts_mut(raw.pressure, n) },
        })
    }
}
