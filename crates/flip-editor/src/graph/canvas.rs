//! Drawing the node canvas with egui_node_graph2, plus what the library leaves to its host:
//! node titles are plain (not selectable) text, so a click on a title selects the node instead
//! of starting a text selection, and the wires are moved under the nodes so they never cross
//! a node's labels.

use crate::types::{AllKinds, EditorState, Response, UserState};
use egui::epaint::ClippedShape;
use egui::layers::ShapeIdx;
use egui::{Shape, Ui};
use egui_node_graph2::GraphResponse;

/// Draws the graph editor in `ui` (see the module notes).
pub fn draw(
    state: &mut EditorState,
    ui: &mut Ui,
    user: &mut UserState,
) -> GraphResponse<Response, crate::types::NodeData> {
    ui.style_mut().interaction.selectable_labels = false;
    let kinds = AllKinds(user.registry.kinds().count());
    let first = ui.painter().add(Shape::Noop);
    let resp = state.draw_graph_editor(ui, kinds, user, vec![]);
    wires_under_nodes(ui, first);
    resp
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
