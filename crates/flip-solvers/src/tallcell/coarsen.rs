//! Down-sampling one tall-cell level to the next coarser one (Chentanez & Müller 2011,
//! "Construct hierarchy of grids"): columns pair up along x (and z); `H` and `h` are chosen so
//! the coarse tall cell lies inside the fine ones it covers and the coarse regular cells
//! reach as high as the fine ones; solid fractions average (a coarse face is the mean of its
//! fine faces); φ averages too, except on the finest levels where a coarse cell that is not
//! entirely liquid takes the mean of its positive values, so air bubbles survive.

use super::grid::{Grid, Look};

/// The fine columns (`i`, `k`) under coarse column (`ci`, `ck`).
fn children(fine: &Grid, ci: usize, ck: usize) -> Vec<usize> {
    let [nx, nz] = fine.columns;
    let xs = [2 * ci, 2 * ci + 1].into_iter().filter(|&i| i < nx);
    let zs: Vec<usize> = [2 * ck, 2 * ck + 1]
        .into_iter()
        .filter(|&k| k < nz)
        .collect();
    xs.flat_map(|i| zs.iter().map(move |&k| fine.column(i, k)))
        .collect()
}

/// The coarse level of `fine`; `keep_bubbles` applies the bubble-preserving rule to φ.
pub fn coarsen(fine: &Grid, keep_bubbles: bool) -> Grid {
    let [nx, nz] = fine.columns;
    let nx_c = nx.div_ceil(2);
    let nz_c = if fine.dimension == 3 {
        nz.div_ceil(2)
    } else {
        1
    };
    let n = nx_c * nz_c;
    let mut terrain = vec![0; n];
    let mut tall_top = vec![0; n];
    let mut reach = vec![0; n];
    for ck in 0..nz_c {
        for ci in 0..nx_c {
            let c = ci + nx_c * ck;
            let kids = children(fine, ci, ck);
            let low = |f: &dyn Fn(usize) -> usize| kids.iter().map(|&k| f(k)).min().unwrap_or(0);
            terrain[c] = low(&|k| fine.terrain[k]) / 2;
            let top_fine = low(&|k| fine.row(k, 1));
            tall_top[c] = (top_fine / 2).max(terrain[c] + 1);
            let high = kids
                .iter()
                .map(|&k| fine.row(k, fine.slots() - 1))
                .max()
                .unwrap_or(0);
            reach[c] = high / 2;
        }
    }
    let regular = (0..n)
        .map(|c| reach[c].saturating_sub(tall_top[c]))
        .max()
        .unwrap_or(1)
        .max(1);
    let mut coarse = Grid {
        dimension: fine.dimension,
        columns: [nx_c, nz_c],
        regular,
        height: fine.height.div_ceil(2),
        dx: 2.0 * fine.dx,
        tall: (0..n).map(|c| tall_top[c] - terrain[c] + 1).collect(),
        terrain,
        face_top: coarse_faces(fine, nx_c, nz_c),
        phi: Vec::new(),
    };
    coarse.phi = coarse_phi(fine, &coarse, keep_bubbles);
    coarse
}

/// Solid tops of the coarse faces: the mean of the fine faces they cover, in coarse cells.
fn coarse_faces(fine: &Grid, nx_c: usize, nz_c: usize) -> [Vec<f32>; 2] {
    let [nx, nz] = fine.columns;
    let x = (0..nz_c)
        .flat_map(|ck| (0..=nx_c).map(move |f| (f, ck)))
        .map(|(f, ck)| {
            let fi = (2 * f).min(nx);
            let ks: Vec<usize> = [2 * ck, 2 * ck + 1]
                .into_iter()
                .filter(|&k| k < nz)
                .collect();
            let sum: f32 = ks
                .iter()
                .map(|&k| fine.face_top[0][fi + (nx + 1) * k])
                .sum();
            0.5 * sum / ks.len() as f32
        })
        .collect();
    if fine.dimension != 3 {
        return [x, Vec::new()];
    }
    let z = (0..=nz_c)
        .flat_map(|fk| (0..nx_c).map(move |ci| (ci, fk)))
        .map(|(ci, fk)| {
            let k = (2 * fk).min(nz);
            let is: Vec<usize> = [2 * ci, 2 * ci + 1]
                .into_iter()
                .filter(|&i| i < nx)
                .collect();
            let sum: f32 = is.iter().map(|&i| fine.face_top[1][i + nx * k]).sum();
            0.5 * sum / is.len() as f32
        })
        .collect();
    [x, z]
}

/// φ at every coarse sample from the fine cells of its coarse cell (solid fine cells left
/// out): their mean, or with `keep_bubbles` the mean of the positive ones when not all are
/// negative (the paper's rule for the finest C levels).
fn coarse_phi(fine: &Grid, coarse: &Grid, keep_bubbles: bool) -> Vec<f32> {
    let [nx_c, nz_c] = coarse.columns;
    let mut phi = vec![0.0f32; nx_c * nz_c * coarse.slots()];
    for ck in 0..nz_c {
        for ci in 0..nx_c {
            let c = coarse.column(ci, ck);
            let kids = children(fine, ci, ck);
            for s in 0..coarse.slots() {
                let y = coarse.row(c, s) as i64;
                let values: Vec<f64> = kids
                    .iter()
                    .flat_map(|&k| [(k, 2 * y), (k, 2 * y + 1)])
                    .map(|(k, fy)| fine.lookup(k, fy))
                    .filter(|l| !matches!(l, Look::Solid(_)))
                    .map(|l| fine.phi_at(l))
                    .collect();
                phi[c * coarse.slots() + s] = down_sample(&values, keep_bubbles, coarse.dx) as f32;
            }
        }
    }
    phi
}

/// The paper's φ rule over one coarse cell's fine values (all solid: outside, `+dx`).
fn down_sample(values: &[f64], keep_bubbles: bool, dx: f64) -> f64 {
    if values.is_empty() {
        return dx;
    }
    let positive: Vec<f64> = values.iter().copied().filter(|&v| v >= 0.0).collect();
    if keep_bubbles && !positive.is_empty() {
        positive.iter().sum::<f64>() / positive.len() as f64
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}
