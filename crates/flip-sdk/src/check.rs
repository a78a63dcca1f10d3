//! The residual of a returned pressure, as the host recomputes it to check a solver's claim
//! (`SolveStats::residual`): `‖rhs − A p‖∞` over the unknowns, projected on pure-Neumann regions
//! (as the solvers report it), and for LCP rows `|min(p, A p − rhs)|`.
//!
//! The conventions solvers legitimately differ in are resolved in the solver's favour: on a
//! pure-Neumann region a row counts with the smaller of its raw and projected residual, and an
//! LCP row with the smaller of `|min(p, w)|` and `|min(a_ii p, w)|` (the diagonal-scaled form
//! FAS multigrid uses). Everything else is exact, so a solver that claims convergence and
//! returns p = 0, or a finite but absurd p, is caught.

use super::{CoupledProblem, CsrProblem, Problem};
use crate::regions::{Couplings, Grid, Regions};

/// The recomputed residual of a solution.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residual {
    /// Max-norm of the residual (see the module docs).
    pub max: f64,
    /// Largest `|rhs| + Σ |a_ij p_j|` of a row: the size of the terms whose rounding the
    /// residual may carry.
    pub scale: f64,
    /// `‖rhs‖∞` over the unknowns.
    pub rhs_norm: f64,
    /// Whether every unknown of `p` is finite.
    pub finite: bool,
}

/// Per-row terms before the region projection.
struct Row {
    r: f64,
    lcp: Option<(f64, f64)>,
}

/// Folds per-row terms into the residual, projecting singular regions.
fn finish(rows: &[Option<Row>], label: &[u32], singular: &[bool]) -> f64 {
    let (mut sum, mut count) = (vec![0.0f64; singular.len()], vec![0usize; singular.len()]);
    for (row, &l) in rows.iter().zip(label) {
        if let (Some(row), true) = (row, l != u32::MAX && singular[l as usize]) {
            sum[l as usize] += row.r;
            count[l as usize] += 1;
        }
    }
    let mut max = 0.0f64;
    for (row, &l) in rows.iter().zip(label) {
        let Some(row) = row else { continue };
        let value = match row.lcp {
            Some((p, d)) => (-row.r).min(p).abs().min((-row.r).min(d * p).abs()),
            None if l != u32::MAX && singular[l as usize] => {
                let mean = sum[l as usize] / count[l as usize] as f64;
                row.r.abs().min((row.r - mean).abs())
            }
            None => row.r.abs(),
        };
        max = if value.is_nan() {
            f64::NAN
        } else {
            max.max(value)
        };
    }
    max
}

/// One pass over the unknowns without the region projection: each row counts with its raw
/// residual (LCP rows with the smaller of their two forms). Never below [`structured`]'s value,
/// so a result it accepts `structured` accepts too; about twice as fast as one matrix product.
pub fn structured_raw(p: &Problem<'_>) -> Residual {
    structured_raw_rows(p, 0..p.cell_count())
}

/// [`structured_raw`] over the rows in `rows` only: one rank's owned cells of a distributed
/// problem (its ghost rows lack the couplings beyond the slab).
pub fn structured_raw_rows(p: &Problem<'_>, rows: std::ops::Range<usize>) -> Residual {
    use rayon::prelude::*;
    /// Rows per parallel task.
    const CHUNK: usize = 4096;
    let n = p.cell_count();
    let rows = rows.start.min(n)..rows.end.min(n);
    let empty = Residual {
        finite: true,
        ..Residual::default()
    };
    let axes = axes(p);
    let chunks = rows.len().div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|ch| {
            let lo = rows.start + ch * CHUNK;
            let part = lo..(lo + CHUNK).min(rows.end);
            part.filter(|&c| p.is_fluid(c))
                .fold(empty, |acc, c| merge(acc, raw_row(p, &axes, c)))
        })
        .reduce(|| empty, merge)
}

/// Index strides of the three axes of `p`'s grid.
fn strides(p: &Problem<'_>) -> [usize; 3] {
    [1, p.dims[0], p.dims[0] * p.dims[1]]
}

/// The couplings and index stride of every axis of `p` longer than one cell (an axis of one
/// cell has no neighbours along it).
fn axes<'p>(p: &'p Problem<'_>) -> Vec<(&'p [f32], usize)> {
    let s = strides(p);
    (0..3)
        .filter(|&a| p.dims[a] > 1)
        .map(|a| (&*p.off[a], s[a]))
        .collect()
}

/// `(A p)_c` and `Σ_j |a_cj p_j|` of row `c` (`axes` from [`axes`]).
fn row_product(p: &Problem<'_>, axes: &[(&[f32], usize)], c: usize) -> (f64, f64) {
    let (n, x) = (p.cell_count(), &*p.pressure);
    let d = f64::from(p.diag[c]);
    let (mut ax, mut abs) = (d * x[c], (d * x[c]).abs());
    for &(off, sa) in axes {
        for (m, o) in [(c + sa, c), (c.wrapping_sub(sa), c.wrapping_sub(sa))] {
            if m < n && off[o] != 0.0 {
                let t = f64::from(off[o]) * x[m];
                ax += t;
                abs += t.abs();
            }
        }
    }
    (ax, abs)
}

/// Row `c`'s raw residual as a one-row [`Residual`].
fn raw_row(p: &Problem<'_>, axes: &[(&[f32], usize)], c: usize) -> Residual {
    let x = &*p.pressure;
    let d = f64::from(p.diag[c]);
    let (ax, abs) = row_product(p, axes, c);
    let r = p.rhs[c] - ax;
    let max = if p.lcp && p.complementarity[c] != 0 {
        (-r).min(x[c]).abs().min((-r).min(d * x[c]).abs())
    } else {
        r.abs()
    };
    Residual {
        max,
        scale: abs + p.rhs[c].abs(),
        rhs_norm: p.rhs[c].abs(),
        finite: x[c].is_finite(),
    }
}

/// Two parts' residuals as one (a NaN residual stays NaN).
fn merge(a: Residual, b: Residual) -> Residual {
    Residual {
        max: if a.max.is_nan() || b.max.is_nan() {
            f64::NAN
        } else {
            a.max.max(b.max)
        },
        scale: a.scale.max(b.scale),
        rhs_norm: a.rhs_norm.max(b.rhs_norm),
        finite: a.finite && b.finite,
    }
}

/// The residual of `p.pressure` for the structured problem `p`.
pub fn structured(p: &Problem<'_>) -> Residual {
    let n = p.cell_count();
    let axes = axes(p);
    let x = &*p.pressure;
    let mut out = Residual {
        finite: true,
        ..Residual::default()
    };
    let rows: Vec<Option<Row>> = (0..n)
        .map(|c| {
            if !p.is_fluid(c) {
                return None;
            }
            let d = f64::from(p.diag[c]);
            let (ax, abs) = row_product(p, &axes, c);
            out.finite &= x[c].is_finite();
            out.rhs_norm = out.rhs_norm.max(p.rhs[c].abs());
            out.scale = out.scale.max(abs + p.rhs[c].abs());
            let on_s = p.lcp && p.complementarity[c] != 0;
            Some(Row {
                r: p.rhs[c] - ax,
                lcp: on_s.then_some((x[c], d)),
            })
        })
        .collect();
    let Regions {
        label, singular, ..
    } = Regions::of(&Grid::of(p));
    out.max = finish(&rows, &label, &singular);
    out
}

/// [`coupled`] without the region projection, in one parallel pass (as [`structured_raw`]):
/// never below [`coupled`]'s value, so a result it accepts `coupled` accepts too.
pub fn coupled_raw(p: &CoupledProblem<'_>) -> Residual {
    use rayon::prelude::*;
    /// Rows per parallel task.
    const CHUNK: usize = 4096;
    let g = &p.grid;
    let mut low_rank = vec![0.0; g.cell_count()];
    p.bodies.add_low_rank(g.pressure, &mut low_rank);
    let axes = axes(g);
    let empty = Residual {
        finite: true,
        ..Residual::default()
    };
    let n = g.cell_count();
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ch| {
            let rows = ch * CHUNK..((ch + 1) * CHUNK).min(n);
            rows.filter(|&c| g.is_fluid(c)).fold(empty, |acc, c| {
                let (ax, abs) = row_product(g, &axes, c);
                let row = Residual {
                    max: (g.rhs[c] - ax - low_rank[c]).abs(),
                    scale: abs + low_rank[c].abs() + g.rhs[c].abs(),
                    rhs_norm: g.rhs[c].abs(),
                    finite: g.pressure[c].is_finite(),
                };
                merge(acc, row)
            })
        })
        .reduce(|| empty, merge)
}

/// The residual of `p.grid.pressure` for the coupled problem `p`: that of
/// `(A + J C Jᵀ) p = rhs`, projected on pure-Neumann regions of the grid as [`structured`].
pub fn coupled(p: &CoupledProblem<'_>) -> Residual {
    let g = &p.grid;
    let axes = axes(g);
    let x = &*g.pressure;
    let mut low_rank = vec![0.0; g.cell_count()];
    p.bodies.add_low_rank(x, &mut low_rank);
    let mut out = Residual {
        finite: true,
        ..Residual::default()
    };
    let rows: Vec<Option<Row>> = (0..g.cell_count())
        .map(|c| {
            if !g.is_fluid(c) {
                return None;
            }
            let (ax, abs) = row_product(g, &axes, c);
            out.finite &= x[c].is_finite();
            out.rhs_norm = out.rhs_norm.max(g.rhs[c].abs());
            out.scale = out.scale.max(abs + low_rank[c].abs() + g.rhs[c].abs());
            Some(Row {
                r: g.rhs[c] - ax - low_rank[c],
                lcp: None,
            })
        })
        .collect();
    let Regions {
        label, singular, ..
    } = Regions::of(&Grid::of(g));
    out.max = finish(&rows, &label, &singular);
    out
}

/// The residual of `p.pressure` for the sparse problem `p`.
pub fn csr(p: &CsrProblem<'_>) -> Residual {
    let n = p.rows();
    let x = &*p.pressure;
    let mut out = Residual {
        finite: x.iter().all(|v| v.is_finite()),
        ..Residual::default()
    };
    let diag = |r: usize| p.row(r).find(|&(c, _)| c == r).map_or(0.0, |e| e.1);
    let rows: Vec<Option<Row>> = (0..n)
        .map(|r| {
            let (ax, abs) = csr_row_product(p, r, x);
            out.rhs_norm = out.rhs_norm.max(p.rhs[r].abs());
            out.scale = out.scale.max(abs + p.rhs[r].abs());
            Some(Row {
                r: p.rhs[r] - ax,
                lcp: p.is_complementarity(r).then(|| (x[r], diag(r))),
            })
        })
        .collect();
    let Regions {
        label, singular, ..
    } = csr_regions(p);
    out.max = finish(&rows, &label, &singular);
    out
}

/// The residual of a positive definite sparse problem (the viscosity kind): every row counts
/// with its raw residual, no component is projected.
pub fn csr_definite(p: &CsrProblem<'_>) -> Residual {
    let x = &*p.pressure;
    let mut out = Residual {
        finite: x.iter().all(|v| v.is_finite()),
        ..Residual::default()
    };
    for r in 0..p.rows() {
        let (ax, abs) = csr_row_product(p, r, x);
        out.rhs_norm = out.rhs_norm.max(p.rhs[r].abs());
        out.scale = out.scale.max(abs + p.rhs[r].abs());
        let res = (p.rhs[r] - ax).abs();
        out.max = if res.is_nan() {
            f64::NAN
        } else {
            out.max.max(res)
        };
    }
    out
}

/// `(A x)[r]` and `Σ |A[r][c]·x[c]|` (the scale its rounding is judged against) of CSR row `r`.
fn csr_row_product(p: &CsrProblem<'_>, r: usize, x: &[f64]) -> (f64, f64) {
    p.row(r).fold((0.0, 0.0), |(ax, abs), (c, v)| {
        (ax + v * x[c], abs + (v * x[c]).abs())
    })
}

/// The coupling graph of a symmetric sparse problem (no unknowns when it is not symmetric).
struct CsrCouplings<'p, 'a>(&'p CsrProblem<'a>);

impl Couplings for CsrCouplings<'_, '_> {
    fn len(&self) -> usize {
        self.0.rows()
    }
    fn unknown(&self, _: usize) -> bool {
        self.0.symmetric
    }
    fn dirichlet(&self, r: usize) -> bool {
        let (mut diag, mut off) = (0.0, 0.0);
        for (c, a) in self.0.row(r) {
            if c == r {
                diag = a;
            } else {
                off += a.abs();
            }
        }
        diag > off + 1e-6
    }
    fn coupled_to_next(&self, _: usize) -> bool {
        false
    }
    fn earlier(&self, r: usize, mut f: impl FnMut(usize)) {
        for (c, a) in self.0.row(r) {
            if c < r && a != 0.0 {
                f(c);
            }
        }
    }
}

/// The [`Regions`] of `p` (none unless `p.symmetric`): the projection rule of
/// `abi::CsrProblem`, shared by the host's check and the CSR solvers.
pub fn csr_regions(p: &CsrProblem<'_>) -> Regions {
    Regions::of(&CsrCouplings(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OwnedCsr, OwnedProblem};

    /// 4×1 cells: air, fluid, fluid, air (A = [[2,-1],[-1,2]]), rhs = [1, 2].
    fn tiny() -> OwnedProblem {
        let mut p = OwnedProblem::empty([4, 1, 1], 1.0);
        p.cell_kind = vec![1, 0, 0, 1].into();
        p.assemble_matrix();
        p.rhs = vec![0.0, 1.0, 2.0, 0.0].into();
        p
    }

    #[test]
    fn residuals_of_exact_and_wrong_solutions() {
        let mut p = tiny();
        assert_eq!(p.diag, vec![0.0, 2.0, 2.0, 0.0]);
        p.pressure = vec![0.0, 4.0 / 3.0, 5.0 / 3.0, 0.0];
        assert_eq!(structured_raw(&p.view()), structured(&p.view()));
        let exact = structured(&p.view());
        assert!(exact.max < 1e-15 && exact.finite, "{exact:?}");
        p.pressure = vec![0.0; 4];
        let zero = structured(&p.view());
        assert_eq!((zero.max, zero.rhs_norm), (2.0, 2.0));
        // The same through the CSR form.
        let mut c = OwnedCsr::from_structured(&p.view());
        assert_eq!(c.row_ptr, vec![0, 2, 4]);
        assert_eq!(csr(&c.view()).max, 2.0);
        c.pressure = vec![4.0 / 3.0, 5.0 / 3.0];
        assert!(csr(&c.view()).max < 1e-15);
    }

    #[test]
    fn neumann_regions_are_projected() {
        // Two fluid cells between solid walls: singular; rhs = [1, 1] is incompatible.
        let mut p = tiny();
        p.cell_kind = vec![2, 0, 0, 2].into();
        p.assemble_matrix();
        p.rhs = vec![0.0, 1.0, 1.0, 0.0].into();
        assert!(structured(&p.view()).max < 1e-15, "projected rhs is 0");
        assert_eq!(
            structured_raw(&p.view()).max,
            1.0,
            "the raw residual is not projected"
        );
        p.pressure[1] = 1.0;
        assert!((structured(&p.view()).max - 1.0).abs() < 1e-15);
    }
}
