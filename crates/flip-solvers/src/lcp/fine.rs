//! The finest level of a problem: unknowns (fluid cells) numbered red then black in the order of
//! the grid layout ([`Layout`]), so that the compact level (rows split at the diagonal, colours
//! `0..n_red` and `n_red..n`) and the grid-layout level ([`GridLevel`]) describe the same
//! red-black ordering. Built in place into reused buffers.

use super::csr::{split_blocks, Csr, BLOCK};
use super::grid::{GridLevel, Layout};
use super::level::{Level, Scratch, NONE};
use flip_abi::CELL_FLUID;
use flip_sdk::Problem;
use rayon::prelude::*;

/// Numbers the fluid cells of `p` in layout order into `level` (`cell`, `unknown`, `kind`,
/// colours) and `grid` (`pos`, `spans`).
fn number(p: &Problem<'_>, level: &mut Level, grid: &mut GridLevel) {
    let l = grid.layout;
    level.unknown.clear();
    level.unknown.resize(p.cell_count(), NONE);
    level.cell.clear();
    level.ijk.clear();
    grid.pos.clear();
    grid.spans.clear();
    level.colours.clear();
    let [ni, nj, nk] = p.dims;
    let k0 = usize::from(l.three_d());
    for c in 0..2 {
        let start = level.cell.len();
        for r in 0..l.rows() {
            let (jp, kp) = (r % l.py, r / l.py);
            let (mut lo, mut hi) = (u32::MAX, 0);
            if (1..=nj).contains(&jp) && (k0..k0 + nk).contains(&kp) {
                let e = l.parity(c, r);
                let (j, k) = (jp - 1, kp - k0);
                let row = ni * (j + nj * k);
                // Cells ip = 2h + e with 1 ≤ ip ≤ ni.
                for h in (1 - e).div_ceil(2)..(ni - e) / 2 + 1 {
                    let i = 2 * h + e - 1;
                    let cell = row + i;
                    if p.cell_kind[cell] != CELL_FLUID {
                        continue;
                    }
                    level.unknown[cell] = level.cell.len() as u32;
                    level.cell.push(cell as u32);
                    level.ijk.push([i as u32, j as u32, k as u32]);
                    grid.pos.push((c * l.colour_len() + r * l.half + h) as u32);
                    (lo, hi) = (lo.min(h as u32), h as u32 + 1);
                }
            }
            grid.spans.push(if hi > 0 { (lo, hi) } else { (0, 0) });
        }
        level.colours.push(start..level.cell.len());
    }
    level.dims = p.dims;
    level.dimension = p.dimension;
    level.kind.clear();
    level.kind.extend_from_slice(p.cell_kind);
}

/// The neighbours `(cell, coupling)` of `cell` at coordinates `c` in the order −z, −y, −x, +x,
/// +y, +z (the column order of the level), `None` outside the grid.
#[inline]
fn neighbours(p: &Problem<'_>, cell: usize, c: [u32; 3]) -> [Option<(usize, f32)>; 6] {
    let [ni, nj, _] = p.dims;
    let s = [1, ni, ni * nj];
    let c = c.map(|v| v as usize);
    let minus = |a: usize| (c[a] > 0).then(|| (cell - s[a], p.off[a][cell - s[a]]));
    let plus = |a: usize| (c[a] + 1 < p.dims[a]).then(|| (cell + s[a], p.off[a][cell]));
    [minus(2), minus(1), minus(0), plus(0), plus(1), plus(2)]
}

/// Builds the fine level of `p` into `level` and `grid`; `dirichlet[u]` tells whether row `u`
/// has a Dirichlet term (diagonal above the sum of its couplings, as the region finder's `Stencil` graph tests).
pub(crate) fn build(
    p: &Problem<'_>,
    level: &mut Level,
    grid: &mut GridLevel,
    dirichlet: &mut Vec<bool>,
) {
    grid.layout = Layout::new(p.dims, p.dimension);
    number(p, level, grid);
    let n = level.cell.len();
    let (cells, unknown, ijk) = (&level.cell, &level.unknown, &level.ijk);
    // Row lengths, then rows: couplings to fluid neighbours, sorted by unknown.
    let a = &mut level.a;
    let lens: Vec<u32> = cells
        .par_iter()
        .zip(ijk.par_iter())
        .with_min_len(4096)
        .map(|(&c, &ijk)| {
            let nb = neighbours(p, c as usize, ijk);
            nb.iter()
                .flatten()
                .filter(|(q, o)| *o != 0.0 && unknown[*q] != NONE)
                .count() as u32
        })
        .collect();
    a.ptr.clear();
    a.ptr.push(0);
    let mut len = 0u32;
    for &l in &lens {
        len += l;
        a.ptr.push(len);
    }
    a.col.resize(len as usize, 0);
    a.val.resize(len as usize, 0.0);
    a.nlo.resize(n, 0);
    level.diag.resize(n, 0.0);
    dirichlet.resize(n, false);
    let ptr: Vec<usize> = a.ptr.iter().map(|&q| q as usize).collect();
    let blocks = split_blocks(&ptr, &mut a.col, &mut a.val);
    // Whether every pair of neighbouring unknowns is coupled (then a uniform value applies).
    let all_coupled = blocks
        .into_par_iter()
        .zip(a.nlo.par_chunks_mut(BLOCK))
        .zip(level.diag.par_chunks_mut(BLOCK))
        .zip(dirichlet.par_chunks_mut(BLOCK))
        .enumerate()
        .map(|(b, ((((cs, vs), nlo), diag), dir))| {
            let mut k = 0;
            let mut all = true;
            for q in 0..nlo.len() {
                let u = b * BLOCK + q;
                let cell = cells[u] as usize;
                let (mut coupled, mut lower) = (0.0f64, 0);
                for (nb, o) in neighbours(p, cell, ijk[u]).into_iter().flatten() {
                    let v = unknown[nb];
                    if o != 0.0 {
                        coupled += (-o) as f64;
                        if v != NONE {
                            (cs[k], vs[k]) = (v, o as f64);
                            k += 1;
                            lower += u16::from((v as usize) < u);
                        }
                    } else {
                        all &= v == NONE;
                    }
                }
                nlo[q] = lower;
                diag[q] = p.diag[cell] as f64;
                dir[q] = diag[q] > coupled + 1e-6;
            }
            all
        })
        .reduce(|| true, |x, y| x && y);
    // The host's unit stencil: one coupling value everywhere, then stored once.
    let first = a.val.first().copied();
    a.uniform =
        first.filter(|&w| all_coupled && a.val.par_iter().all(|&v| v.to_bits() == w.to_bits()));
    level.s.clear();
    level.s.extend(
        cells
            .iter()
            .map(|&c| p.lcp && p.complementarity[c as usize] != 0),
    );
    // The grid-layout level.
    grid.uniform = a.uniform;
    let mut d = std::mem::take(&mut grid.diag);
    grid.spread(&level.diag, &mut d);
    grid.diag = d;
    if a.uniform.is_none() {
        for ax in 0..3 {
            let mut off = std::mem::take(&mut grid.off[ax]);
            off.clear();
            off.resize(grid.layout.len(), 0.0);
            for ((&c, &q), ijk) in cells.iter().zip(&grid.pos).zip(ijk) {
                let c = c as usize;
                let s = [1, p.dims[0], p.dims[0] * p.dims[1]][ax];
                let inside = ijk[ax] as usize + 1 < p.dims[ax];
                if inside && unknown[c + s] != NONE {
                    off[q as usize] = p.off[ax][c] as f64;
                }
            }
            grid.off[ax] = off;
        }
    }
    if a.uniform.is_some() {
        a.val.clear();
    }
}

/// Builds the fine level of `p` numbered by greedy multicolouring of the grid order (the
/// ordering of the projected Gauss-Seidel and FMG baselines; no grid layout); `dirichlet` as in
/// [`build`].
pub(crate) fn build_greedy(
    p: &Problem<'_>,
    level: &mut Level,
    dirichlet: &mut Vec<bool>,
    scratch: &mut Scratch,
) {
    let n = p.cell_count();
    let [ni, nj, _] = p.dims;
    let cells: Vec<u32> = (0..n as u32)
        .filter(|&c| p.cell_kind[c as usize] == CELL_FLUID)
        .collect();
    let mut g2u = vec![NONE; n];
    for (u, &c) in cells.iter().enumerate() {
        g2u[c as usize] = u as u32;
    }
    // Grid-order rows: the diagonal, then the coupled fluid neighbours.
    let mut a = Csr {
        n_cols: cells.len(),
        ptr: vec![0],
        ..Csr::default()
    };
    let mut dir = Vec::with_capacity(cells.len());
    for &c in &cells {
        let c = c as usize;
        let ijk = [c % ni, (c / ni) % nj, c / (ni * nj)].map(|v| v as u32);
        a.col.push(g2u[c]);
        a.val.push(p.diag[c] as f64);
        let mut coupled = 0.0f64;
        for (nb, o) in neighbours(p, c, ijk).into_iter().flatten() {
            if o != 0.0 {
                coupled += (-o) as f64;
                if g2u[nb] != NONE {
                    a.col.push(g2u[nb]);
                    a.val.push(o as f64);
                }
            }
        }
        a.ptr.push(a.col.len());
        dir.push((p.diag[c] as f64) > coupled + 1e-6);
    }
    let s: Vec<bool> = cells
        .iter()
        .map(|&c| p.lcp && p.complementarity[c as usize] != 0)
        .collect();
    level.assemble(p.dims, p.dimension, p.cell_kind, &cells, &a, &s, scratch);
    dirichlet.clear();
    dirichlet.extend(scratch.order.iter().map(|&u| dir[u as usize]));
}
