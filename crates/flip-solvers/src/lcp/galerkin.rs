//! Galerkin coarse matrices `A^H = R A^h P` (Lai et al. §4.3), coarse row by coarse row: row `I`
//! first sums `q = Σ_f R_If A_f·` (a fine row) and then `q P`, each into a dense accumulator
//! (one per worker thread, kept between builds like the output blocks: fresh multi-megabyte
//! buffers per build cost more in page faults than the product itself), rows in parallel
//! blocks, without storing `A P`. Results keep every product's position (zeros included), as
//! the symbolic product would.

use super::csr::{parallel, Block, Csr, BLOCK};
use super::ell::Ell;
use super::matrix::{LevelMatrix, Rows};
use rayon::prelude::*;
use std::sync::Mutex;

/// A level's matrix with its diagonal, as rows.
pub(crate) struct WithDiag<'a> {
    /// Off-diagonal rows.
    pub a: &'a LevelMatrix,
    /// Diagonal.
    pub diag: &'a [f64],
}

impl Rows for WithDiag<'_> {
    fn per_row(&self) -> usize {
        self.a.per_row() + 1
    }
    fn for_row(&self, i: usize, f: impl FnMut(u32, f64)) {
        self.a.entries(i, self.diag[i], f);
    }
}

/// A dense accumulator: values, row stamp per column, touched columns.
#[derive(Default)]
struct Acc {
    val: Vec<f64>,
    mark: Vec<u32>,
    touched: Vec<u32>,
}

impl Acc {
    /// Prepares `n` columns, no row stamped yet.
    fn reset(&mut self, n: usize) {
        self.val.resize(n, 0.0);
        self.mark.clear();
        self.mark.resize(n, u32::MAX);
    }

    /// Adds `v` at column `j` of the row stamped `stamp`.
    #[inline(always)]
    fn add(&mut self, stamp: u32, j: u32, v: f64) {
        let k = j as usize;
        if self.mark[k] == stamp {
            self.val[k] += v;
        } else {
            self.mark[k] = stamp;
            self.val[k] = v;
            self.touched.push(j);
        }
    }
}

/// Per-thread scratch: the fine row `q` and the coarse row.
#[derive(Default)]
struct Accs {
    q: Acc,
    c: Acc,
}

/// Buffers of [`galerkin`], kept between builds.
#[derive(Default)]
pub(crate) struct Scratch {
    /// One pair of accumulators per worker thread.
    accs: Vec<Mutex<Accs>>,
    /// Output rows per block.
    blocks: Vec<Block>,
}

/// Rows `b·BLOCK ..` of `R A P` into `out`.
fn block(r: &Csr, a: &impl Rows, p: &Ell, s: &mut Accs, blk: usize, out: &mut Block) {
    let rows = blk * BLOCK..((blk + 1) * BLOCK).min(r.n_rows());
    out.lens.clear();
    out.cols.clear();
    out.vals.clear();
    for i in rows {
        let stamp = i as u32;
        let Accs { q, c } = s;
        q.touched.clear();
        c.touched.clear();
        let (rc, rv) = r.row(i);
        for (&f, &rw) in rc.iter().zip(rv) {
            a.for_row(f as usize, |g, av| q.add(stamp, g, rw * av));
        }
        for &g in &q.touched {
            let qg = q.val[g as usize];
            let (pc, pv) = p.row(g as usize);
            for (&j, &pw) in pc.iter().zip(pv) {
                c.add(stamp, j, qg * pw);
            }
        }
        out.lens.push(c.touched.len() as u32);
        out.cols.extend_from_slice(&c.touched);
        out.vals
            .extend(c.touched.iter().map(|&j| c.val[j as usize]));
    }
}

/// `out = R A P` (rows and columns in the numbering of `R`'s rows and `P`'s columns).
pub(crate) fn galerkin(r: &Csr, a: WithDiag<'_>, p: &Ell, s: &mut Scratch, out: &mut Csr) {
    let n = r.n_rows();
    let threads = rayon::current_num_threads().max(1);
    s.accs.resize_with(threads, Mutex::default);
    for acc in &mut s.accs {
        let acc = acc.get_mut().expect("not poisoned");
        acc.q.reset(a.diag.len());
        acc.c.reset(p.n_cols);
    }
    s.blocks.resize_with(n.div_ceil(BLOCK), Block::default);
    let accs = &s.accs;
    let run = |(b, out): (usize, &mut Block)| {
        let t = rayon::current_thread_index().unwrap_or(0) % threads;
        let mut acc = accs[t].lock().expect("not poisoned");
        block(r, &a, p, &mut acc, b, out);
    };
    if parallel(n, r.per_row() * a.per_row()) {
        s.blocks.par_iter_mut().enumerate().for_each(run);
    } else {
        s.blocks.iter_mut().enumerate().for_each(run);
    }
    out.set_from_blocks(p.n_cols, &s.blocks);
}
