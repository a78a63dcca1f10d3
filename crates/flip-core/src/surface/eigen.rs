//! Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations (Golub & Van Loan
//! §8.5): the covariance `C = R Σ Rᵀ` of the anisotropic kernel.

use glam::{Mat3, Vec3};

/// Sweeps at most; a 3×3 matrix converges to f32 precision in 4–6.
const MAX_SWEEPS: usize = 12;

/// Eigenvalues (descending) and the matching unit eigenvectors (the columns of `R`) of the
/// symmetric matrix `c`.
pub fn symmetric_eigen(c: Mat3) -> (Vec3, Mat3) {
    // a[row][col] (the input is symmetric); v[col] is the col-th eigenvector
    let mut a = c.to_cols_array_2d();
    let mut v = Mat3::IDENTITY.to_cols_array_2d();
    for _ in 0..MAX_SWEEPS {
        let off = a[0][1].powi(2) + a[0][2].powi(2) + a[1][2].powi(2);
        let diag = a[0][0].powi(2) + a[1][1].powi(2) + a[2][2].powi(2);
        if off <= 1e-14 * diag || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            rotate(&mut a, &mut v, p, q);
        }
    }
    sorted([a[0][0], a[1][1], a[2][2]], v.map(Vec3::from_array))
}

/// One Jacobi rotation zeroing `a[p][q]`, accumulated into the eigenvector columns `v`.
fn rotate(a: &mut [[f32; 3]; 3], v: &mut [[f32; 3]; 3], p: usize, q: usize) {
    let apq = a[p][q];
    if apq == 0.0 {
        return;
    }
    let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
    let c = 1.0 / (t * t + 1.0).sqrt();
    let s = t * c;
    for row in a.iter_mut() {
        let (akp, akq) = (row[p], row[q]);
        row[p] = c * akp - s * akq;
        row[q] = s * akp + c * akq;
    }
    rotate_rows(a, p, q, c, s);
    rotate_rows(v, p, q, c, s);
}

/// `(m[p], m[q]) ← (c·m[p] − s·m[q], s·m[p] + c·m[q])`.
fn rotate_rows(m: &mut [[f32; 3]; 3], p: usize, q: usize, c: f32, s: f32) {
    let (mp, mq) = (m[p], m[q]);
    m[p] = std::array::from_fn(|k| c * mp[k] - s * mq[k]);
    m[q] = std::array::from_fn(|k| s * mp[k] + c * mq[k]);
}

/// The eigenpairs in descending order of eigenvalue.
fn sorted(values: [f32; 3], vectors: [Vec3; 3]) -> (Vec3, Mat3) {
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    let [a, b, c] = order;
    (
        Vec3::new(values[a], values[b], values[c]),
        Mat3::from_cols(vectors[a], vectors[b], vectors[c]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_rotated_diagonal_matrix() {
        let r = Mat3::from_rotation_x(0.4) * Mat3::from_rotation_z(1.1);
        let c = r * Mat3::from_diagonal(Vec3::new(1.0, 5.0, 0.25)) * r.transpose();
        let (values, vectors) = symmetric_eigen(c);
        assert!((values - Vec3::new(5.0, 1.0, 0.25)).abs().max_element() < 1e-5);
        let back = vectors * Mat3::from_diagonal(values) * vectors.transpose();
        let err = (back - c)
            .to_cols_array()
            .iter()
            .map(|x| x.abs())
            .fold(0.0, f32::max);
        assert!(err < 1e-5, "reconstruction error {err}");
        for col in 0..3 {
            let e = vectors.col(col);
            assert!((c * e - values[col] * e).length() < 1e-5);
        }
    }
}
