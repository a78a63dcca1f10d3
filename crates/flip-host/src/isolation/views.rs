//! The problem as each side sees it in the shared segments ([`super::shm`] layout): the
//! child's views (inputs read-only, pressure writable), and the host's lending of its input
//! segment to an [`OwnedProblem`], so the problem is assembled where the child reads it.

use super::segment::Segment;
use super::shm::{self, Plan};
use super::wire::SolveMeta;
use flip_sdk::{
    Array, BodyTerms, CoupledProblem, CsrProblem, OwnedProblem, Problem, ViscosityGrid,
    ViscosityProblem,
};
use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

/// The plan of `meta`, checked against both mappings.
fn checked_plan(inputs: &Segment, exchange: &Segment, meta: &SolveMeta) -> Result<Plan, String> {
    let plan = shm::plan(meta);
    if plan.inputs_len > inputs.len() || plan.exchange_len() > exchange.len() {
        return Err(format!(
            "problem of {} + {} bytes in mappings of {} + {}",
            plan.inputs_len,
            plan.exchange_len(),
            inputs.len(),
            exchange.len()
        ));
    }
    Ok(plan)
}

/// The child's view of the structured problem in the segments.
///
/// # Safety
/// The host wrote a problem for `meta`, and nothing else in this process uses the exchange
/// mapping while the view lives.
pub(crate) unsafe fn structured_view<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    meta: &SolveMeta,
) -> Result<Problem<'a>, String> {
    let SolveMeta::Structured {
        dims,
        dimension,
        dx,
        lcp,
        step,
    } = *meta
    else {
        return Err("not a structured problem".into());
    };
    let plan = checked_plan(inputs, exchange, meta)?;
    let head = GridHead {
        dims,
        dimension,
        dx,
        lcp,
        step,
    };
    // SAFETY: the plan fits the mappings (checked); the caller's promise covers the rest.
    Ok(unsafe { grid_part(inputs, exchange, &plan, head) })
}

/// The scalars of a structured problem's grid, as the wire carries them.
struct GridHead {
    dims: [u64; 3],
    dimension: u32,
    dx: f64,
    lcp: bool,
    step: u64,
}

/// The structured part of a problem: the first twelve inputs of `plan`, the pressure in the
/// exchange segment.
///
/// # Safety
/// `plan` was checked against both mappings (every offset is aligned), the host wrote the
/// problem, and nothing else in this process uses the exchange mapping while the view lives.
unsafe fn grid_part<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    plan: &Plan,
    head: GridHead,
) -> Problem<'a> {
    let (o, n) = (&plan.inputs, plan.rows);
    // SAFETY: the inputs are only read; the offsets fit the mappings (the caller's promise).
    unsafe {
        let f = |i: usize| -> &'a [f32] { inputs.slice(o[i], n) };
        Problem {
            dims: head.dims.map(|d| d as usize),
            dimension: head.dimension as usize,
            dx: head.dx,
            lcp: head.lcp,
            step: head.step,
            rhs: inputs.slice(o[0], n),
            diag: f(1),
            off: [f(2), f(3), f(4)],
            liquid_phi: f(5),
            solid_phi: f(6),
            face_open: [f(7), f(8), f(9)],
            cell_kind: inputs.slice(o[10], n),
            complementarity: inputs.slice(o[11], n),
            pressure: exchange.slice_mut(shm::HEADER, n),
        }
    }
}

/// The child's view of the coupled problem in the segments, validated.
///
/// # Safety
/// As [`structured_view`].
pub(crate) unsafe fn coupled_view<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    meta: &SolveMeta,
) -> Result<CoupledProblem<'a>, String> {
    let SolveMeta::Coupled {
        dims,
        dimension,
        dx,
        step,
        bodies,
        dofs,
        entries,
    } = *meta
    else {
        return Err("not a coupled problem".into());
    };
    let plan = checked_plan(inputs, exchange, meta)?;
    let o = &plan.inputs;
    let (columns, entries) = (bodies as usize * dofs as usize, entries as usize);
    let head = GridHead {
        dims,
        dimension,
        dx,
        lcp: false,
        step,
    };
    // SAFETY: as in `structured_view`.
    let view = unsafe {
        CoupledProblem {
            grid: grid_part(inputs, exchange, &plan, head),
            bodies: BodyTerms {
                dofs: dofs as usize,
                column_start: inputs.slice(o[12], columns + 1),
                column_cells: inputs.slice(o[13], entries),
                column_values: inputs.slice(o[14], entries),
                weight: inputs.slice(o[15], columns * dofs as usize),
            },
        }
    };
    view.validate().map_err(|e| e.to_string())?;
    Ok(view)
}

/// The child's view of the CSR problem in the segments.
///
/// # Safety
/// As [`structured_view`].
pub(crate) unsafe fn csr_view<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    meta: &SolveMeta,
) -> Result<CsrProblem<'a>, String> {
    let SolveMeta::Csr {
        rows,
        nnz,
        symmetric,
        lcp,
        step,
        flags,
    } = *meta
    else {
        return Err("not a CSR problem".into());
    };
    let plan = checked_plan(inputs, exchange, meta)?;
    let (o, rows, nnz) = (&plan.inputs, rows as usize, nnz as usize);
    // SAFETY: as in `structured_view`.
    unsafe {
        Ok(CsrProblem {
            symmetric,
            lcp,
            step,
            rhs: inputs.slice(o[0], rows),
            values: inputs.slice(o[1], nnz),
            row_ptr: inputs.slice(o[2], rows + 1),
            col_idx: inputs.slice(o[3], nnz),
            row_flags: flags.then(|| inputs.slice(o[4], rows)),
            pressure: exchange.slice_mut(shm::HEADER, rows),
        })
    }
}

/// The child's view of the viscosity problem in the segments.
///
/// # Safety
/// As [`structured_view`].
pub(crate) unsafe fn viscosity_view<'a>(
    inputs: &'a Segment,
    exchange: &'a Segment,
    meta: &SolveMeta,
) -> Result<ViscosityProblem<'a>, String> {
    let SolveMeta::Viscosity {
        rows,
        nnz,
        step,
        dims,
        dimension,
        dx,
        dt,
    } = *meta
    else {
        return Err("not a viscosity problem".into());
    };
    let plan = checked_plan(inputs, exchange, meta)?;
    let (o, rows, nnz) = (&plan.inputs, rows as usize, nnz as usize);
    let dims = dims.map(|d| d as usize);
    let dim = dimension as usize;
    let faces = |a: usize| {
        if a < dim {
            flip_sdk::viscosity::face_count(dims, a)
        } else {
            0
        }
    };
    let edges = |a: usize| flip_sdk::viscosity::edge_count(dims, dim, a);
    let cells = dims.iter().product::<usize>();
    // SAFETY: as in `structured_view`.
    unsafe {
        let f = |i: usize, n: usize| -> &'a [f32] { inputs.slice(o[i], n) };
        let u = |i: usize, n: usize| -> &'a [u32] { inputs.slice(o[i], n) };
        let view = ViscosityProblem {
            csr: CsrProblem {
                symmetric: true,
                lcp: false,
                step,
                rhs: inputs.slice(o[0], rows),
                values: inputs.slice(o[1], nnz),
                row_ptr: inputs.slice(o[2], rows + 1),
                col_idx: inputs.slice(o[3], nnz),
                row_flags: None,
                pressure: exchange.slice_mut(shm::HEADER, rows),
            },
            grid: ViscosityGrid {
                dimension: dim,
                dims,
                dx,
                dt,
                row_axis: inputs.slice(o[5], rows),
                row_face: u(6, rows),
                face_row: [u(7, faces(0)), u(8, faces(1)), u(9, faces(2))],
                face_weight: [f(10, faces(0)), f(11, faces(1)), f(12, faces(2))],
                cell_weight: f(13, cells),
                viscosity: f(14, cells),
                edge_weight: [f(15, edges(0)), f(16, edges(1)), f(17, edges(2))],
            },
        };
        view.validate().map_err(|e| e.to_string())?;
        Ok(view)
    }
}

/// Moves `a` (of `n` elements) into `seg` at `offset`, contents kept, and lends it back.
///
/// # Safety
/// `offset..offset + n·size_of::<T>()` lies in `seg`'s writable mapping, aligned for `T`, and
/// nothing else of this process refers to it.
unsafe fn lend<T: Copy>(seg: &Arc<Segment>, offset: usize, a: &mut Array<T>) {
    let n = a.len();
    // SAFETY: the caller's contract; the mapping is never null.
    unsafe {
        let ptr = seg.base().add(offset).cast::<T>();
        std::ptr::copy_nonoverlapping(a.as_ptr(), ptr, n);
        let owner: Arc<dyn Any + Send + Sync> = seg.clone();
        *a = Array::lent(NonNull::new_unchecked(ptr), n, owner);
    }
}

/// Moves the input arrays of `p` into `seg` (laid out by `plan`, `p`'s own), contents kept:
/// from then on `p` is assembled where the child reads it. `false`, and nothing moved, when an
/// array's length is not the plan's.
///
/// # Safety
/// `seg` is the host's writable input mapping, at least `plan.inputs_len` bytes, and no other
/// array or reference of this process refers to it.
pub(crate) unsafe fn lend_structured(
    seg: &Arc<Segment>,
    plan: &Plan,
    p: &mut OwnedProblem,
) -> bool {
    let n = plan.rows;
    let f32s = [&p.diag, &p.liquid_phi, &p.solid_phi];
    let sized = f32s
        .into_iter()
        .chain(&p.off)
        .chain(&p.face_open)
        .all(|a| a.len() == n)
        && [p.rhs.len(), p.cell_kind.len(), p.complementarity.len()] == [n; 3];
    if !sized || plan.inputs_len > seg.len() {
        return false;
    }
    let o = &plan.inputs;
    // SAFETY: the caller's contract; each array gets its own slot of the plan.
    unsafe {
        lend(seg, o[0], &mut p.rhs);
        lend(seg, o[1], &mut p.diag);
        for a in 0..3 {
            lend(seg, o[2 + a], &mut p.off[a]);
            lend(seg, o[7 + a], &mut p.face_open[a]);
        }
        lend(seg, o[5], &mut p.liquid_phi);
        lend(seg, o[6], &mut p.solid_phi);
        lend(seg, o[10], &mut p.cell_kind);
        lend(seg, o[11], &mut p.complementarity);
    }
    true
}
