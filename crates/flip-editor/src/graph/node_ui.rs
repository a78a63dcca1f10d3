//! Per-node UI around the library's drawing: the id in the title bar, the title colour (red on
//! error, violet for the step-state boundary), and below the ports the last run time, solver
//! statistics, errors, and "Duplicate" and "Swap" buttons.

use crate::hints::Hint;
use crate::types::{DataType, NodeData, NodeStatus, Response, UserState, ValueType};
use egui::{Color32, RichText, Ui};
use egui_node_graph2::{Graph, NodeDataTrait, NodeId, NodeResponse, UserResponseTrait};
use flip_graph::step::STEP_INPUT;

/// Title bar colour of the step-state boundary nodes.
pub const STEP_COLOR: Color32 = Color32::from_rgb(110, 70, 150);
/// Title bar colour of a node with an error.
pub const ERROR_COLOR: Color32 = Color32::from_rgb(170, 40, 40);
/// Title bar colour of a bypassed node.
pub const BYPASS_COLOR: Color32 = Color32::from_gray(70);
/// Colour of error text in a node.
const ERROR_TEXT: Color32 = Color32::from_rgb(255, 120, 110);
/// Badge colour of a solve that did not converge.
pub const WARN_COLOR: Color32 = Color32::from_rgb(235, 200, 40);

type G = Graph<NodeData, DataType, ValueType>;

impl NodeDataTrait for NodeData {
    type Response = Response;
    type UserState = UserState;
    type DataType = DataType;
    type ValueType = ValueType;

    fn top_bar_ui(
        &self,
        ui: &mut Ui,
        _node_id: NodeId,
        _graph: &G,
        user_state: &mut UserState,
    ) -> Vec<NodeResponse<Response, NodeData>> {
        let id = RichText::new(&self.doc_id).small().weak();
        ui.label(id).hint(format!("node id (kind `{}`)", self.kind));
        if self.bypass {
            ui.label(RichText::new("bypassed").small().italics())
                .hint("left out of the run: inputs pass on to the outputs");
        }
        let errors = self.errors(user_state);
        if !errors.is_empty() {
            let badge = RichText::new("⚠").color(Color32::from_rgb(255, 200, 190));
            ui.label(badge).hint(errors.join("\n"));
        }
        vec![]
    }

    fn output_ui(
        &self,
        ui: &mut Ui,
        _node_id: NodeId,
        _graph: &G,
        _user_state: &mut UserState,
        param_name: &str,
    ) -> Vec<NodeResponse<Response, NodeData>> {
        // Inside a row: a bare right-to-left layout would centre the label vertically in all
        // the remaining height.
        ui.horizontal(|ui| {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.label(param_name);
            });
        });
        vec![]
    }

    fn bottom_ui(
        &self,
        ui: &mut Ui,
        node_id: NodeId,
        _graph: &G,
        user_state: &mut UserState,
    ) -> Vec<NodeResponse<Response, NodeData>>
    where
        Response: UserResponseTrait,
    {
        if self.is_step_boundary() {
            let note = if self.kind == STEP_INPUT {
                "⟲ state from the previous time step"
            } else {
                "⟳ state for the next time step"
            };
            ui.label(
                RichText::new(note)
                    .small()
                    .color(Color32::from_rgb(200, 170, 240)),
            )
            .hint(
                "Simulation state crosses time steps only through the step_input / \
                     step_output pair; every edge cycle is an error.",
            );
        }
        // validation says it when the node is in the run: once
        if !self.known && self.errors(user_state).is_empty() {
            let kinds = user_state.registry.kinds().map(|k| k.spec.kind.as_str());
            let near = flip_graph::suggest::did_you_mean(&self.kind, kinds);
            let text = RichText::new(format!("unknown node kind `{}`{near}", self.kind));
            ui.add(egui::Label::new(text.color(ERROR_TEXT)).wrap());
        }
        if let Some(status) = user_state.status.get(&self.doc_id) {
            status_ui(ui, status);
        }
        if let Some(body) = &self.group {
            return group_ui(ui, node_id, body, user_state);
        }
        let mut out = vec![];
        ui.horizontal(|ui| {
            let r = ui.small_button("Duplicate").hint("copy this node (Ctrl+D)");
            if r.clicked() {
                out.push(NodeResponse::User(Response::Duplicate(node_id)));
            }
            let kinds = crate::graph::doc_edits::swap_candidates(&user_state.registry, &self.kind);
            if !kinds.is_empty() {
                ui.menu_button("Swap", |ui| {
                    for (kind, label) in kinds {
                        if ui.button(label).hint(&kind).clicked() {
                            out.push(NodeResponse::User(Response::Swap(node_id, kind)));
                            ui.close_menu();
                        }
                    }
                })
                .response
                .hint("make this a node of another kind, keeping its wires");
            }
            let bypass = ui.selectable_label(self.bypass, RichText::new("Bypass").small());
            let bypass = bypass.hint(
                "leave this node out of the run: each output carries on the input of the same \
                 name (or type)",
            );
            if bypass.clicked() {
                out.push(NodeResponse::User(Response::Bypass(node_id)));
            }
            if !self.help.is_empty() {
                ui.label(RichText::new("(?)").weak()).hint(&self.help);
            }
        });
        let wires = match &user_state.wire_choices {
            Some((n, wires)) if *n == node_id && !wires.is_empty() => wires.clone(),
            _ => vec![],
        };
        if !wires.is_empty() {
            ui.menu_button("Insert on wire", |ui| {
                for w in wires {
                    if ui.button(crate::graph::doc_edits::wire_label(&w)).clicked() {
                        out.push(NodeResponse::User(Response::InsertOnWire(node_id, w)));
                        ui.close_menu();
                    }
                }
            });
        }
        out
    }

    fn titlebar_color(
        &self,
        _ui: &Ui,
        _node_id: NodeId,
        _graph: &G,
        user_state: &mut UserState,
    ) -> Option<Color32> {
        let failed = !self.known || !self.errors(user_state).is_empty();
        if failed {
            Some(ERROR_COLOR)
        } else if self.bypass {
            Some(BYPASS_COLOR)
        } else if self.is_step_boundary() {
            Some(STEP_COLOR)
        } else {
            None
        }
    }
}

impl NodeData {
    /// The node's errors; a group's are its members' (each prefixed with the member's id).
    fn errors(&self, user_state: &UserState) -> Vec<String> {
        let of = |id: &str| user_state.status.get(id).map(|s| s.errors.clone());
        let mut errors = of(&self.doc_id).unwrap_or_default();
        for (_, m) in self.group.iter().flat_map(|b| &b.members) {
            let mine = of(&m.id).unwrap_or_default();
            errors.extend(mine.into_iter().map(|e| format!("{}: {e}", m.id)));
        }
        errors
    }
}

/// A group node's body: its members and the Expand button.
fn group_ui(
    ui: &mut Ui,
    node_id: NodeId,
    body: &crate::types::GroupBody,
    user_state: &UserState,
) -> Vec<NodeResponse<Response, NodeData>> {
    let ids: Vec<&str> = body.members.iter().map(|(_, m)| m.id.as_str()).collect();
    let ms: f64 = ids
        .iter()
        .filter_map(|id| user_state.status.get(*id)?.time_ms)
        .sum();
    if ms > 0.0 {
        ui.label(format!("⏱ {ms:.2} ms"))
            .hint("time in the group's nodes during the shown frame");
    }
    ui.add(egui::Label::new(RichText::new(ids.join(", ")).weak()).wrap());
    for id in &ids {
        for e in user_state.status.get(*id).iter().flat_map(|s| &s.errors) {
            let text = RichText::new(format!("{id}: {e}")).color(ERROR_TEXT);
            ui.add(egui::Label::new(text).wrap());
        }
    }
    let mut out = vec![];
    if ui
        .small_button("Expand")
        .hint("show the group's nodes again (undo with Ctrl+Z)")
        .clicked()
    {
        out.push(NodeResponse::User(Response::Expand(node_id)));
    }
    out
}

/// Run time, solver statistics and errors of one node.
fn status_ui(ui: &mut Ui, s: &NodeStatus) {
    if let Some(ms) = s.time_ms {
        ui.label(RichText::new(format!("⏱ {ms:.2} ms")))
            .hint("time in this node during the shown frame (all substeps)");
    }
    if let Some(solve) = s.solve() {
        let (it, res) = (f64::from(solve.iterations), solve.residual);
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("it {it:.0} · res {res:.1e}")))
                .hint("iterations and residual of the frame's last substep");
            if s.converged == Some(false) {
                ui.label(
                    RichText::new(" not converged ")
                        .small()
                        .color(Color32::BLACK)
                        .background_color(WARN_COLOR),
                )
                .hint("at least one substep's solve stopped before its tolerance");
            }
        });
    }
    for w in &s.warnings {
        ui.add(egui::Label::new(RichText::new(w).color(WARN_COLOR)).wrap());
    }
    for e in &s.errors {
        ui.add(egui::Label::new(RichText::new(e).color(ERROR_TEXT)).wrap());
    }
}
