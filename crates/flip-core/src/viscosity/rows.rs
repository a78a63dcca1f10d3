//! The rows of the viscosity system, built face by face in parallel: each unknown face gathers
//! the strain samples that read it ([`readers`]) and adds their energy's derivative to its own
//! row. A row sums its terms in an order fixed by the grid alone (the order a serial sweep over
//! the samples would add them), so the matrix is bit-identical on any number of threads.

use super::assemble::{readers, Stencil, Term, DRY_FACE_WEIGHT};
use super::weights::face_dims;
use flip_sdk::OwnedCsr;
use rayon::prelude::*;

/// Most distinct columns of a row: itself, its 2·dim neighbours of the same component, and the
/// four faces of each other component around its shear edges (15 in 3D, 9 in 2D).
const MAX_WIDTH: usize = 15;

/// Rows per parallel task: each task fills its own buffers, concatenated in order after.
pub(super) const CHUNK_ROWS: usize = 1024;

/// One row being summed: its entries in the order they were first touched.
pub(super) struct Row {
    entries: [(u32, f64); MAX_WIDTH],
    len: usize,
}

impl Row {
    pub(super) fn new() -> Self {
        Self {
            entries: [(0, 0.0); MAX_WIDTH],
            len: 0,
        }
    }

    /// Adds `v` to the entry of column `col` (merged as added: a row gets dozens of
    /// contributions to at most [`MAX_WIDTH`] columns).
    pub(super) fn add(&mut self, col: u32, v: f64) {
        match self.entries[..self.len].iter_mut().find(|e| e.0 == col) {
            Some(e) => e.1 += v,
            None => {
                self.entries[self.len] = (col, v);
                self.len += 1;
            }
        }
    }

    /// The entries sorted by column.
    pub(super) fn sorted(&mut self) -> &[(u32, f64)] {
        let entries = &mut self.entries[..self.len];
        entries.sort_unstable_by_key(|e| e.0);
        entries
    }
}

/// Adds row `i`'s part of the energy `w·s²` of one strain sample `s = Σ coef·u` (eq. 10's
/// terms): `A_ij += 2w c_i c_j` for the unknowns, the known samples' part to `rhs`.
pub(super) fn add_sample(row: &mut Row, rhs: &mut f64, i: u32, w: f64, terms: &[Term]) {
    if w <= 0.0 || terms.iter().all(|(s, _)| s.row.is_none()) {
        return;
    }
    let known: f64 = terms
        .iter()
        .filter(|(s, _)| s.row.is_none())
        .map(|(s, c)| c * s.value)
        .sum();
    for &(si, ci) in terms {
        if si.row != Some(i) {
            continue;
        }
        *rhs -= 2.0 * w * ci * known;
        for &(sj, cj) in terms {
            if let Some(j) = sj.row {
                row.add(j, 2.0 * w * ci * cj);
            }
        }
    }
}

/// The rows of one task.
#[derive(Default)]
struct Chunk {
    cols: Vec<u32>,
    values: Vec<f64>,
    lengths: Vec<u32>,
    rhs: Vec<f64>,
    guess: Vec<f64>,
}

/// The system's rows, in task order.
pub(super) struct Rows(Vec<Chunk>);

impl Rows {
    /// Writes the rows into `csr` (matrix, right-hand side, initial guess).
    pub(super) fn write(self, csr: &mut OwnedCsr) {
        csr.row_ptr.clear();
        csr.row_ptr.push(0);
        csr.col_idx.clear();
        csr.values.clear();
        csr.rhs.clear();
        csr.pressure.clear();
        for chunk in self.0 {
            for len in chunk.lengths {
                let end = csr.row_ptr.last().copied().unwrap_or(0) + u64::from(len);
                csr.row_ptr.push(end);
            }
            csr.col_idx.extend_from_slice(&chunk.cols);
            csr.values.extend_from_slice(&chunk.values);
            csr.rhs.extend_from_slice(&chunk.rhs);
            csr.pressure.extend_from_slice(&chunk.guess);
        }
    }
}

/// Row `r` (the face `f` of `axis`): the kinetic term `½ V_f (u − u*)²`, then the strain
/// samples reading the face; its right-hand side and initial guess (the face's velocity).
fn build_row(st: &Stencil<'_>, r: u32, axis: usize, f: usize, out: &mut Chunk) {
    let d = face_dims(st.spec, axis);
    let idx = [f % d[0], (f / d[0]) % d[1], f / (d[0] * d[1])].map(|v| v as isize);
    let mut row = Row::new();
    let v = f64::from(st.face_weight[axis].data[f].max(DRY_FACE_WEIGHT));
    let u = f64::from(st.vel.axes()[axis].data[f]);
    row.add(r, v);
    let mut rhs = 0.0;
    rhs += v * u;
    let (samples, n) = readers(st.spec, axis, idx);
    for &at in &samples[..n] {
        if let Some(s) = st.strain(axis, at) {
            add_sample(&mut row, &mut rhs, r, s.w, s.terms());
        }
    }
    let entries = row.sorted();
    out.cols.extend(entries.iter().map(|e| e.0));
    out.values.extend(entries.iter().map(|e| e.1));
    out.lengths.push(entries.len() as u32);
    out.rhs.push(rhs);
    out.guess.push(u);
}

/// All rows, in parallel tasks of [`CHUNK_ROWS`] rows (`row_axis`, `row_face`: each row's
/// face).
pub(super) fn build_rows(st: &Stencil<'_>, row_axis: &[u8], row_face: &[u32]) -> Rows {
    let n = row_axis.len();
    let chunks = (0..n.div_ceil(CHUNK_ROWS))
        .into_par_iter()
        .map(|c| {
            let rows = c * CHUNK_ROWS..((c + 1) * CHUNK_ROWS).min(n);
            let mut out = Chunk::default();
            for r in rows {
                let (axis, f) = (row_axis[r] as usize, row_face[r] as usize);
                build_row(st, r as u32, axis, f, &mut out);
            }
            out
        })
        .collect();
    Rows(chunks)
}
