//! Drawing the node canvas with egui_node_graph2, plus what the library leaves to its host:
//! node titles are plain (not selectable) text, so a click on a title selects the node instead
//! of starting a text selection, and the wires are moved under the nodes so they never cross
//! a node's labels.

use crate::graph::layout::drawn_rects;
use crate::types::{AllKinds, EditorState, Response, UserState};
use egui::epaint::ClippedShape;
use egui::layers::ShapeIdx;
use egui::{Shape, Ui};
use egui_node_graph2::{GraphResponse, NodeId};

/// Draws the graph editor in `ui` (see the module notes).
pub fn draw(
    state: &mut EditorState,
    ui: &mut Ui,
    user: &mut UserState,
) -> GraphResponse<Response, crate::types::NodeData> {
    ui.style_mut().interaction.selectable_labels = false;
    // the library draws the nodes in the style it scaled at the last zoom, taken from whatever
    // ui zoomed (a Fit): plain titles there too
    let zoomed = &mut state.pan_zoom.zoomed_style;
    if zoomed.interaction.selectable_labels {
        std::sync::Arc::make_mut(zoomed)
            .interaction
            .selectable_labels = false;
    }
    let kinds = AllKinds(user.registry.kinds().count());
    let first = ui.painter().add(Shape::Noop);
    let selected = state.selected_nodes.clone();
    let resp = state.draw_graph_editor(ui, kinds, user, vec![]);
    keep_selection_on_node_clicks(state, ui, selected);
    wires_under_nodes(ui, first);
    resp
}

/// The library takes a click on a widget inside a node (a button, a menu) for a click off the
/// editor and clears the selection; such a click keeps the selection when it was on a selected
/// node, else selects the node clicked.
fn keep_selection_on_node_clicks(state: &mut EditorState, ui: &Ui, before: Vec<NodeId>) {
    if before.is_empty() || !state.selected_nodes.is_empty() {
        return;
    }
    let click = ui.input(|i| i.pointer.any_click().then(|| i.pointer.interact_pos()));
    let Some(Some(at)) = click else {
        return;
    };
    let rects = drawn_rects(ui.ctx(), state.graph.iter_nodes());
    let on = rects
        .into_iter()
        .find(|(_, r)| r.contains(at))
        .map(|(n, _)| n);
    state.selected_nodes = match on {
        Some(n) if before.contains(&n) => before,
        Some(n) => vec![n],
        None => return,
    };
}

/// Reorders the shapes painted in `ui`'s layer since `first`: the wires (cubic Béziers)
/// first, everything else after them in its own order.
fn wires_under_nodes(ui: &Ui, first: ShapeIdx) {
    let layer = ui.layer_id();
    ui.ctx().graphics_mut(|g| {
        let list = g.entry(layer);
        let end = list.next_idx().0;
        let shapes: Vec<ClippedShape> = list
            .all_entries()
            .skip(first.0)
            .take(end.saturating_sub(first.0))
            .cloned()
            .collect();
        let (wires, rest): (Vec<_>, Vec<_>) = shapes
            .into_iter()
            .partition(|s| matches!(s.shape, Shape::CubicBezier(_)));
        for (i, s) in wires.into_iter().chain(rest).enumerate() {
            list.set(ShapeIdx(first.0 + i), s.clip_rect, s.shape);
        }
    });
}
