//! Which graph simulated each cached frame. A frame belongs to the graph that produced it: when
//! the run returns to a graph it ran before (an undo, a redo, an edit made back by hand), the
//! cache keeps exactly the leading frames that graph's own run had (those it simulated, and
//! those it continued from), and drops the rest, whatever the edit policy says. A graph not seen
//! before starts where the edit policy says.

use crate::frames::FrameData;
use flip_graph::GraphDoc;
use std::sync::Arc;

/// Graphs remembered; the oldest are forgotten beyond this (their frames then never match).
const MAX_GRAPHS: usize = 256;

/// A graph the run has simulated.
struct Known {
    /// Its number (see [`FrameData::graph`]).
    number: u64,
    /// What it simulates ([`crate::run::worker::sim_view`]).
    view: GraphDoc,
    /// The numbers of the graphs that simulated the frames it continued from, first frame
    /// first; it simulated every later frame itself.
    inherited: Vec<u64>,
}

/// The graphs the run has simulated, newest last.
#[derive(Default)]
pub struct Lineage {
    known: Vec<Known>,
    next: u64,
}

impl Lineage {
    /// Numbers `view`, about to be simulated over `frames`: returns its number and how many of
    /// `frames` it keeps. A graph seen before keeps the leading frames its own run had; a new
    /// one keeps `policy_kept` (what the edit policy says) and records them as its history.
    pub fn load(
        &mut self,
        view: &GraphDoc,
        frames: &[Arc<FrameData>],
        policy_kept: usize,
    ) -> (u64, usize) {
        if let Some(k) = self.known.iter().find(|k| k.view == *view) {
            let own = |i: usize| k.inherited.get(i).copied().unwrap_or(k.number);
            let kept = (frames.iter().enumerate())
                .take_while(|(i, f)| f.graph == own(*i))
                .count();
            return (k.number, kept);
        }
        let kept = policy_kept.min(frames.len());
        let number = self.next;
        self.next += 1;
        self.known.push(Known {
            number,
            view: view.clone(),
            inherited: frames[..kept].iter().map(|f| f.graph).collect(),
        });
        if self.known.len() > MAX_GRAPHS {
            self.known.remove(0);
        }
        (number, kept)
    }

    /// Forgets every graph (a reset: no frame is kept).
    pub fn clear(&mut self) {
        self.known.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::test_frame;

    fn view(description: &str) -> GraphDoc {
        let mut d = GraphDoc::from_ron(crate::graph::document::DEFAULT_SCENE, "dam break").unwrap();
        d.description = description.into();
        d
    }

    /// `n` more frames simulated by graph `number`.
    fn simulate(frames: &mut Vec<Arc<FrameData>>, number: u64, n: usize) {
        for _ in 0..n {
            let mut f = test_frame(1);
            f.graph = number;
            frames.push(Arc::new(f));
        }
    }

    #[test]
    fn returning_to_a_graph_keeps_exactly_its_frames() {
        let mut lineage = Lineage::default();
        let mut frames = vec![];
        let (a, kept) = lineage.load(&view("a"), &frames, 0);
        assert_eq!(kept, 0);
        simulate(&mut frames, a, 5);
        // an edit at frame 3 continues from there
        let (b, kept) = lineage.load(&view("b"), &frames, 3);
        assert_eq!(kept, 3);
        frames.truncate(kept);
        simulate(&mut frames, b, 4);
        // undo: a's frames 1-3 stay, b's go, though the policy would keep them
        assert_eq!(lineage.load(&view("a"), &frames, 7), (a, 3));
        frames.truncate(3);
        simulate(&mut frames, a, 2);
        // redo: b continued from a's frame 3, so those stay; a's later frames go
        assert_eq!(lineage.load(&view("b"), &frames, 5), (b, 3));
    }
}
