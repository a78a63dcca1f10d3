//! The app's document-level edits: undo/redo ([`crate::graph::history`]), copy/paste as RON
//! text ([`crate::graph::clipboard`]), swapping a node's kind ([`crate::graph::doc_edits`]), new
//! connections (cycles refused), duplicates, and the shortcuts.

use crate::app::App;
use crate::graph::clipboard;
use crate::graph::edit::reaches;
use egui::{Context, Key, Modifiers};
use egui_node_graph2::{InputId, NodeId, OutputId};
use flip_graph::GraphDoc;
use std::collections::HashMap;

/// How far pasted nodes land from the copied ones (file units).
const PASTE_OFFSET: (f32, f32) = (40.0, 40.0);

impl App {
    /// Records the document in the history once an edit is over (no button held: a drag is
    /// one step).
    pub(crate) fn record_history(&mut self, ctx: &Context) {
        if self.history.unrecorded && !ctx.input(|i| i.pointer.any_down()) {
            self.history.unrecorded = false;
            let doc = self.doc.to_doc();
            self.file.dirty = self.file.clean.as_ref() != Some(&doc);
            self.history.record(doc);
        }
    }

    /// Shows `doc` (an undo step, a paste) and reruns the simulation if it must; unsaved
    /// unless it is the document as opened or last saved.
    pub(crate) fn show_doc(&mut self, doc: &GraphDoc, select: &[String]) {
        self.doc
            .replace_keeping_view(doc, &self.user.registry, select);
        self.file.dirty = self.file.clean.as_ref() != Some(doc);
        self.compare.stale = true;
        self.run.pending_reload = Some(std::time::Instant::now());
    }

    /// Ctrl+Z.
    pub(crate) fn undo(&mut self) {
        self.history.record(self.doc.to_doc());
        self.history.unrecorded = false;
        match self.history.undo().cloned() {
            Some(doc) => self.show_doc(&doc, &[]),
            None => self.notify("nothing to undo"),
        }
    }

    /// Ctrl+Shift+Z / Ctrl+Y.
    pub(crate) fn redo(&mut self) {
        self.history.record(self.doc.to_doc());
        self.history.unrecorded = false;
        match self.history.redo().cloned() {
            Some(doc) => self.show_doc(&doc, &[]),
            None => self.notify("nothing to redo"),
        }
    }

    /// The graph-file ids of the selected canvas nodes.
    pub fn selected_ids(&self) -> Vec<String> {
        let g = &self.doc.state.graph;
        self.doc
            .state
            .selected_nodes
            .iter()
            .filter_map(|n| g.nodes.get(*n).map(|n| n.user_data.doc_id.clone()))
            .collect()
    }

    /// Where the canvas drew the node with graph-file id `id` in the last UI frame (screen
    /// points), if it did.
    pub fn drawn_node_rect(&self, ctx: &egui::Context, id: &str) -> Option<egui::Rect> {
        let node = self.doc.find(id)?;
        crate::graph::layout::drawn_rects(ctx, [node].into_iter())
            .get(&node)
            .copied()
    }

    /// The selected nodes as clipboard text (`None`: nothing selected).
    pub(crate) fn copy_selection(&self) -> Option<String> {
        let ids = self.selected_ids();
        (!ids.is_empty()).then(|| clipboard::copy(&self.doc.to_doc(), &ids))
    }

    /// Adds the nodes in `text` (copied nodes or a graph file) and selects them: their top left
    /// corner at `pointer` when it is over the canvas, else a little off where they were.
    pub(crate) fn paste_text(&mut self, text: &str, pointer: Option<egui::Pos2>) {
        match clipboard::parse(text) {
            Ok(fragment) => {
                let canvas = self.chrome.canvas_rect;
                let offset = match (pointer, canvas) {
                    (Some(p), Some(c)) if c.contains(p) => {
                        let (x, y) = self.doc.doc_point(p, c);
                        let corner = |f: fn(&(f32, f32)) -> f32| {
                            let v = fragment.positions.values().map(f);
                            v.fold(f32::INFINITY, f32::min)
                        };
                        let (cx, cy) = (corner(|p| p.0), corner(|p| p.1));
                        let (cx, cy) = if cx.is_finite() { (cx, cy) } else { (0.0, 0.0) };
                        (x - cx, y - cy)
                    }
                    _ => PASTE_OFFSET,
                };
                let mut doc = self.doc.to_doc();
                let ids = clipboard::paste(&mut doc, &fragment, offset);
                self.doc.state.selected_nodes.clear();
                self.show_doc(&doc, &ids);
                self.history.unrecorded = true;
                self.notify(format!("pasted {} node(s)", ids.len()));
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// Accepts a new connection unless it closes a cycle (then the input's previous
    /// connections come back).
    pub(crate) fn connected(
        &mut self,
        output: OutputId,
        input: InputId,
        before: &HashMap<InputId, Vec<OutputId>>,
    ) {
        let g = &mut self.doc.state.graph;
        let (from, to) = (g.get_output(output).node, g.get_input(input).node);
        if reaches(g, to, from) {
            g.remove_connection(input, output);
            for o in before.get(&input).into_iter().flatten() {
                g.add_connection(*o, input, 0);
            }
            self.notify(
                "link refused: it would make a cycle (state crosses steps only through \
                 step_input/step_output)",
            );
            return;
        }
        self.edited();
    }

    /// Duplicates nodes and selects the copies.
    pub(crate) fn duplicate(&mut self, nodes: &[egui_node_graph2::NodeId]) {
        let g = &self.doc.state.graph;
        // a group's copy would repeat its members' ids
        let plain: Vec<_> = nodes
            .iter()
            .filter(|n| {
                g.nodes
                    .get(**n)
                    .is_some_and(|n| n.user_data.group.is_none())
            })
            .copied()
            .collect();
        let copies: Vec<_> = plain.iter().map(|n| self.doc.duplicate(*n)).collect();
        if !copies.is_empty() {
            self.doc.state.selected_nodes = copies;
            self.edited();
        }
    }

    /// Makes `node` a `kind` node, keeping the wires the new kind has ports for.
    pub(crate) fn swap_kind(&mut self, node: egui_node_graph2::NodeId, kind: &str) {
        let Some(id) = self
            .doc
            .state
            .graph
            .nodes
            .get(node)
            .map(|n| n.user_data.doc_id.clone())
        else {
            return;
        };
        let mut doc = self.doc.to_doc();
        match crate::graph::doc_edits::swap_kind(&mut doc, &id, kind, &self.user.registry) {
            Ok(dropped) => {
                self.show_doc(&doc, &[]);
                self.history.unrecorded = true;
                let lost: Vec<String> = dropped
                    .iter()
                    .map(crate::graph::doc_edits::wire_label)
                    .collect();
                match lost.is_empty() {
                    true => self.notify(format!("`{id}` is now a {kind} node")),
                    false => self.notify(format!(
                        "`{id}` is now a {kind} node; dropped {}",
                        lost.join(", ")
                    )),
                }
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// The wires the one selected node can be inserted on, when it has no wires.
    pub(crate) fn wire_choices(&self) -> Option<(NodeId, Vec<flip_graph::EdgeDoc>)> {
        let [node] = self.doc.state.selected_nodes[..] else {
            return None;
        };
        let g = &self.doc.state.graph;
        let n = g.nodes.get(node)?;
        let wired = n.inputs.iter().any(|(_, i)| g.connection(*i).is_some())
            || g.iter_connections()
                .any(|(_, o)| g.get_output(o).node == node);
        if wired {
            return None;
        }
        let doc = self.doc.to_doc();
        let wires = crate::graph::doc_edits::wires_to_insert_on(
            &doc,
            &self.user.registry,
            &n.user_data.doc_id,
        );
        Some((node, wires))
    }

    /// Puts `node` on `wire`.
    pub(crate) fn insert_on_wire(&mut self, node: NodeId, wire: &flip_graph::EdgeDoc) {
        let Some(id) = self.doc.state.graph.nodes.get(node) else {
            return;
        };
        let id = id.user_data.doc_id.clone();
        let mut doc = self.doc.to_doc();
        match crate::graph::doc_edits::insert_on_wire(&mut doc, &self.user.registry, &id, wire) {
            Ok(()) => {
                self.show_doc(&doc, &[id]);
                self.history.unrecorded = true;
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// Undo/redo, copy/paste and fit shortcuts of the node canvas.
    pub(crate) fn edit_shortcuts(&mut self, ctx: &Context) {
        let shift_cmd = Modifiers::COMMAND | Modifiers::SHIFT;
        if ctx.input_mut(|i| i.consume_key(shift_cmd, Key::Z)) {
            self.redo();
        } else if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Z)) {
            self.undo();
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Y)) {
            self.redo();
        }
        let fit = |i: &mut egui::InputState| {
            i.consume_key(Modifiers::NONE, Key::F) | i.consume_key(Modifiers::NONE, Key::Home)
        };
        if ctx.input_mut(fit) {
            self.chrome.fit_view = true;
        }
        let events = ctx.input(|i| i.events.clone());
        for e in events {
            match e {
                egui::Event::Copy | egui::Event::Cut => {
                    if let Some(text) = self.copy_selection() {
                        ctx.output_mut(|o| o.copied_text = text);
                        self.notify("copied the selected nodes");
                    }
                }
                egui::Event::Paste(text) => {
                    let pointer = ctx.input(|i| i.pointer.hover_pos());
                    self.paste_text(&text, pointer);
                }
                _ => {}
            }
        }
    }
}
