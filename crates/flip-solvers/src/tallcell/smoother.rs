//! Chentanez & Müller 2011's smoother on a tall-cell level: red-black Gauss-Seidel.

use super::hierarchy::Level;
use crate::hierarchy::Smoother;

/// Red-black Gauss-Seidel sweeps of `A x = b`: the even rows `(i + k + y)`, then the odd ones
/// (rows of one colour couple mostly to the other one; a tall cell's bottom and top may share a
/// colour and couple, so the sweep stays sequential: a parallel half sweep that reads them from
/// before it needs 4-10× the cycles on tall-cell grids).
pub(crate) struct SequentialRedBlack;

impl SequentialRedBlack {
    /// One sweep over the colours in `order`.
    fn sweep(level: &mut Level, order: [usize; 2]) {
        let (m, x, b) = (&level.matrix, &mut level.x, &level.b);
        for colour in order {
            for &r in &level.colours[colour] {
                let r = r as usize;
                // A row with a zero diagonal (inv_diag 0) is left alone.
                if m.inv_diag[r] != 0.0 {
                    x[r] = (b[r] - m.off_dot(r, x)) * m.inv_diag[r];
                }
            }
        }
    }
}

impl Smoother<Level> for SequentialRedBlack {
    fn forward(&self, level: &mut Level, sweeps: usize, zero_guess: bool) {
        if zero_guess {
            level.x.fill(0.0);
        }
        for _ in 0..sweeps {
            Self::sweep(level, [0, 1]);
        }
    }
    fn backward(&self, level: &mut Level, sweeps: usize) {
        for _ in 0..sweeps {
            Self::sweep(level, [1, 0]);
        }
    }
    /// Colours are not split in storage: a prolongation fills all of `x`.
    fn reads_first(&self, _: bool) -> Option<usize> {
        None
    }
}
