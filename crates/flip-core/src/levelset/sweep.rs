//! Zhao's fast sweeping for the Eikonal equation `|∇d| = 1` (Karlsson §4.2), with a mask of
//! cells held fixed. In 3D each sweep ordering is a wavefront over the x-lines: lines with
//! equal `j' + k'` (in the sweep's direction) only read lines of the previous and next
//! wavefront, so a wavefront is updated in parallel and the result equals the sequential sweep
//! exactly. In 2D the wavefronts are made of tiles ([`sweep_tiles`]), with the same property.

use crate::grid::GridSpec;
use rayon::prelude::*;
use std::ops::Range;

/// Wavefronts with fewer cells than this are swept serially.
const PAR_MIN_CELLS: usize = 2048;

/// Zhao's fast sweeping for `|∇d| = 1`, cells with `fixed[c] != 0` held at their values.
pub(crate) fn fast_sweep(spec: &GridSpec, fixed: &[u8], d: &mut [f32], sweeps: usize) {
    let everywhere = Reach::everywhere(spec);
    fast_sweep_within(spec, fixed, d, sweeps, &everywhere);
}

/// [`fast_sweep`] of a field capped at `cap` (every free cell starts at `cap`, every held
/// cell at a value in `[0, cap]`): only cells near enough to a held cell to drop below the cap
/// are visited ([`Reach::capped`]); the result equals the sweep of the whole grid bit for bit.
pub(crate) fn fast_sweep_capped(
    spec: &GridSpec,
    fixed: &[u8],
    d: &mut [f32],
    sweeps: usize,
    cap: f32,
) {
    let reach = Reach::capped(spec, fixed, cap);
    fast_sweep_within(spec, fixed, d, sweeps, &reach);
}

/// The columns of every x-line that a sweep visits: `lines[j + nj·k]` is a range of `i`.
struct Reach {
    lines: Vec<Range<usize>>,
}

impl Reach {
    /// Every cell.
    fn everywhere(spec: &GridSpec) -> Self {
        Self {
            lines: vec![0..spec.ni; spec.nj * spec.nk],
        }
    }

    /// The cells within `m` cells (Chebyshev distance) of a held cell, as one range per x-line
    /// (the hull of that line's cells). A Godunov update exceeds its smallest neighbour by at
    /// least `h/√dim` (three equal neighbours in 3D, Zhao 2005), so a free cell `m` cells from
    /// every held cell (values ≥ 0) never drops below `m·h/√dim`: with `m·h/√dim ≥ cap` it
    /// keeps its starting `cap`, and leaving it out changes no value.
    fn capped(spec: &GridSpec, fixed: &[u8], cap: f32) -> Self {
        let [ni, nj, nk] = spec.dims();
        let dim = spec.dimension() as f32;
        // one cell more than the bound, against rounding in the update
        let m = ((cap / spec.dx) * dim.sqrt()).ceil().max(0.0) as usize + 1;
        // each line's held cells, widened by m along x (`None`: no cell)
        let own: Vec<Option<Range<usize>>> = fixed
            .par_chunks(ni)
            .map(|line| {
                let lo = line.iter().position(|&f| f != 0)?;
                let hi = line.iter().rposition(|&f| f != 0)?;
                Some(lo.saturating_sub(m)..(hi + 1 + m).min(ni))
            })
            .collect();
        let hull = |a: Option<Range<usize>>, b: &Option<Range<usize>>| match (a, b) {
            (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
            (a, b) => a.or_else(|| b.clone()),
        };
        // widened by m along y, then along z
        let widen = |src: &[Option<Range<usize>>], stride: usize, n: usize| {
            (0..src.len())
                .into_par_iter()
                .map(|line| {
                    let q = (line / stride) % n;
                    let (lo, hi) = (q.saturating_sub(m), (q + m).min(n - 1));
                    let first = line - (q - lo) * stride;
                    (0..=hi - lo)
                        .map(|s| &src[first + s * stride])
                        .fold(None, hull)
                })
                .collect::<Vec<_>>()
        };
        let along_y = widen(&own, 1, nj);
        let lines = widen(&along_y, nj, nk);
        Self {
            lines: lines.into_iter().map(|r| r.unwrap_or(0..0)).collect(),
        }
    }

    /// The visited part of `cols` on x-line `line` (`j + nj·k`).
    fn clip(&self, line: usize, cols: Range<usize>) -> Range<usize> {
        let r = &self.lines[line];
        let (lo, hi) = (cols.start.max(r.start), cols.end.min(r.end));
        lo..hi.max(lo)
    }
}

/// [`fast_sweep`] visiting only the cells of `reach`.
fn fast_sweep_within(spec: &GridSpec, fixed: &[u8], d: &mut [f32], sweeps: usize, reach: &Reach) {
    let orderings = if spec.is_2d() { 4 } else { 8 };
    let beyond = vec![f32::INFINITY; spec.ni];
    for _ in 0..sweeps {
        for o in 0..orderings {
            let s = [o & 1 == 0, o & 2 == 0, o & 4 == 0]; // true = ascending
            if spec.nk == 1 {
                match tiles_2d(spec) {
                    Some(tile) => sweep_tiles(spec, fixed, d, s, &beyond, tile, reach),
                    // the whole layer as one tile: row by row
                    None => {
                        let rows = Rows {
                            first: 0,
                            reach,
                            cols: 0..spec.ni,
                        };
                        sweep_tile(d, fixed, [&beyond; 2], &beyond, rows, s, spec.dx)
                    }
                }
            } else {
                sweep_ordering(spec, fixed, d, s, &beyond, reach);
            }
        }
    }
}

/// Tile size `[columns, rows]` of the 2D tiled sweep, or `None` for a row-by-row sweep (small
/// grids, one thread): about 4 × 8 tiles, so that two threads are busy on most fronts.
fn tiles_2d(spec: &GridSpec) -> Option<[usize; 2]> {
    let [ni, nj, _] = spec.dims();
    let tile = [ni.div_ceil(4).max(16), nj.div_ceil(8).max(8)];
    let many = ni.div_ceil(tile[0]) * nj.div_ceil(tile[1]) > 1;
    (many && ni * nj >= 4 * PAR_MIN_CELLS && rayon::current_num_threads() > 1).then_some(tile)
}

/// One sweep of a single layer (2D) in `tile = [columns, rows]` tiles, as wavefronts of tiles
/// with equal `I' + J'` (tile indices in the sweep's direction). A tile reads only its own band
/// of rows and the rows just outside it, which belong to tiles of the fronts before (already
/// updated) or after (not yet), so the tiles of a front run in parallel and the result equals
/// the row-by-row sweep exactly. The first and last row of every band are mirrored in `edges`, the
/// only part of another band a tile reads.
fn sweep_tiles(
    spec: &GridSpec,
    fixed: &[u8],
    d: &mut [f32],
    asc: [bool; 3],
    beyond: &[f32],
    tile: [usize; 2],
    reach: &Reach,
) {
    let [ni, nj, _] = spec.dims();
    let [w, t] = tile;
    let (nti, ntj) = (ni.div_ceil(w), nj.div_ceil(t));
    let flip = |q: usize, n: usize, up: bool| if up { q } else { n - 1 - q };
    let mut edges: Vec<[Vec<f32>; 2]> = d
        .chunks(t * ni)
        .map(|b| [b[..ni].to_vec(), b[b.len() - ni..].to_vec()])
        .collect();
    for f in 0..nti + ntj - 1 {
        // the front's tiles as (band J, column tile I), one per band
        let mut col_of = vec![None; ntj];
        for jq in f.saturating_sub(nti - 1)..=f.min(ntj - 1) {
            col_of[flip(jq, ntj, asc[1])] = Some(flip(f - jq, nti, asc[0]));
        }
        let edges_now = &edges;
        d.chunks_mut(t * ni)
            .enumerate()
            .filter_map(|(band, rows)| col_of[band].map(|c| (band, c, rows)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each(|(band, c, rows)| {
                let low = if band > 0 {
                    &edges_now[band - 1][1]
                } else {
                    beyond
                };
                let high = edges_now.get(band + 1).map_or(beyond, |e| &e[0]);
                let cols = c * w..((c + 1) * w).min(ni);
                let held = &fixed[band * t * ni..][..rows.len()];
                let part = Rows {
                    first: band * t,
                    reach,
                    cols,
                };
                sweep_tile(rows, held, [low, high], beyond, part, asc, spec.dx);
            });
        for (band, c) in col_of.iter().enumerate() {
            let Some(c) = *c else { continue };
            let cols = c * w..((c + 1) * w).min(ni);
            let rows = &d[band * t * ni..((band + 1) * t).min(nj) * ni];
            let last = rows.len() - ni;
            edges[band][0][cols.clone()].copy_from_slice(&rows[cols.clone()]);
            edges[band][1][cols.clone()].copy_from_slice(&rows[last + cols.start..last + cols.end]);
        }
    }
}

/// Which part of a band of rows a tile sweeps: the columns `cols` of rows from `first` on,
/// clipped to `reach`.
struct Rows<'a> {
    first: usize,
    reach: &'a Reach,
    cols: Range<usize>,
}

/// A tile of a band of rows (`held` its mask), row by row in the sweep's direction; `outside`
/// are the rows below and above the band, `beyond` a row of `+∞`.
fn sweep_tile(
    rows: &mut [f32],
    held: &[u8],
    outside: [&[f32]; 2],
    beyond: &[f32],
    part: Rows<'_>,
    asc: [bool; 3],
    h: f32,
) {
    let ni = beyond.len();
    let n = rows.len() / ni;
    for s in 0..n {
        let r = if asc[1] { s } else { n - 1 - s };
        let (below, rest) = rows.split_at_mut(r * ni);
        let (line, above) = rest.split_at_mut(ni);
        let low = if r > 0 {
            &below[(r - 1) * ni..]
        } else {
            outside[0]
        };
        let high = if r + 1 < n { &above[..ni] } else { outside[1] };
        let held = &held[r * ni..][..ni];
        let cols = part.reach.clip(part.first + r, part.cols.clone());
        update_line(line, held, [low, high], [beyond, beyond], cols, asc[0], h);
    }
}

/// One x-line of the field with its `(j, k)`.
type Line<'a> = (usize, usize, &'a mut [f32]);

/// One sweep in the ordering `asc` (ascending per axis), as wavefronts of x-lines.
fn sweep_ordering(
    spec: &GridSpec,
    fixed: &[u8],
    d: &mut [f32],
    asc: [bool; 3],
    beyond: &[f32],
    reach: &Reach,
) {
    let [ni, nj, nk] = spec.dims();
    let jp = |j: usize| if asc[1] { j } else { nj - 1 - j };
    let kp = |k: usize| if asc[2] { k } else { nk - 1 - k };
    let fronts = nj + nk - 1;
    let mut waves: Vec<Vec<Line<'_>>> = (0..fronts).map(|_| Vec::new()).collect();
    for (row, line) in d.chunks_mut(ni).enumerate() {
        let (j, k) = (row % nj, row / nj);
        waves[jp(j) + kp(k)].push((j, k, line));
    }
    for w in waves.iter_mut() {
        w.sort_unstable_by_key(|l| jp(l.0));
    }
    // position of line (j, ·) inside wavefront `front` (ordered by j')
    let find = |front: usize, j: usize| jp(j) - front.saturating_sub(nk - 1);
    let h = spec.dx;
    for f in 0..fronts {
        let (before, rest) = waves.split_at_mut(f);
        let (cur, after) = rest.split_first_mut().expect("front exists");
        let (prev, next) = (before.last().map(|v| &v[..]), after.first().map(|v| &v[..]));
        let nb = |j: isize, k: isize| -> Option<&[f32]> {
            if j < 0 || k < 0 || j as usize >= nj || k as usize >= nk {
                return None;
            }
            let (j, k) = (j as usize, k as usize);
            let front = jp(j) + kp(k);
            let wave = if front < f { prev? } else { next? };
            Some(&*wave[find(front, j)].2)
        };
        let update = |(j, k, line): &mut Line<'_>| {
            let (j, k) = (*j, *k);
            let cols = reach.clip(j + nj * k, 0..ni);
            if cols.is_empty() {
                return;
            }
            let (ji, ki) = (j as isize, k as isize);
            let ny = [nb(ji - 1, ki), nb(ji + 1, ki)].map(|l| l.unwrap_or(beyond));
            let nz = [nb(ji, ki - 1), nb(ji, ki + 1)].map(|l| l.unwrap_or(beyond));
            let held = &fixed[ni * (j + nj * k)..][..ni];
            update_line(line, held, ny, nz, cols, asc[0], h);
        };
        if cur.len() * ni >= PAR_MIN_CELLS {
            cur.par_iter_mut().for_each(update);
        } else {
            cur.iter_mut().for_each(update);
        }
    }
}

/// Zhao's Gauss-Seidel update of the cells `cols` of one x-line, visited in the direction
/// `asc_x`; `ny`, `nz` are the lines beside it (a row of `+∞` beyond the grid).
fn update_line(
    line: &mut [f32],
    held: &[u8],
    ny: [&[f32]; 2],
    nz: [&[f32]; 2],
    cols: Range<usize>,
    asc_x: bool,
    h: f32,
) {
    let n = line.len();
    let (held, ny, nz) = (&held[..n], ny.map(|l| &l[..n]), nz.map(|l| &l[..n]));
    let (lo, len) = (cols.start, cols.len());
    for s in 0..len {
        let i = if asc_x { lo + s } else { lo + len - 1 - s };
        if held[i] != 0 {
            continue;
        }
        let left = if i > 0 { line[i - 1] } else { f32::INFINITY };
        let right = if i + 1 < n {
            line[i + 1]
        } else {
            f32::INFINITY
        };
        let a = left.min(right);
        let b = ny[0][i].min(ny[1][i]);
        let c = nz[0][i].min(nz[1][i]);
        // the update exceeds the smallest neighbour, so it cannot lower a value at or below it
        if a.min(b).min(c) >= line[i] {
            continue;
        }
        let x = godunov(a, b, c, h);
        if x < line[i] {
            line[i] = x;
        }
    }
}

/// Upwind solution of `Σ (x − aₘ)₊² = h²` over the axis minima `a, b, c` (Zhao 2005; the
/// 2D case is Karlsson eq. 31-35), computed relative to the smallest value for accuracy.
#[inline]
pub(crate) fn godunov(a: f32, b: f32, c: f32, h: f32) -> f32 {
    let mut v = [a, b, c];
    if v[0] > v[1] {
        v.swap(0, 1);
    }
    if v[1] > v[2] {
        v.swap(1, 2);
    }
    if v[0] > v[1] {
        v.swap(0, 1);
    }
    let base = v[0];
    if !base.is_finite() {
        return f32::INFINITY;
    }
    let (b, c) = (v[1] - base, v[2] - base);
    let mut x = h;
    if x > b {
        x = 0.5 * (b + (2.0 * h * h - b * b).max(0.0).sqrt());
        if x > c {
            let s = b + c;
            let q = s * s - 3.0 * (b * b + c * c - h * h);
            x = (s + q.max(0.0).sqrt()) / 3.0;
        }
    }
    base + x
}
