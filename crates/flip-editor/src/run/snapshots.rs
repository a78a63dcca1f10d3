//! The run mode's saved states ([`flip_graph::Snapshot`]s taken after simulated frames), from
//! which "simulate from here" continues after an edit. Within a memory budget every frame is
//! kept; past it, older frames are thinned to every 2nd, 4th, … frame (the newest is always
//! kept), and a fork from a thinned frame continues from the nearest earlier one.

use flip_graph::{GraphDoc, Snapshot};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Memory the saved states may use by default (1 GiB).
pub const SNAPSHOT_BUDGET_BYTES: usize = 1 << 30;

/// A saved state, the graph that simulated it, and its size in bytes.
type Entry = (Snapshot, Arc<GraphDoc>, usize);

/// Saved states by frame number.
pub struct Snapshots {
    by_frame: BTreeMap<u32, Entry>,
    /// Older frames are kept when their number is a multiple of this.
    stride: u32,
    budget: usize,
}

impl Snapshots {
    /// An empty store that keeps at most `budget` bytes (plus the newest state).
    pub fn new(budget: usize) -> Self {
        Self {
            by_frame: BTreeMap::new(),
            stride: 1,
            budget,
        }
    }

    /// Keeps `snap`, saved by a run of `doc`, thinning older states while over the budget.
    pub fn keep(&mut self, snap: Snapshot, doc: Arc<GraphDoc>) {
        let frame = snap.frame();
        let bytes = snap.bytes();
        self.by_frame.insert(frame, (snap, doc, bytes));
        self.by_frame
            .retain(|&f, _| f % self.stride == 0 || f == frame);
        while self.bytes() > self.budget && self.by_frame.len() > 1 {
            self.stride *= 2;
            let stride = self.stride;
            self.by_frame.retain(|&f, _| f % stride == 0 || f == frame);
        }
    }

    /// The newest state at or before `frame`, with the graph that simulated it.
    pub fn at_or_before(&self, frame: u32) -> Option<(&Snapshot, &GraphDoc)> {
        let (_, (s, doc, _)) = self.by_frame.range(..=frame).next_back()?;
        Some((s, doc))
    }

    /// Forgets the states after `frame` (an edit made them stale).
    pub fn forget_after(&mut self, frame: u32) {
        self.by_frame.retain(|&f, _| f <= frame);
    }

    /// Forgets everything (a run from frame 0).
    pub fn clear(&mut self) {
        self.by_frame.clear();
        self.stride = 1;
    }

    /// Frame numbers held.
    pub fn frames(&self) -> Vec<u32> {
        self.by_frame.keys().copied().collect()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.by_frame.values().map(|(_, _, b)| b).sum()
    }
}
