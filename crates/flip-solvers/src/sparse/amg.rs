//! Aggregation algebraic multigrid on a CSR matrix, as a CG preconditioner: greedy aggregates
//! of strongly coupled unknowns of one component (Vaněk, Mandel & Brezina 1996, §3, without
//! the prolongator smoothing), piecewise-constant transfers, Galerkin coarse operators
//! `A_c = Pᵀ A P`, symmetric Gauss-Seidel smoothing and a dense Cholesky solve of the coarsest
//! level. Forward pre-smoothing and backward post-smoothing with an exact coarse solve make one
//! V-cycle a symmetric positive definite operator (the MGPCG preconditioner of McAdams, Sifakis
//! & Teran 2010, here algebraic).

use flip_sdk::CsrProblem;

/// Strength threshold: `j` is a strong neighbour of `i` when `|a_ij| ≥ θ √(a_ii a_jj)`.
const THETA: f64 = 0.08;
/// Levels stop coarsening below this many unknowns (solved densely).
const COARSEST: usize = 600;
/// A coarsest level larger than this (coarsening stalled: no strong couplings, as with a
/// small viscosity) is relaxed by the smoother's symmetric Gauss-Seidel sweeps instead of a
/// dense solve. With no strong couplings left the sweeps reduce its error about as well as a
/// solve: on a 48³ dam-break column at ν = 0.01 (a stalled second level of 19 k unknowns) one
/// pair of sweeps takes as many CG iterations as eight pairs did (5) and the solve about 30 %
/// less time.
const DENSE_MAX: usize = 1500;

/// A square sparse matrix in compressed rows (sorted columns, diagonal present).
#[derive(Clone, Debug, Default)]
struct Matrix {
    ptr: Vec<usize>,
    col: Vec<u32>,
    val: Vec<f64>,
}

impl Matrix {
    fn rows(&self) -> usize {
        self.ptr.len() - 1
    }

    fn row(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.ptr[i], self.ptr[i + 1]);
        self.col[a..b]
            .iter()
            .zip(&self.val[a..b])
            .map(|(&c, &v)| (c as usize, v))
    }

    fn diag(&self, i: usize) -> f64 {
        self.row(i).find(|&(c, _)| c == i).map_or(0.0, |(_, v)| v)
    }
}

/// One level: its matrix, the aggregate of each unknown (its row on the next level) and its
/// vectors.
struct Level {
    a: Matrix,
    inv_diag: Vec<f64>,
    aggregate: Vec<u32>,
    x: Vec<f64>,
    b: Vec<f64>,
    r: Vec<f64>,
}

/// The hierarchy of one matrix.
pub struct Amg {
    levels: Vec<Level>,
    /// Dense Cholesky factor of the coarsest matrix (row-major lower triangle); empty when
    /// it is too large ([`DENSE_MAX`]).
    coarse: Vec<f64>,
    sweeps: usize,
}

impl Amg {
    /// The hierarchy of `p`'s matrix; `component` (one label per row, or none) keeps
    /// aggregates within one component (the axis of a velocity unknown).
    pub fn new(p: &CsrProblem<'_>, component: Option<&[u8]>, sweeps: usize) -> Self {
        let a = Matrix {
            ptr: p.row_ptr.iter().map(|&x| x as usize).collect(),
            col: p.col_idx.to_vec(),
            val: p.values.to_vec(),
        };
        let mut labels: Vec<u8> = component.map_or_else(|| vec![0; a.rows()], <[u8]>::to_vec);
        let mut levels = Vec::new();
        let mut a = a;
        loop {
            let n = a.rows();
            let (aggregate, count, coarse_labels) = if n > COARSEST {
                aggregate(&a, &labels)
            } else {
                (Vec::new(), 0, Vec::new())
            };
            let stop = n <= COARSEST || count == 0 || count * 10 > n * 9;
            let next = (!stop).then(|| galerkin(&a, &aggregate, count));
            let inv_diag = (0..n).map(|i| 1.0 / a.diag(i)).collect();
            levels.push(Level {
                a,
                inv_diag,
                aggregate: if stop { Vec::new() } else { aggregate },
                x: vec![0.0; n],
                b: vec![0.0; n],
                r: vec![0.0; n],
            });
            match next {
                Some(c) => {
                    a = c;
                    labels = coarse_labels;
                }
                None => break,
            }
        }
        let last = &levels.last().expect("one level").a;
        let coarse = if last.rows() <= DENSE_MAX {
            cholesky(last)
        } else {
            Vec::new()
        };
        Self {
            levels,
            coarse,
            sweeps,
        }
    }

    /// Number of levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// `z = M⁻¹ r`: one symmetric V-cycle from a zero guess.
    pub fn apply(&mut self, r: &[f64], z: &mut [f64]) {
        self.levels[0].b.copy_from_slice(r);
        self.vcycle(0);
        z.copy_from_slice(&self.levels[0].x);
    }

    fn vcycle(&mut self, l: usize) {
        if l + 1 == self.levels.len() {
            let lev = &mut self.levels[l];
            if self.coarse.is_empty() {
                // forward then backward sweeps from zero: a symmetric positive definite operator
                lev.x.iter_mut().for_each(|v| *v = 0.0);
                for _ in 0..self.sweeps {
                    gauss_seidel(lev, false);
                    gauss_seidel(lev, true);
                }
            } else {
                lev.x.copy_from_slice(&lev.b);
                cholesky_solve(&self.coarse, &mut lev.x);
            }
            return;
        }
        {
            let lev = &mut self.levels[l];
            lev.x.iter_mut().for_each(|v| *v = 0.0);
            for _ in 0..self.sweeps {
                gauss_seidel(lev, false);
            }
            for i in 0..lev.a.rows() {
                lev.r[i] = lev.b[i] - lev.a.row(i).map(|(c, v)| v * lev.x[c]).sum::<f64>();
            }
        }
        let (fine, coarse) = self.levels.split_at_mut(l + 1);
        let (f, c) = (&mut fine[l], &mut coarse[0]);
        c.b.iter_mut().for_each(|v| *v = 0.0);
        for (i, &g) in f.aggregate.iter().enumerate() {
            c.b[g as usize] += f.r[i]; // R = Pᵀ
        }
        self.vcycle(l + 1);
        let (fine, coarse) = self.levels.split_at_mut(l + 1);
        let (f, c) = (&mut fine[l], &coarse[0]);
        for (i, &g) in f.aggregate.iter().enumerate() {
            f.x[i] += c.x[g as usize]; // P: piecewise constant
        }
        for _ in 0..self.sweeps {
            gauss_seidel(f, true);
        }
    }
}

/// One Gauss-Seidel sweep of `A x = b`, forward or backward.
fn gauss_seidel(lev: &mut Level, backward: bool) {
    let n = lev.a.rows();
    let mut step = |i: usize| {
        let mut s = lev.b[i];
        for (c, v) in lev.a.row(i) {
            if c != i {
                s -= v * lev.x[c];
            }
        }
        lev.x[i] = s * lev.inv_diag[i];
    };
    if backward {
        (0..n).rev().for_each(&mut step);
    } else {
        (0..n).for_each(&mut step);
    }
}

/// The strong neighbours of every unknown (`|a_ij| ≥ θ √(a_ii a_jj)` within one component),
/// in compressed rows, computed once per level.
struct Strong {
    ptr: Vec<usize>,
    col: Vec<u32>,
}

impl Strong {
    fn new(a: &Matrix, labels: &[u8]) -> Self {
        let diag: Vec<f64> = (0..a.rows()).map(|i| a.diag(i)).collect();
        let mut ptr = Vec::with_capacity(a.rows() + 1);
        let mut col = Vec::with_capacity(a.col.len());
        ptr.push(0);
        for i in 0..a.rows() {
            col.extend(
                a.row(i)
                    .filter(|&(c, v)| {
                        c != i
                            && labels[c] == labels[i]
                            && v.abs() >= THETA * (diag[i] * diag[c]).abs().sqrt()
                    })
                    .map(|(c, _)| c as u32),
            );
            ptr.push(col.len());
        }
        Self { ptr, col }
    }

    fn of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.col[self.ptr[i]..self.ptr[i + 1]]
            .iter()
            .map(|&c| c as usize)
    }
}

/// Greedy aggregation (Vaněk et al. §3: roots with untouched strong neighbourhoods, then
/// attach the rest to a neighbouring aggregate, then group what is left); returns each
/// unknown's aggregate, their count and each aggregate's component.
fn aggregate(a: &Matrix, labels: &[u8]) -> (Vec<u32>, usize, Vec<u8>) {
    const NONE: u32 = u32::MAX;
    let n = a.rows();
    let strong = Strong::new(a, labels);
    let mut agg = vec![NONE; n];
    let mut out_labels = Vec::new();
    let mut count = 0u32;
    for i in 0..n {
        if agg[i] == NONE && strong.of(i).all(|c| agg[c] == NONE) {
            agg[i] = count;
            for c in strong.of(i) {
                agg[c] = count;
            }
            out_labels.push(labels[i]);
            count += 1;
        }
    }
    let first = agg.clone();
    for (i, a) in agg.iter_mut().enumerate() {
        if *a == NONE {
            if let Some(c) = strong.of(i).find(|&c| first[c] != NONE) {
                *a = first[c];
            }
        }
    }
    for i in 0..n {
        if agg[i] == NONE {
            agg[i] = count;
            for c in strong.of(i) {
                if agg[c] == NONE {
                    agg[c] = count;
                }
            }
            out_labels.push(labels[i]);
            count += 1;
        }
    }
    (agg, count as usize, out_labels)
}

/// `Pᵀ A P` for the piecewise-constant `P` of `aggregate`.
fn galerkin(a: &Matrix, aggregate: &[u32], count: usize) -> Matrix {
    let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); count];
    for i in 0..a.rows() {
        let gi = aggregate[i] as usize;
        rows[gi].extend(a.row(i).map(|(c, v)| (aggregate[c], v)));
    }
    let mut m = Matrix {
        ptr: vec![0],
        ..Matrix::default()
    };
    for mut row in rows {
        row.sort_unstable_by_key(|e| e.0);
        let mut last = u32::MAX;
        for (c, v) in row {
            if c == last {
                *m.val.last_mut().expect("an entry") += v;
            } else {
                m.col.push(c);
                m.val.push(v);
                last = c;
            }
        }
        m.ptr.push(m.col.len());
    }
    m
}

/// Dense Cholesky factor (row-major, lower) of a small SPD matrix; a non-positive pivot (a
/// singular coarse block) is replaced by the diagonal.
fn cholesky(a: &Matrix) -> Vec<f64> {
    let n = a.rows();
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for (c, v) in a.row(i) {
            l[i * n + c] = v;
        }
    }
    for j in 0..n {
        let mut d = l[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        let d = if d > 1e-14 * l[j * n + j].abs() {
            d.sqrt()
        } else {
            l[j * n + j].abs().max(1e-300).sqrt()
        };
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = l[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    l
}

/// Solves `L Lᵀ x = b` in place.
fn cholesky_solve(l: &[f64], x: &mut [f64]) {
    let n = x.len();
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * x[k]).sum();
        x[i] = (x[i] - s) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (x[i] - s) / l[i * n + i];
    }
}
