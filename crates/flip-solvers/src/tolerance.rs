/// Stopping rule shared by every solver: converged when the residual's max-norm is at most
/// `max(abs, rel · ‖rhs‖∞)`. Relative to the right-hand side (not the initial residual) so a
/// warm start from the previous step's pressure is rewarded, not penalised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance (to `‖rhs‖∞`).
    pub rel: f64,
    /// Absolute tolerance.
    pub abs: f64,
}

impl Tolerance {
    /// The residual bound for a right-hand side of max-norm `rhs_norm`.
    pub fn bound(&self, rhs_norm: f64) -> f64 {
        self.abs.max(self.rel * rhs_norm)
    }
}
