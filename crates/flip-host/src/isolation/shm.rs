//! Where a problem's arrays lie in the two shared segments ([`super::segment`]), and how the
//! host brings a problem in and the solution out. Both sides compute the layout from the same
//! [`SolveMeta`], so only the metadata crosses the pipe.
//! - *Inputs* (sealed read-only for the child): the arrays at 64-byte aligned offsets from 0,
//!   structured `rhs` (f64), `diag, off_x/y/z, liquid_phi, solid_phi, face_open_x/y/z` (f32),
//!   `cell_kind, complementarity` (u8); CSR `rhs, values` (f64), `row_ptr` (u64), `col_idx`
//!   (u32), `row_flags` (u8, if any); viscosity: the CSR arrays (no flags), then `row_axis`
//!   (u8), `row_face` (u32), `face_row` x/y/z (u32), `face_weight` x/y/z, `cell_weight`,
//!   `viscosity`, `edge_weight` x/y/z (f32); arrays a 2D problem lacks are empty.
//! - *Exchange* (written by both): a 64-byte header (the cancel flag, an `AtomicU32` at 0),
//!   then the pressure (f64), the warm-start guess in and the solution out.

use super::segment::Segment;
use super::wire::SolveMeta;
use flip_sdk::viscosity::{edge_count, face_count};
use flip_sdk::{CoupledProblem, CsrProblem, Problem, ViscosityProblem};
use std::sync::atomic::AtomicU32;

/// Bytes of the exchange segment before the pressure.
pub(crate) const HEADER: usize = 64;
/// Alignment of every array.
const ALIGN: usize = 64;

/// The layout of one problem.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    /// Offset of each input array, in the order of the module doc.
    pub inputs: Vec<usize>,
    /// Bytes of the input segment.
    pub inputs_len: usize,
    /// Unknowns (the pressure's length).
    pub rows: usize,
}

impl Plan {
    /// Bytes of the exchange segment.
    pub fn exchange_len(&self) -> usize {
        HEADER + 8 * self.rows
    }
}

/// `(element size, count)` of each array, in layout order: the offsets and total size.
fn layout(fields: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let mut at = 0;
    let offsets = fields
        .iter()
        .map(|&(size, count)| {
            let o = at;
            at = (at + size * count).div_ceil(ALIGN) * ALIGN;
            o
        })
        .collect();
    (offsets, at.max(ALIGN))
}

/// Structured input arrays: rhs (f64); nine f32 arrays; two u8 arrays.
fn structured_fields(n: usize) -> Vec<(usize, usize)> {
    let mut f = vec![(8, n)];
    f.extend([(4, n); 9]);
    f.extend([(1, n); 2]);
    f
}

/// CSR input arrays: rhs (f64, rows); values (f64, nnz); row_ptr (u64, rows + 1); col_idx
/// (u32, nnz); row flags (u8, rows or none).
fn csr_fields(rows: usize, nnz: usize, flags: bool) -> Vec<(usize, usize)> {
    vec![
        (8, rows),
        (8, nnz),
        (8, rows + 1),
        (4, nnz),
        (1, if flags { rows } else { 0 }),
    ]
}

/// Viscosity input arrays: the CSR ones (no flags), then the grid's (module doc).
fn viscosity_fields(rows: usize, nnz: usize, dims: [usize; 3], dim: usize) -> Vec<(usize, usize)> {
    let mut f = csr_fields(rows, nnz, false);
    let faces = |a: usize| if a < dim { face_count(dims, a) } else { 0 };
    let cells = dims.iter().product::<usize>();
    f.extend([(1, rows), (4, rows)]);
    f.extend((0..3).map(|a| (4, faces(a))));
    f.extend((0..3).map(|a| (4, faces(a))));
    f.extend([(4, cells), (4, cells)]);
    f.extend((0..3).map(|a| (4, edge_count(dims, dim, a))));
    f
}

/// Coupled input arrays: the structured ones, then `column_start` (u64), `column_cells`
/// (u32), `column_values` (f64) and `weight` (f64).
fn coupled_fields(n: usize, bodies: usize, dofs: usize, entries: usize) -> Vec<(usize, usize)> {
    let mut f = structured_fields(n);
    f.extend([
        (8, bodies * dofs + 1),
        (4, entries),
        (8, entries),
        (8, bodies * dofs * dofs),
    ]);
    f
}

/// The layout of the problem `meta` describes.
pub(crate) fn plan(meta: &SolveMeta) -> Plan {
    match *meta {
        SolveMeta::Coupled {
            dims,
            bodies,
            dofs,
            entries,
            ..
        } => {
            let n = dims.iter().map(|&d| d as usize).product();
            let fields = coupled_fields(n, bodies as usize, dofs as usize, entries as usize);
            let (inputs, inputs_len) = layout(&fields);
            Plan {
                inputs,
                inputs_len,
                rows: n,
            }
        }
        SolveMeta::Viscosity {
            rows,
            nnz,
            dims,
            dimension,
            ..
        } => {
            let dims = dims.map(|d| d as usize);
            let fields = viscosity_fields(rows as usize, nnz as usize, dims, dimension as usize);
            let (inputs, inputs_len) = layout(&fields);
            Plan {
                inputs,
                inputs_len,
                rows: rows as usize,
            }
        }
        SolveMeta::Structured { dims, .. } => {
            structured_plan(dims.iter().map(|&d| d as usize).product())
        }
        SolveMeta::Csr {
            rows, nnz, flags, ..
        } => {
            let (inputs, inputs_len) = layout(&csr_fields(rows as usize, nnz as usize, flags));
            Plan {
                inputs,
                inputs_len,
                rows: rows as usize,
            }
        }
    }
}

/// The layout of a structured problem of `n` cells.
pub(crate) fn structured_plan(n: usize) -> Plan {
    let (inputs, inputs_len) = layout(&structured_fields(n));
    Plan {
        inputs,
        inputs_len,
        rows: n,
    }
}

/// The metadata of a structured problem.
pub(crate) fn structured_meta(p: &Problem<'_>) -> SolveMeta {
    SolveMeta::Structured {
        dims: p.dims.map(|d| d as u64),
        dimension: p.dimension as u32,
        dx: p.dx,
        lcp: p.lcp,
        step: p.step,
    }
}

/// The metadata of a CSR problem.
pub(crate) fn csr_meta(p: &CsrProblem<'_>) -> SolveMeta {
    SolveMeta::Csr {
        rows: p.rows() as u64,
        nnz: p.values.len() as u64,
        symmetric: p.symmetric,
        lcp: p.lcp,
        step: p.step,
        flags: p.row_flags.is_some(),
    }
}

/// The metadata of a coupled problem.
pub(crate) fn coupled_meta(p: &CoupledProblem<'_>) -> SolveMeta {
    let g = &p.grid;
    SolveMeta::Coupled {
        dims: g.dims.map(|d| d as u64),
        dimension: g.dimension as u32,
        dx: g.dx,
        step: g.step,
        bodies: p.bodies.body_count() as u64,
        dofs: p.bodies.dofs as u32,
        entries: p.bodies.column_values.len() as u64,
    }
}

/// The metadata of a viscosity problem.
pub(crate) fn viscosity_meta(p: &ViscosityProblem<'_>) -> SolveMeta {
    let g = &p.grid;
    SolveMeta::Viscosity {
        rows: p.csr.rows() as u64,
        nnz: p.csr.values.len() as u64,
        step: p.csr.step,
        dims: g.dims.map(|d| d as u64),
        dimension: g.dimension as u32,
        dx: g.dx,
        dt: g.dt,
    }
}

/// The input arrays of a structured problem, as bytes, in layout order.
fn structured_inputs<'a>(p: &Problem<'a>) -> [&'a [u8]; 12] {
    let [ox, oy, oz] = p.off;
    let [fx, fy, fz] = p.face_open;
    [
        bytes(p.rhs),
        bytes(p.diag),
        bytes(ox),
        bytes(oy),
        bytes(oz),
        bytes(p.liquid_phi),
        bytes(p.solid_phi),
        bytes(fx),
        bytes(fy),
        bytes(fz),
        p.cell_kind,
        p.complementarity,
    ]
}

/// The bytes of a slice of plain numbers.
fn bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: the element types used here (f64, f32, u64, u32, u8) have no padding, so their
    // bytes are initialised and plain; the view covers exactly the slice.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

/// Whether every input array of `p` already lies at its place in `seg` (it was lent by
/// `views::lend_structured`), so nothing needs to be brought in.
pub(crate) fn holds_structured(seg: &Segment, plan: &Plan, p: &Problem<'_>) -> bool {
    plan.inputs_len <= seg.len()
        && structured_inputs(p)
            .iter()
            .zip(&plan.inputs)
            .all(|(a, &o)| std::ptr::eq(a.as_ptr(), seg.base().wrapping_add(o)))
}

/// Bytes compared at a time by [`sync`] (a page).
const SYNC_BLOCK: usize = 4096;

/// Makes `dst` equal to `src` bit for bit, writing only the blocks that differ. The mapping
/// still holds the previous problem and much of the next is the same (solids, face fractions,
/// most cell kinds and coefficients), so two reads replace a read, a write and a write-back.
fn sync(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_mut(SYNC_BLOCK).zip(src.chunks(SYNC_BLOCK)) {
        if d != s {
            d.copy_from_slice(s);
        }
    }
}

/// Brings the arrays into `seg` at `offsets` ([`sync`]).
///
/// # Safety
/// `seg` is the host's writable mapping sized for `offsets` and `arrays`, and nothing else of
/// this process refers to it.
unsafe fn write_inputs(seg: &Segment, offsets: &[usize], arrays: &[&[u8]]) {
    for (a, &o) in arrays.iter().zip(offsets) {
        // SAFETY: the caller's contract.
        sync(unsafe { seg.slice_mut(o, a.len()) }, a);
    }
}

/// Brings a validated structured problem's inputs into the host's input segment.
///
/// # Safety
/// As `write_inputs`: `seg` was created for `plan` (or larger) and is lent to no problem.
pub(crate) unsafe fn write_structured(seg: &Segment, plan: &Plan, p: &Problem<'_>) {
    // SAFETY: the caller's contract.
    unsafe { write_inputs(seg, &plan.inputs, &structured_inputs(p)) }
}

/// Brings a validated CSR problem's inputs into the host's input segment.
///
/// # Safety
/// As [`write_structured`].
pub(crate) unsafe fn write_csr(seg: &Segment, plan: &Plan, p: &CsrProblem<'_>) {
    let flags: &[u8] = p.row_flags.unwrap_or(&[]);
    let arrays = [
        bytes(p.rhs),
        bytes(p.values),
        bytes(p.row_ptr),
        bytes(p.col_idx),
        flags,
    ];
    // SAFETY: the caller's contract.
    unsafe { write_inputs(seg, &plan.inputs, &arrays) }
}

/// Brings a validated coupled problem's inputs into the host's input segment.
///
/// # Safety
/// As [`write_structured`].
pub(crate) unsafe fn write_coupled(seg: &Segment, plan: &Plan, p: &CoupledProblem<'_>) {
    let b = &p.bodies;
    let mut arrays = structured_inputs(&p.grid).to_vec();
    arrays.extend([
        bytes(b.column_start),
        bytes(b.column_cells),
        bytes(b.column_values),
        bytes(b.weight),
    ]);
    // SAFETY: the caller's contract.
    unsafe { write_inputs(seg, &plan.inputs, &arrays) }
}

/// Brings a validated viscosity problem's inputs into the host's input segment.
///
/// # Safety
/// As [`write_structured`].
pub(crate) unsafe fn write_viscosity(seg: &Segment, plan: &Plan, p: &ViscosityProblem<'_>) {
    let (c, g) = (&p.csr, &p.grid);
    let arrays = [
        bytes(c.rhs),
        bytes(c.values),
        bytes(c.row_ptr),
        bytes(c.col_idx),
        &[],
        g.row_axis,
        bytes(g.row_face),
        bytes(g.face_row[0]),
        bytes(g.face_row[1]),
        bytes(g.face_row[2]),
        bytes(g.face_weight[0]),
        bytes(g.face_weight[1]),
        bytes(g.face_weight[2]),
        bytes(g.cell_weight),
        bytes(g.viscosity),
        bytes(g.edge_weight[0]),
        bytes(g.edge_weight[1]),
        bytes(g.edge_weight[2]),
    ];
    // SAFETY: the caller's contract.
    unsafe { write_inputs(seg, &plan.inputs, &arrays) }
}

/// The cancel flag both processes see (offset 0 of the exchange segment).
pub(crate) fn cancel_flag(exchange: &Segment) -> &AtomicU32 {
    // SAFETY: the mapping is page-aligned and at least HEADER bytes long (every plan's
    // exchange length); AtomicU32 has no invalid bit patterns and is shared by design.
    unsafe { &*exchange.base().cast::<AtomicU32>() }
}

/// Copies the warm-start guess into the exchange segment.
pub(crate) fn write_pressure(exchange: &Segment, src: &[f64]) {
    assert!(
        HEADER + 8 * src.len() <= exchange.len(),
        "exchange too small"
    );
    // SAFETY: in bounds (asserted) and aligned; raw copies, so the other process writing at
    // the same time (only a misbehaving child would) cannot break a reference's rules.
    unsafe {
        let dst = exchange.base().add(HEADER).cast::<f64>();
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len());
    }
}

/// Copies the solution out of the exchange segment into the host's own memory.
pub(crate) fn read_pressure(exchange: &Segment, out: &mut [f64]) {
    assert!(
        HEADER + 8 * out.len() <= exchange.len(),
        "exchange too small"
    );
    // SAFETY: as in `write_pressure`.
    unsafe {
        let src = exchange.base().add(HEADER).cast::<f64>();
        std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len());
    }
}

#[cfg(test)]
mod tests {
    use super::sync;

    #[test]
    fn sync_copies_every_differing_bit_and_only_whole_blocks() {
        let src: Vec<u8> = (0..30000).map(|i| (i % 251) as u8).collect();
        let mut dst = src.clone();
        dst[10] ^= 0x80;
        let mut src = src;
        src[29999] = 0xff;
        dst[15000] = 7;
        sync(&mut dst, &src);
        assert_eq!(dst, src);
    }
}
