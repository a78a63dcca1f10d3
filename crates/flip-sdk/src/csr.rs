//! The general sparse problem kind (`abi::CsrProblem`): a safe view, an owned form, the
//! conversion from a structured problem, and the structure checks both sides run.

use super::Problem;
use flip_abi::{self as abi, CELL_FLUID};

/// A CSR field that does not fit the contract.
#[derive(Debug, thiserror::Error)]
pub enum CsrError {
    /// A required array pointer is null.
    #[error("array `{0}` is null")]
    Null(&'static str),
    /// An array has the wrong length.
    #[error("array `{0}` has {1} entries, expected {2}")]
    Length(&'static str, usize, usize),
    /// The row pointers or column indices break the CSR rules.
    #[error("row {row}: {what}")]
    Structure {
        /// The row.
        row: usize,
        /// What is wrong.
        what: String,
    },
}

/// A borrowed sparse problem (meaning of every field: `abi::CsrProblem`).
#[derive(Debug)]
pub struct CsrProblem<'a> {
    /// Whether `A` is symmetric (the host's guarantee).
    pub symmetric: bool,
    /// Solve the LCP on rows flagged `abi::ROW_COMPLEMENTARITY`.
    pub lcp: bool,
    /// Time-step index.
    pub step: u64,
    /// Row starts, `rows + 1` entries.
    pub row_ptr: &'a [u64],
    /// Column of each entry.
    pub col_idx: &'a [u32],
    /// Value of each entry.
    pub values: &'a [f64],
    /// Right-hand side.
    pub rhs: &'a [f64],
    /// Per-row `abi::ROW_*` flags, if any.
    pub row_flags: Option<&'a [u8]>,
    /// Initial guess in, solution out.
    pub pressure: &'a mut [f64],
}

impl CsrProblem<'_> {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rhs.len()
    }

    /// The entries `(column, value)` of row `r`.
    #[inline]
    pub fn row(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.row_ptr[r] as usize, self.row_ptr[r + 1] as usize);
        self.col_idx[a..b]
            .iter()
            .zip(&self.values[a..b])
            .map(|(&c, &v)| (c as usize, v))
    }

    /// Whether row `r` is in the complementarity set (and the problem is an LCP).
    pub fn is_complementarity(&self, r: usize) -> bool {
        self.lcp
            && self
                .row_flags
                .is_some_and(|f| f[r] & abi::ROW_COMPLEMENTARITY != 0)
    }

    /// Checks lengths and the CSR rules (sorted, in-range columns; a diagonal in every row).
    ///
    /// # Errors
    /// [`CsrError`] naming the first violation.
    pub fn validate(&self) -> Result<(), CsrError> {
        let n = self.rows();
        let nnz = self.values.len();
        let lens = [
            ("row_ptr", self.row_ptr.len(), n + 1),
            ("col_idx", self.col_idx.len(), nnz),
            ("pressure", self.pressure.len(), n),
        ];
        for (name, len, want) in lens {
            if len != want {
                return Err(CsrError::Length(name, len, want));
            }
        }
        if let Some(f) = self.row_flags {
            if f.len() != n {
                return Err(CsrError::Length("row_flags", f.len(), n));
            }
        }
        if self.row_ptr[0] != 0 || self.row_ptr[n] != nnz as u64 {
            let what = format!("row_ptr must run from 0 to nnz = {nnz}");
            return Err(CsrError::Structure { row: 0, what });
        }
        (0..n).try_for_each(|r| self.check_row(r))
    }

    fn check_row(&self, r: usize) -> Result<(), CsrError> {
        let err = |what: String| Err(CsrError::Structure { row: r, what });
        let (a, b) = (self.row_ptr[r], self.row_ptr[r + 1]);
        if a > b || b > self.values.len() as u64 {
            return err(format!("row_ptr {a}..{b} is not a valid range"));
        }
        let cols = &self.col_idx[a as usize..b as usize];
        if cols.windows(2).any(|w| w[0] >= w[1]) {
            return err("columns are not strictly increasing".into());
        }
        if cols.last().is_some_and(|&c| c as usize >= self.rows()) {
            return err("column index out of range".into());
        }
        if cols.binary_search(&(r as u32)).is_err() {
            return err("no diagonal entry".into());
        }
        Ok(())
    }

    /// Reconstructs the safe view of a C problem.
    ///
    /// # Safety
    /// Every non-null pointer in `raw` is valid for the length its field documents (computed
    /// from `rows` and `nnz`) for `'a`, `pressure` writable and not aliased by the others.
    ///
    /// # Errors
    /// [`CsrError`] for null pointers or a broken structure.
    pub unsafe fn from_abi(raw: &abi::CsrProblem) -> Result<CsrProblem<'_>, CsrError> {
        let n = raw.rows as usize;
        let nnz =
            usize::try_from(raw.nnz).map_err(|_| CsrError::Length("values", usize::MAX, 0))?;
        macro_rules! slice {
            ($field:ident, $len:expr) => {{
                if raw.$field.is_null() {
                    return Err(CsrError::Null(stringify!($field)));
                }
                // SAFETY: non-null, valid for `$len` elements (the caller's contract).
                unsafe { std::slice::from_raw_parts(raw.$field, $len) }
            }};
        }
        if raw.pressure.is_null() {
            return Err(CsrError::Null("pressure"));
        }
        let view = CsrProblem {
            symmetric: raw.symmetric != 0,
            lcp: raw.lcp != 0,
            step: raw.step,
            row_ptr: slice!(row_ptr, n + 1),
            col_idx: slice!(col_idx, nnz),
            values: slice!(values, nnz),
            rhs: slice!(rhs, n),
            // SAFETY: valid for `n` entries when non-null (the caller's contract).
            row_flags: (!raw.row_flags.is_null())
                .then(|| unsafe { std::slice::from_raw_parts(raw.row_flags, n) }),
            // SAFETY: non-null (checked), writable and unaliased for `n` entries.
            pressure: unsafe { std::slice::from_raw_parts_mut(raw.pressure, n) },
        };
        view.validate()?;
        Ok(view)
    }

    /// The C view the host hands to a plugin (borrows `self`'s arrays: keep `self` alive and
    /// unmoved while it is used).
    pub fn to_abi(&mut self) -> abi::CsrProblem {
        abi::CsrProblem {
            rows: self.rows() as u32,
            symmetric: u32::from(self.symmetric),
            lcp: u32::from(self.lcp),
            reserved: 0,
            step: self.step,
            nnz: self.values.len() as u64,
            row_ptr: self.row_ptr.as_ptr(),
            col_idx: self.col_idx.as_ptr(),
            values: self.values.as_ptr(),
            rhs: self.rhs.as_ptr(),
            row_flags: self.row_flags.map_or(std::ptr::null(), <[u8]>::as_ptr),
            pressure: self.pressure.as_mut_ptr(),
        }
    }
}

/// An owned sparse problem, e.g. a structured one converted by [`OwnedCsr::from_structured`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedCsr {
    /// See [`CsrProblem::symmetric`].
    pub symmetric: bool,
    /// See [`CsrProblem::lcp`].
    pub lcp: bool,
    /// Step index.
    pub step: u64,
    /// Row starts.
    pub row_ptr: Vec<u64>,
    /// Columns.
    pub col_idx: Vec<u32>,
    /// Values.
    pub values: Vec<f64>,
    /// Right-hand side.
    pub rhs: Vec<f64>,
    /// Row flags (empty: none).
    pub row_flags: Vec<u8>,
    /// Solution / initial guess.
    pub pressure: Vec<f64>,
    /// Grid cell of each row, when converted from a structured problem.
    pub cells: Vec<usize>,
}

/// Sorts a row's `(column, value)` entries by column and sums the repeated columns.
pub fn merge_row(entries: &mut Vec<(u32, f64)>) {
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 += b.1;
        }
        same
    });
}

impl OwnedCsr {
    /// The fluid unknowns of `p` as a symmetric CSR system (rows in grid order, entries by
    /// column), with S as row flags and the grid pressure as the initial guess.
    pub fn from_structured(p: &Problem<'_>) -> Self {
        let n = p.cell_count();
        let [ni, nj, _] = p.dims;
        let strides = [1, ni, ni * nj];
        let cells: Vec<usize> = (0..n).filter(|&c| p.cell_kind[c] == CELL_FLUID).collect();
        let mut row_of = vec![u32::MAX; n];
        for (r, &c) in cells.iter().enumerate() {
            row_of[c] = r as u32;
        }
        let mut out = Self {
            symmetric: true,
            lcp: p.lcp,
            step: p.step,
            row_ptr: vec![0],
            ..Self::default()
        };
        for &c in &cells {
            let mut row: Vec<(u32, f64)> = vec![(row_of[c], f64::from(p.diag[c]))];
            for (a, &s) in strides.iter().enumerate() {
                let up = (c + s < n).then(|| (c + s, p.off[a][c]));
                let down = (c >= s).then(|| (c - s, p.off[a][c - s]));
                for (nb, o) in [up, down].into_iter().flatten() {
                    if o != 0.0 && row_of[nb] != u32::MAX {
                        row.push((row_of[nb], f64::from(o)));
                    }
                }
            }
            row.sort_unstable_by_key(|e| e.0);
            out.col_idx.extend(row.iter().map(|e| e.0));
            out.values.extend(row.iter().map(|e| e.1));
            out.row_ptr.push(out.col_idx.len() as u64);
            out.rhs.push(p.rhs[c]);
            out.pressure.push(p.pressure[c]);
            let s = p.complementarity[c] != 0;
            out.row_flags
                .push(if s { abi::ROW_COMPLEMENTARITY } else { 0 });
        }
        out.cells = cells;
        out
    }

    /// The borrowed view.
    pub fn view(&mut self) -> CsrProblem<'_> {
        CsrProblem {
            symmetric: self.symmetric,
            lcp: self.lcp,
            step: self.step,
            row_ptr: &self.row_ptr,
            col_idx: &self.col_idx,
            values: &self.values,
            rhs: &self.rhs,
            row_flags: (!self.row_flags.is_empty()).then_some(&self.row_flags[..]),
            pressure: &mut self.pressure,
        }
    }

    /// Writes the solution back to grid cells (`grid[cells[r]] = pressure[r]`).
    pub fn scatter(&self, grid: &mut [f64]) {
        for (&c, &v) in self.cells.iter().zip(&self.pressure) {
            grid[c] = v;
        }
    }
}
