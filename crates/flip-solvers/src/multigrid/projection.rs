//! The range projection on the singular (pure-Neumann) regions of level 0: the level as the
//! coupling graph of the region finder ([`flip_sdk::regions`]), and the mean removal on its
//! colour-split vectors.

use super::level::Level;
use flip_sdk::regions::{Couplings, Regions};

/// Unknowns coupled where `off` is nonzero (couplings join unknowns only); a Dirichlet term is
/// a positive `excess`.
impl Couplings for Level {
    fn len(&self) -> usize {
        self.kind.len()
    }
    fn unknown(&self, c: usize) -> bool {
        self.unk[c] != 0
    }
    fn dirichlet(&self, c: usize) -> bool {
        self.excess[c] > 0.0
    }
    fn coupled_to_next(&self, c: usize) -> bool {
        self.off[c][0] != 0.0
    }
    fn earlier(&self, c: usize, mut f: impl FnMut(usize)) {
        let axes = if self.three_d() { 3 } else { 2 };
        for a in 1..axes {
            let s = self.stride[a];
            if c >= s && self.off[c - s][a] != 0.0 {
                f(c - s);
            }
        }
    }
    fn plane(&self) -> Option<usize> {
        Some(self.stride[if self.three_d() { 2 } else { 1 }])
    }
}

/// Subtracts, on each singular region of `level`, the mean of the colour-split vector `v`.
pub(crate) fn remove_mean<T: Copy + Into<f64> + FromF64>(
    regions: &Regions,
    level: &Level,
    v: &mut [Vec<T>; 2],
) {
    let (half, pi) = (level.half, level.pdims[0]);
    let idx = |c: usize| {
        let (pr, ip) = (c / pi, c % pi);
        ((ip + level.row_parity(pr)) & 1, pr * half + (ip >> 1))
    };
    regions.remove_mean_with(
        v,
        |v, c| {
            let (k, i) = idx(c);
            v[k][i].into()
        },
        |v, c, mean| {
            let (k, i) = idx(c);
            v[k][i] = T::from_f64(v[k][i].into() - mean);
        },
    );
}

/// Conversion back from f64 for [`remove_mean`].
pub(crate) trait FromF64 {
    fn from_f64(v: f64) -> Self;
}

impl FromF64 for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl FromF64 for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
