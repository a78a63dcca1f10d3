//! The cycles of Chentanez & Müller 2011: red-black Gauss-Seidel smoothing, the V-cycle
//! (Alg. 3) and the full cycle (Alg. 4) on a tall-cell [`Hierarchy`].

use super::hierarchy::{Hierarchy, Level};

/// Rows per parallel task of the residual, the transfers and the set-up (smaller levels run
/// on one thread).
pub const CHUNK: usize = 2048;

/// Red-black Gauss-Seidel sweeps of `A x = b` on `level`: the even rows `(i + k + y)`, then
/// the odd ones (rows of one colour couple mostly to the other one; a tall cell's bottom and
/// top may share a colour and couple, so the sweep stays sequential: a parallel half sweep
/// that reads them from before it needs 4-10× the cycles on tall-cell grids).
pub fn smooth(level: &Level, x: &mut [f64], b: &[f64], sweeps: usize) {
    let m = &level.matrix;
    for _ in 0..sweeps {
        for colour in &level.colours {
            for &r in colour {
                let r = r as usize;
                // A row with a zero diagonal (inv_diag 0) is left alone.
                if m.inv_diag[r] != 0.0 {
                    x[r] = (b[r] - m.off_dot(r, x)) * m.inv_diag[r];
                }
            }
        }
    }
}

impl Hierarchy {
    /// One V-cycle (Alg. 3) at level `l` improving `x` for `A^l x = b`.
    pub fn v_cycle(&self, l: usize, x: &mut [f64], b: &[f64], sweeps: usize) {
        let level = &self.levels[l];
        let Some(p) = &level.from_coarse else {
            self.coarse.solve(b, x);
            return;
        };
        smooth(level, x, b, sweeps);
        let mut r = vec![0.0; x.len()];
        level.matrix.residual(b, x, &mut r);
        let n_coarse = self.levels[l + 1].matrix.rows();
        let mut bc = vec![0.0; n_coarse];
        p.restrict(&r, &mut bc);
        let mut xc = vec![0.0; n_coarse];
        self.v_cycle(l + 1, &mut xc, &bc, sweeps);
        p.add_prolonged(&xc, x);
        smooth(level, x, b, sweeps);
    }

    /// One full cycle (Alg. 4) improving `x` for the finest system `A x = b`: the residual
    /// restricted to every level, solved on the coarsest, then on each finer level the
    /// prolonged coarse solution improved by one V-cycle; the correction is added to `x`.
    pub fn full_cycle(&self, x: &mut [f64], b: &[f64], sweeps: usize) {
        let count = self.levels.len();
        let mut residuals = vec![vec![0.0; x.len()]];
        self.levels[0].matrix.residual(b, x, &mut residuals[0]);
        for l in 1..count {
            let mut rc = vec![0.0; self.levels[l].matrix.rows()];
            let p = self.levels[l - 1]
                .from_coarse
                .as_ref()
                .expect("a coarser level");
            p.restrict(&residuals[l - 1], &mut rc);
            residuals.push(rc);
        }
        let mut p_coarse = vec![0.0; self.levels[count - 1].matrix.rows()];
        self.coarse.solve(&residuals[count - 1], &mut p_coarse);
        for l in (0..count - 1).rev() {
            let mut p_l = vec![0.0; self.levels[l].matrix.rows()];
            let p = self.levels[l]
                .from_coarse
                .as_ref()
                .expect("a coarser level");
            p.add_prolonged(&p_coarse, &mut p_l);
            self.v_cycle(l, &mut p_l, &residuals[l], sweeps);
            p_coarse = p_l;
        }
        for (xi, d) in x.iter_mut().zip(&p_coarse) {
            *xi += d;
        }
    }
}
