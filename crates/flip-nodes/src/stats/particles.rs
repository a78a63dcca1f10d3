//! What the nodes that add, remove or move particles and columns report.

use flip_graph::NodeStats;

/// Particles an emitter added (`emitter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmitStats {
    /// Particles emitted.
    pub emitted: usize,
}

impl NodeStats for EmitStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![("emitted", self.emitted as f64)]
    }
}

/// Particles reseeding added and removed (`reseed`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReseedStats {
    /// Particles added.
    pub added: usize,
    /// Particles removed.
    pub removed: usize,
}

impl NodeStats for ReseedStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("added", self.added as f64),
            ("removed", self.removed as f64),
        ]
    }
}

/// Tall-cell columns whose split height moved (`tallcell_refit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RefitStats {
    /// Columns refitted.
    pub refitted_columns: usize,
}

impl NodeStats for RefitStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![("refitted_columns", self.refitted_columns as f64)]
    }
}
