//! The node canvas: its toolbar, drawing it, the library's responses (connections, deletions,
//! new nodes, node buttons), groups and Tidy.

use crate::app::App;
use crate::graph::canvas::draw;
use crate::graph::layout::{any_overlap, drawn_rects};
use crate::hints::Hint;
use crate::types::Response;
use egui::{vec2, Context, RichText, Ui};
use egui_node_graph2::{InputId, NodeFinder, NodeId, NodeResponse, OutputId};
use std::collections::HashMap;

impl App {
    /// The node canvas with its toolbar.
    pub(crate) fn canvas_panel(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.add_space(6.0);
            if ui
                .button("➕ Add node")
                .hint("or right-click the canvas")
                .clicked()
            {
                let at = ui.max_rect().left_top() + egui::vec2(40.0, 40.0);
                self.doc.state.node_finder = Some(NodeFinder::new_at(at));
            }
            if ui
                .button("Fit")
                .hint("show the whole graph (F or Home)")
                .clicked()
            {
                self.chrome.fit_view = true;
            }
            let tidy = ui
                .button("Tidy")
                .hint("rearrange the nodes in columns by dependency depth (no overlaps)");
            if tidy.clicked() {
                self.chrome.tidy = true;
            }
            let group = ui.add_enabled(
                !self.doc.state.selected_nodes.is_empty(),
                egui::Button::new("Group"),
            );
            if group.hint("collapse the selected nodes into one group node (Ctrl+G)").clicked() {
                self.group_selection();
            }
            ui.label(
                RichText::new(
                    "drag ports to connect · Del deletes · Ctrl+D duplicates · Ctrl+G groups · Ctrl+C/V \
                     copy/paste · Ctrl+Z/Ctrl+Shift+Z undo/redo · Ctrl/middle-drag pans · \
                     scroll zooms",
                )
                .weak()
                .small(),
            );
        });
        // (its background is the window's, see `WINDOW_BACKGROUND`)
        let rect = ui.available_rect_before_wrap();
        self.chrome.canvas_rect = Some(rect);
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
        if std::mem::take(&mut self.chrome.fit_view) {
            let nodes = self.doc.state.graph.iter_nodes();
            let drawn = drawn_rects(ui.ctx(), nodes);
            self.doc.fit(&child, &drawn);
        }
        self.canvas(&mut child);
        self.chrome.toast_ui(ui);
    }

    /// Draws the node canvas and applies the library's responses.
    pub(crate) fn canvas(&mut self, ui: &mut egui::Ui) {
        let before: HashMap<InputId, Vec<OutputId>> =
            self.doc.state.graph.iter_connection_groups().collect();
        let zoom = self.doc.state.pan_zoom.zoom;
        if std::mem::take(&mut self.chrome.tidy) {
            self.tidy_layout(ui);
        }
        self.user.wire_choices = self.wire_choices();
        let resp = draw(&mut self.doc.state, ui, &mut self.user);
        self.check_overlap(ui.ctx());
        self.doc.track_zoom(zoom);
        for r in resp.node_responses {
            match r {
                NodeResponse::ConnectEventEnded { output, input, .. } => {
                    self.connected(output, input, &before);
                }
                NodeResponse::DisconnectEvent { .. } | NodeResponse::DeleteNodeFull { .. } => {
                    self.edited();
                }
                NodeResponse::CreatedNode(n) => {
                    self.doc.adopt_new_node(n);
                    self.edited();
                }
                NodeResponse::MoveNode { .. } => {
                    self.file.dirty = true;
                    self.history.unrecorded = true;
                }
                NodeResponse::User(Response::ParamChanged { node, name }) => {
                    self.doc.state.graph[node].user_data.explicit.insert(name);
                    self.doc.sync_params(node, &self.user.registry);
                    self.edited();
                }
                NodeResponse::User(Response::Duplicate(node)) => self.duplicate(&[node]),
                NodeResponse::User(Response::Expand(node)) => self.expand_group(node),
                NodeResponse::User(Response::Swap(node, kind)) => self.swap_kind(node, &kind),
                NodeResponse::User(Response::Bypass(node)) => {
                    if let Some(n) = self.doc.state.graph.nodes.get_mut(node) {
                        n.user_data.bypass = !n.user_data.bypass;
                        self.edited();
                    }
                }
                NodeResponse::User(Response::InsertOnWire(node, wire)) => {
                    self.insert_on_wire(node, &wire);
                }
                _ => {}
            }
        }
    }

    /// Ctrl+G: collapses the selected nodes into a group (undoable).
    pub(crate) fn group_selection(&mut self) {
        let ids = self.selected_ids();
        match flip_graph::groups::collapse(&self.doc.to_doc(), &ids, "") {
            Ok((doc, id)) => {
                self.show_doc(&doc, &[id]);
                self.history.unrecorded = true;
                self.notify(format!("grouped {} node(s)", ids.len()));
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// A group node's Expand button: its nodes become plain nodes again (undoable).
    pub(crate) fn expand_group(&mut self, node: NodeId) {
        let Some(n) = self.doc.state.graph.nodes.get(node) else {
            return;
        };
        let Some(body) = &n.user_data.group else {
            return;
        };
        let members: Vec<String> = body.members.iter().map(|(_, m)| m.id.clone()).collect();
        match flip_graph::groups::expand(&self.doc.to_doc(), &n.user_data.doc_id) {
            Ok(doc) => {
                self.show_doc(&doc, &members);
                self.history.unrecorded = true;
            }
            Err(e) => self.notify(e.to_string()),
        }
    }

    /// Rearranges the nodes with the sizes they were drawn with.
    pub(crate) fn tidy_layout(&mut self, ui: &egui::Ui) {
        let ctx = ui.ctx();
        let zoom = self.doc.state.pan_zoom.zoom;
        let rects = drawn_rects(ctx, self.doc.state.graph.iter_nodes());
        let sizes = rects
            .into_iter()
            .map(|(n, r)| (n, r.size() / zoom))
            .collect();
        self.doc
            .tidy(&sizes, ui.max_rect().size() - vec2(48.0, 48.0));
        self.file.dirty = true;
        self.chrome.fit_view = true;
    }

    /// A few frames after loading: suggests Tidy when nodes overlap.
    pub(crate) fn check_overlap(&mut self, ctx: &Context) {
        if self.chrome.overlap_check == 0 {
            return;
        }
        self.chrome.overlap_check -= 1;
        ctx.request_repaint();
        if self.chrome.overlap_check == 0 {
            // the nodes have been drawn now: fit with their real sizes
            self.chrome.fit_view = true;
            let rects = drawn_rects(ctx, self.doc.state.graph.iter_nodes());
            if any_overlap(&rects) {
                self.notify("some nodes overlap: press Tidy to rearrange them");
            }
        }
    }
}
