//! What the nodes that add, remove or move particles and columns report.

use flip_core::whitewater::{Diffuse, FrameReport};
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

/// The diffuse particles alive at a frame's end and what the frame did (`whitewater`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WhitewaterStats {
    /// Spray particles.
    pub spray: usize,
    /// Foam particles.
    pub foam: usize,
    /// Bubbles.
    pub bubbles: usize,
    /// Born this frame.
    pub emitted: usize,
    /// Births the particle cap left out this frame.
    pub capped: usize,
    /// Foam that expired this frame.
    pub expired: usize,
    /// Particles that left the domain or entered a solid this frame.
    pub outside: usize,
}

impl WhitewaterStats {
    /// The counts of `diffuse` after a frame that did `report`.
    pub fn new(diffuse: &Diffuse, report: &FrameReport) -> Self {
        let [spray, foam, bubbles] = diffuse.counts();
        Self {
            spray,
            foam,
            bubbles,
            emitted: report.emitted,
            capped: report.capped,
            expired: report.removed.expired,
            outside: report.removed.outside,
        }
    }
}

impl NodeStats for WhitewaterStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        [
            ("spray", self.spray),
            ("foam", self.foam),
            ("bubbles", self.bubbles),
            ("emitted", self.emitted),
            ("capped", self.capped),
            ("expired", self.expired),
            ("outside", self.outside),
        ]
        .into_iter()
        .map(|(k, v)| (k, v as f64))
        .collect()
    }
}
