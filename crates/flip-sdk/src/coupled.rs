//! The coupled problem kind (`abi::CoupledProblem`): the structured pressure problem plus the
//! rigid bodies' low-rank terms `J C Jᵀ`, as a safe view and in owned form, with the operator
//! products and the Woodbury identity every solver of the kind shares.

use super::{Problem, ProblemError};
use flip_abi as abi;

/// A bodies' term that does not fit the contract (or the structured part's error).
#[derive(Debug, thiserror::Error)]
pub enum CoupledError {
    /// The structured part is broken.
    #[error(transparent)]
    Grid(#[from] ProblemError),
    /// A required array pointer is null.
    #[error("array `{0}` is null")]
    Null(&'static str),
    /// An array has the wrong length.
    #[error("array `{0}` has {1} entries, expected {2}")]
    Length(&'static str, usize, usize),
    /// A field breaks the contract.
    #[error("{0}")]
    Bad(String),
}

/// Degrees of freedom of a body in `dimension` (3 in 2D, 6 in 3D).
pub fn body_dofs(dimension: usize) -> usize {
    if dimension == 2 {
        3
    } else {
        6
    }
}

/// The bodies' low-rank terms, borrowed (meaning of every field: `abi::CoupledProblem`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyTerms<'a> {
    /// Degrees of freedom per body.
    pub dofs: usize,
    /// Start of each column's entries (`columns + 1` entries).
    pub column_start: &'a [u64],
    /// Cell of each entry.
    pub column_cells: &'a [u32],
    /// Value of each entry.
    pub column_values: &'a [f64],
    /// Each body's `dofs × dofs` block of `C`, row-major.
    pub weight: &'a [f64],
}

impl BodyTerms<'_> {
    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        if self.dofs == 0 {
            0
        } else {
            self.weight.len() / (self.dofs * self.dofs)
        }
    }

    /// Number of columns of `J` (`bodies · dofs`).
    pub fn columns(&self) -> usize {
        self.column_start.len().saturating_sub(1)
    }

    /// The entries `(cell, value)` of column `q`.
    pub fn column(&self, q: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.column_start[q] as usize..self.column_start[q + 1] as usize;
        (self.column_cells[range.clone()].iter())
            .zip(&self.column_values[range])
            .map(|(&c, &v)| (c as usize, v))
    }

    /// `Jᵀ x`.
    pub fn transpose_times(&self, x: &[f64]) -> Vec<f64> {
        (0..self.columns())
            .map(|q| self.column(q).map(|(c, v)| v * x[c]).sum())
            .collect()
    }

    /// `C y`, block by block.
    pub fn weigh(&self, y: &[f64]) -> Vec<f64> {
        let k = self.dofs;
        (y.chunks(k).zip(self.weight.chunks(k * k)))
            .flat_map(|(y, c)| (0..k).map(move |i| (0..k).map(|j| c[i * k + j] * y[j]).sum()))
            .collect()
    }

    /// `out += J C Jᵀ x`: the bodies' part of the coupled operator.
    pub fn add_low_rank(&self, x: &[f64], out: &mut [f64]) {
        for (q, w) in self.weigh(&self.transpose_times(x)).into_iter().enumerate() {
            for (c, v) in self.column(q) {
                out[c] += w * v;
            }
        }
    }

    /// The coupled solution by the Woodbury identity, in place of `x`: with `x = A⁻¹ rhs` and
    /// `y[q] = A⁻¹ J[:, q]` on entry, `x − Y S⁻¹ Jᵀ x` with `S = C⁻¹ + Jᵀ Y` on return.
    ///
    /// # Panics
    /// When `y` does not hold one vector per column.
    pub fn woodbury(&self, x: &mut [f64], y: &[Vec<f64>]) {
        let n = self.columns();
        assert_eq!(y.len(), n, "one solve of A per column of J");
        let mut s = vec![0.0; n * n];
        for (j, yj) in y.iter().enumerate() {
            for (i, jty) in self.transpose_times(yj).into_iter().enumerate() {
                s[i * n + j] = jty;
            }
        }
        for i in 0..n {
            for j in 0..i {
                let m = 0.5 * (s[i * n + j] + s[j * n + i]);
                s[i * n + j] = m;
                s[j * n + i] = m;
            }
        }
        let k = self.dofs;
        for b in 0..self.body_count() {
            let inverse = invert(&self.weight[b * k * k..][..k * k], k);
            for i in 0..k {
                for j in 0..k {
                    s[(b * k + i) * n + b * k + j] += inverse[i * k + j];
                }
            }
        }
        let z = solve_dense(&mut s, self.transpose_times(x), n);
        for (yj, zj) in y.iter().zip(z) {
            for (xi, yi) in x.iter_mut().zip(yj) {
                *xi -= zj * yi;
            }
        }
    }

    /// Checks the terms against the grid `p` (module doc of `abi::CoupledProblem`).
    ///
    /// # Errors
    /// [`CoupledError`] naming the first violation.
    pub fn validate(&self, p: &Problem<'_>) -> Result<(), CoupledError> {
        let k = body_dofs(p.dimension);
        if self.dofs != k {
            return Err(CoupledError::Bad(format!(
                "{} degrees of freedom per body; a {}D problem has {k}",
                self.dofs, p.dimension
            )));
        }
        if !self.weight.len().is_multiple_of(k * k) {
            return Err(CoupledError::Bad(format!(
                "weight has {} entries, not a whole number of {k}×{k} blocks",
                self.weight.len()
            )));
        }
        let columns = self.body_count() * k;
        if self.column_start.len() != columns + 1 {
            let (len, want) = (self.column_start.len(), columns + 1);
            return Err(CoupledError::Length("column_start", len, want));
        }
        let entries = self.column_values.len();
        if self.column_cells.len() != entries {
            let len = self.column_cells.len();
            return Err(CoupledError::Length("column_cells", len, entries));
        }
        if self.column_start[0] != 0 || self.column_start[columns] != entries as u64 {
            return Err(CoupledError::Bad(format!(
                "column_start must run from 0 to the {entries} entries"
            )));
        }
        for q in 0..columns {
            let (lo, hi) = (self.column_start[q], self.column_start[q + 1]);
            if hi < lo {
                return Err(CoupledError::Bad(format!(
                    "column {q} ends before it starts"
                )));
            }
            let mut previous = None;
            for (c, v) in self.column(q) {
                if c >= p.cell_count() || !p.is_fluid(c) || previous.is_some_and(|o| o >= c) {
                    return Err(CoupledError::Bad(format!(
                        "column {q}: cell {c} is not a fluid cell in increasing order"
                    )));
                }
                if !v.is_finite() {
                    return Err(CoupledError::Bad(format!(
                        "column {q}: value {v} at cell {c}"
                    )));
                }
                previous = Some(c);
            }
        }
        for (b, block) in self.weight.chunks(k * k).enumerate() {
            if !positive_definite(block, k) {
                return Err(CoupledError::Bad(format!(
                    "body {b}: its block of C is not symmetric positive definite"
                )));
            }
        }
        Ok(())
    }
}

/// Whether the `k × k` row-major `m` is finite, symmetric (to rounding) and positive
/// definite (its Cholesky factorisation exists).
fn positive_definite(m: &[f64], k: usize) -> bool {
    let scale = m.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if !scale.is_finite() || scale == 0.0 {
        return false;
    }
    let symmetric =
        (0..k).all(|i| (0..i).all(|j| (m[i * k + j] - m[j * k + i]).abs() <= 1e-9 * scale));
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let s: f64 = (0..j).map(|t| l[i * k + t] * l[j * k + t]).sum();
            if i == j {
                let d = m[i * k + i] - s;
                if d.is_nan() || d <= 1e-14 * scale {
                    return false;
                }
                l[i * k + i] = d.sqrt();
            } else {
                l[i * k + j] = (m[i * k + j] - s) / l[j * k + j];
            }
        }
    }
    symmetric
}

/// The inverse of the small symmetric positive definite `m` (`k × k`, row-major).
pub fn invert(m: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * k];
    for j in 0..k {
        let mut e = vec![0.0; k];
        e[j] = 1.0;
        for (i, v) in solve_dense(&mut m.to_vec(), e, k).into_iter().enumerate() {
            out[i * k + j] = v;
        }
    }
    out
}

/// Solves the small dense system `s z = b` (`k × k`, row-major, overwritten) by Gaussian
/// elimination with partial pivoting.
pub fn solve_dense(s: &mut [f64], mut b: Vec<f64>, k: usize) -> Vec<f64> {
    for col in 0..k {
        let pivot = (col..k)
            .max_by(|&x, &y| s[x * k + col].abs().total_cmp(&s[y * k + col].abs()))
            .unwrap_or(col);
        if pivot != col {
            for c in 0..k {
                s.swap(col * k + c, pivot * k + c);
            }
            b.swap(col, pivot);
        }
        let d = s[col * k + col];
        for row in col + 1..k {
            let f = s[row * k + col] / d;
            for c in col..k {
                s[row * k + c] -= f * s[col * k + c];
            }
            b[row] -= f * b[col];
        }
    }
    let mut z = vec![0.0; k];
    for row in (0..k).rev() {
        let tail: f64 = (row + 1..k).map(|c| s[row * k + c] * z[c]).sum();
        z[row] = (b[row] - tail) / s[row * k + row];
    }
    z
}

/// A borrowed coupled problem: the structured grid problem and the bodies' terms.
pub struct CoupledProblem<'a> {
    /// `A`, `rhs` and the pressure (in: initial guess, out: solution).
    pub grid: Problem<'a>,
    /// The bodies' low-rank terms.
    pub bodies: BodyTerms<'a>,
}

impl CoupledProblem<'_> {
    /// Checks the grid (linear) and the bodies' terms.
    ///
    /// # Errors
    /// [`CoupledError`] naming the first violation.
    pub fn validate(&self) -> Result<(), CoupledError> {
        self.grid.validate()?;
        if self.grid.lcp {
            return Err(CoupledError::Bad(
                "the coupled kind is linear (lcp = 0)".into(),
            ));
        }
        self.bodies.validate(&self.grid)
    }

    /// Reconstructs the safe view of a C problem, validated.
    ///
    /// # Safety
    /// As [`Problem::from_abi`] for `raw.grid`; `column_start` valid for
    /// `body_count · dofs + 1` entries, `column_cells` and `column_values` for the entry count
    /// it ends at, `weight` for `body_count · dofs²`, all for `'a` (null only when empty).
    ///
    /// # Errors
    /// [`CoupledError`] for null pointers, broken sizes or any other violation.
    pub unsafe fn from_abi(raw: &abi::CoupledProblem) -> Result<CoupledProblem<'_>, CoupledError> {
        // SAFETY: the caller's contract.
        let grid = unsafe { Problem::from_abi(&raw.grid) }?;
        let k = raw.dofs as usize;
        if k != body_dofs(grid.dimension) {
            return Err(CoupledError::Bad(format!(
                "{k} degrees of freedom per body in a {}D problem",
                grid.dimension
            )));
        }
        let columns = (raw.body_count as usize)
            .checked_mul(k)
            .ok_or_else(|| CoupledError::Bad("body count overflows".into()))?;
        fn slice<'r, T>(
            p: *const T,
            len: usize,
            name: &'static str,
        ) -> Result<&'r [T], CoupledError> {
            if len == 0 {
                return Ok(&[]);
            }
            if p.is_null() {
                return Err(CoupledError::Null(name));
            }
            // SAFETY: non-null, valid for `len` elements (the caller's contract).
            Ok(unsafe { std::slice::from_raw_parts(p, len) })
        }
        let column_start = slice(raw.column_start, columns + 1, "column_start")?;
        let entries = usize::try_from(column_start[columns])
            .map_err(|_| CoupledError::Bad("entry count overflows".into()))?;
        let bodies = BodyTerms {
            dofs: k,
            column_start,
            column_cells: slice(raw.column_cells, entries, "column_cells")?,
            column_values: slice(raw.column_values, entries, "column_values")?,
            weight: slice(raw.weight, columns * k, "weight")?,
        };
        let view = CoupledProblem { grid, bodies };
        view.validate()?;
        Ok(view)
    }

    /// The C view the host hands to a plugin (borrows `self`'s arrays).
    pub fn to_abi(&mut self) -> abi::CoupledProblem {
        let b = self.bodies;
        abi::CoupledProblem {
            grid: self.grid.to_abi(),
            body_count: b.body_count() as u32,
            dofs: b.dofs as u32,
            column_start: b.column_start.as_ptr(),
            column_cells: b.column_cells.as_ptr(),
            column_values: b.column_values.as_ptr(),
            weight: b.weight.as_ptr(),
        }
    }
}

/// The bodies' terms, owned (the host builds them beside its [`crate::OwnedProblem`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedBodyTerms {
    /// See [`BodyTerms::dofs`].
    pub dofs: usize,
    /// See [`BodyTerms::column_start`].
    pub column_start: Vec<u64>,
    /// See [`BodyTerms::column_cells`].
    pub column_cells: Vec<u32>,
    /// See [`BodyTerms::column_values`].
    pub column_values: Vec<f64>,
    /// See [`BodyTerms::weight`].
    pub weight: Vec<f64>,
}

impl OwnedBodyTerms {
    /// No bodies, `dofs` degrees of freedom each.
    pub fn new(dofs: usize) -> Self {
        Self {
            dofs,
            column_start: vec![0],
            ..Self::default()
        }
    }

    /// Appends one column of `J` (`entries` sorted by cell).
    pub fn push_column(&mut self, entries: impl IntoIterator<Item = (usize, f64)>) {
        for (c, v) in entries {
            self.column_cells.push(c as u32);
            self.column_values.push(v);
        }
        self.column_start.push(self.column_cells.len() as u64);
    }

    /// The borrowed terms.
    pub fn view(&self) -> BodyTerms<'_> {
        BodyTerms {
            dofs: self.dofs,
            column_start: &self.column_start,
            column_cells: &self.column_cells,
            column_values: &self.column_values,
            weight: &self.weight,
        }
    }
}
