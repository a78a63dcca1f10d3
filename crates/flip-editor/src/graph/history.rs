//! Undo/redo of graph edits. A graph document is a few kilobytes, so each step is a snapshot of
//! the whole [`GraphDoc`] (nodes, parameters, edges, layout, settings). The app records a
//! snapshot once an edit is complete (no drag in progress), so a value dragged over many
//! frames, or a node moved, is one step.

use flip_graph::GraphDoc;

/// Steps kept; the oldest are forgotten beyond this.
pub const MAX_STEPS: usize = 200;

/// The undo and redo stacks around the current document.
#[derive(Clone, Debug)]
pub struct History {
    undo: Vec<GraphDoc>,
    redo: Vec<GraphDoc>,
    current: GraphDoc,
    /// An edit (or move) not yet recorded.
    pub unrecorded: bool,
}

impl History {
    /// A history whose only state is `doc` (a file just opened).
    pub fn new(doc: GraphDoc) -> Self {
        Self {
            undo: Vec::new(),
            redo: Vec::new(),
            current: doc,
            unrecorded: false,
        }
    }

    /// Records `doc` as the next state when it differs from the current one (clearing the
    /// redo stack); returns whether it did.
    pub fn record(&mut self, doc: GraphDoc) -> bool {
        if doc == self.current {
            return false;
        }
        self.undo.push(std::mem::replace(&mut self.current, doc));
        if self.undo.len() > MAX_STEPS {
            self.undo.remove(0);
        }
        self.redo.clear();
        true
    }

    /// Steps back; returns the document to show.
    pub fn undo(&mut self) -> Option<&GraphDoc> {
        let prev = self.undo.pop()?;
        self.redo.push(std::mem::replace(&mut self.current, prev));
        Some(&self.current)
    }

    /// Steps forward again; returns the document to show.
    pub fn redo(&mut self) -> Option<&GraphDoc> {
        let next = self.redo.pop()?;
        self.undo.push(std::mem::replace(&mut self.current, next));
        Some(&self.current)
    }

    /// The state last recorded.
    pub fn current(&self) -> &GraphDoc {
        &self.current
    }

    /// Steps that can be undone and redone.
    pub fn depth(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(description: &str) -> GraphDoc {
        let mut d = GraphDoc::from_ron(crate::graph::document::DEFAULT_SCENE, "dam break").unwrap();
        d.description = description.into();
        d
    }

    #[test]
    fn undo_and_redo_walk_the_recorded_states() {
        let mut h = History::new(doc("a"));
        assert!(!h.record(doc("a")), "no change, no step");
        assert!(h.record(doc("b")));
        assert!(h.record(doc("c")));
        assert_eq!(h.depth(), (2, 0));
        assert_eq!(h.undo().unwrap().description, "b");
        assert_eq!(h.undo().unwrap().description, "a");
        assert!(h.undo().is_none());
        assert_eq!(h.redo().unwrap().description, "b");
        // a new edit drops what could be redone
        assert!(h.record(doc("d")));
        assert!(h.redo().is_none());
        assert_eq!(h.undo().unwrap().description, "b");
        assert_eq!(h.current().description, "b");
    }

    #[test]
    fn the_oldest_steps_are_forgotten() {
        let mut h = History::new(doc("0"));
        for i in 1..=MAX_STEPS + 5 {
            h.record(doc(&i.to_string()));
        }
        assert_eq!(h.depth(), (MAX_STEPS, 0));
        while h.undo().is_some() {}
        assert_eq!(h.current().description, "5");
    }
}
