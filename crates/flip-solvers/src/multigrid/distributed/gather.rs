//! The whole matrix on every rank: the owned slabs of the arrays the hierarchy reads (cell
//! kinds, diagonal, couplings and, for rediscretisation, open fractions), gathered into one
//! global problem kept between solves (no allocation once the grid size is known).

use flip_sdk::{Distributed, OwnedProblem, Problem, SolveError};
use rayon::prelude::*;

/// The gathered global problem and the buffers of its gathers.
#[derive(Default)]
pub(super) struct GlobalProblem {
    pub problem: OwnedProblem,
    send: Vec<f64>,
    recv: Vec<f64>,
}

impl GlobalProblem {
    /// Gathers `p`'s matrix arrays (this rank's slab) from every rank.
    ///
    /// # Errors
    /// A failed gather.
    pub fn gather(
        &mut self,
        d: &Distributed,
        p: &Problem<'_>,
        face_open: bool,
    ) -> Result<&mut OwnedProblem, SolveError> {
        let dims = d.layout().global_dims.map(|v| v as usize);
        if self.problem.dims != dims || self.problem.dx != p.dx {
            self.problem = OwnedProblem::empty(dims, p.dx);
            self.recv = vec![0.0; self.problem.cell_count()];
        }
        self.send.resize(p.cell_kind.len(), 0.0);
        let g = &mut self.problem;
        fill(&mut self.send, p.cell_kind, f64::from);
        d.all_gather(&self.send, &mut self.recv)?;
        unload(&self.recv, &mut g.cell_kind[..], |v| v as u8);
        let mut arrays = vec![(p.diag, &mut g.diag[..])];
        let [o0, o1, o2] = &mut g.off;
        arrays.extend([(p.off[0], &mut o0[..]), (p.off[1], &mut o1[..])]);
        if p.dims[2] > 1 {
            arrays.push((p.off[2], &mut o2[..]));
        }
        if face_open {
            let [f0, f1, f2] = &mut g.face_open;
            arrays.extend([(p.face_open[0], &mut f0[..]), (p.face_open[1], &mut f1[..])]);
            if p.dims[2] > 1 {
                arrays.push((p.face_open[2], &mut f2[..]));
            }
        }
        for (src, dst) in arrays {
            fill(&mut self.send, src, f64::from);
            d.all_gather(&self.send, &mut self.recv)?;
            unload(&self.recv, dst, |v| v as f32);
        }
        Ok(&mut self.problem)
    }
}

/// `out[i] = f(src[i])`, in parallel.
fn fill<T: Copy + Sync>(out: &mut [f64], src: &[T], f: impl Fn(T) -> f64 + Sync) {
    out.par_iter_mut().zip(src).for_each(|(o, &s)| *o = f(s));
}

/// `out[i] = f(src[i])`, in parallel.
fn unload<T: Send>(src: &[f64], out: &mut [T], f: impl Fn(f64) -> T + Sync) {
    out.par_iter_mut().zip(src).for_each(|(o, &s)| *o = f(s));
}
