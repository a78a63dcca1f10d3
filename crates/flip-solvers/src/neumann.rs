//! Connected fluid regions. A region none of whose cells touches air (no Dirichlet term) is
//! pure Neumann: its matrix is singular, the solution is defined up to a constant, and the
//! right-hand side must sum to zero over it. Solvers project `rhs` onto the range and return
//! the zero-mean solution on such regions.

use crate::stencil::Stencil;
use flip_abi::CELL_FLUID;

/// Fluid regions of a problem.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    /// Region label per cell (`u32::MAX` for non-fluid cells).
    pub label: Vec<u32>,
    /// For each region: whether it is pure Neumann (singular).
    pub singular: Vec<bool>,
    /// For each region: number of cells.
    pub size: Vec<usize>,
}

impl Regions {
    /// Labels the fluid regions of `a` (flood fill over couplings).
    pub fn find(a: &Stencil<'_>) -> Self {
        let n = a.len();
        let s = a.strides();
        let mut label = vec![u32::MAX; n];
        let (mut singular, mut size) = (Vec::new(), Vec::new());
        let mut stack = Vec::new();
        for start in 0..n {
            if a.kind[start] != CELL_FLUID || label[start] != u32::MAX {
                continue;
            }
            let id = singular.len() as u32;
            let (mut count, mut neumann) = (0usize, true);
            label[start] = id;
            stack.push(start);
            while let Some(c) = stack.pop() {
                count += 1;
                // Dirichlet term: the diagonal exceeds the sum of fluid couplings.
                let mut coupled = 0.0f64;
                for (ax, &stride) in s.iter().enumerate() {
                    let mut visit = |nb: usize, o: f32| {
                        if o != 0.0 {
                            coupled += (-o) as f64;
                            if label[nb] == u32::MAX {
                                label[nb] = id;
                                stack.push(nb);
                            }
                        }
                    };
                    visit(c + stride * usize::from(a.off[ax][c] != 0.0), a.off[ax][c]);
                    if c >= stride {
                        visit(c - stride, a.off[ax][c - stride]);
                    }
                }
                if (a.diag[c] as f64) > coupled + 1e-6 {
                    neumann = false;
                }
            }
            singular.push(neumann);
            size.push(count);
        }
        Self {
            label,
            singular,
            size,
        }
    }

    /// Whether any region is singular.
    pub fn any_singular(&self) -> bool {
        self.singular.iter().any(|&s| s)
    }

    /// Subtracts, on each singular region, the mean of `v` over that region.
    pub fn remove_mean(&self, v: &mut [f64]) {
        if !self.any_singular() {
            return;
        }
        let mut sum = vec![0.0f64; self.singular.len()];
        for (c, &l) in self.label.iter().enumerate() {
            if l != u32::MAX && self.singular[l as usize] {
                sum[l as usize] += v[c];
            }
        }
        for (c, &l) in self.label.iter().enumerate() {
            if l != u32::MAX && self.singular[l as usize] {
                v[c] -= sum[l as usize] / self.size[l as usize] as f64;
            }
        }
    }
}
