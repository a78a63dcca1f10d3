//! In-node text is readable and whole: drawn headless with the status lines of a running
//! simulation (a time on every node, solver numbers, a "not converged" badge, a long error),
//! every text at zoom 1 is at least egui's small size, and at the zooms Fit uses (the shipped
//! graphs fit at 0.5 or more) each text lies inside its node's frame and is not clipped.

use egui::{FontId, Pos2, RawInput, Rect, Shape};
use flip_editor::graph::convert::{from_doc, EditorDoc};
use flip_editor::graph::layout::drawn_rects;
use flip_editor::types::{NodeStatus, UserState};
use flip_graph::GraphDoc;
use flip_host::PluginSet;
use std::collections::HashMap;
use std::sync::Arc;

/// A running simulation's status, with a long error on the pressure node.
fn status(doc: &GraphDoc) -> HashMap<String, NodeStatus> {
    doc.nodes
        .iter()
        .map(|n| {
            let mut s = NodeStatus {
                time_ms: Some(1234.56),
                ..Default::default()
            };
            if n.kind == "pressure" {
                s.stats = Some(std::sync::Arc::new(flip_nodes::stats::SolveReport {
                    iterations: 12345,
                    residual: 1.5e-12,
                    ..Default::default()
                }));
                s.converged = Some(false);
                s.errors = vec!["pressure: the solver `pcg` did not converge after 12345 \
                                 iterations (residual 1.5e-12 above the tolerance 1e-14)"
                    .into()];
            }
            (n.id.clone(), s)
        })
        .collect()
}

/// Draws `ed` at `zoom` (three passes, so that sizes settle); the texts drawn inside nodes
/// with their clip rectangles and the rectangle of the node holding them.
fn texts_at(ed: &mut EditorDoc, user: &mut UserState, zoom: f32) -> (egui::Context, Vec<Text>) {
    let ctx = egui::Context::default();
    let mut shapes = vec![];
    for _ in 0..3 {
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(8000.0, 4000.0))),
            ..Default::default()
        };
        let out = ctx.run(input, |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                let before = ed.state.pan_zoom.zoom;
                if before != zoom {
                    ed.state.zoom(ui, zoom / before);
                    ed.track_zoom(before);
                }
                let _ = flip_editor::graph::canvas::draw(&mut ed.state, ui, user);
            });
        });
        shapes = out.shapes;
    }
    let nodes: Vec<Rect> = drawn_rects(&ctx, ed.state.graph.iter_nodes())
        .into_values()
        .collect();
    let texts = shapes
        .into_iter()
        .filter_map(|s| {
            let Shape::Text(t) = s.shape else { return None };
            let rect = t.galley.rect.translate(t.pos.to_vec2());
            let node = *nodes.iter().find(|n| n.contains(rect.center()))?;
            let height = t.galley.rows.iter().flat_map(|r| &r.glyphs);
            let height = height.map(|g| g.font_height).fold(f32::INFINITY, f32::min);
            Some(Text {
                text: t.galley.text().to_string(),
                rect,
                height,
                clip: s.clip_rect,
                node,
            })
        })
        .collect();
    (ctx, texts)
}

struct Text {
    text: String,
    rect: Rect,
    /// Smallest glyph line height.
    height: f32,
    clip: Rect,
    node: Rect,
}

#[test]
fn node_text_is_readable_at_zoom_1_and_never_clipped() {
    let registry = Arc::new(flip_nodes::builtin_registry(Arc::new(PluginSet::default())));
    let doc = GraphDoc::from_ron(flip_editor::graph::document::DEFAULT_SCENE, "built-in").unwrap();
    let mut user = UserState::new(registry.clone());
    user.status = status(&doc);
    for zoom in [1.0, 0.7, 0.5] {
        let mut ed = from_doc(&doc, &registry);
        let (ctx, texts) = texts_at(&mut ed, &mut user, zoom);
        assert!(texts.len() > 20, "{} texts in nodes", texts.len());
        let small = ctx.fonts(|f| f.row_height(&FontId::proportional(9.0)));
        assert!(
            texts.iter().any(|t| t.text.contains("did not converge")),
            "the error is drawn"
        );
        for t in &texts {
            let (text, rect) = (&t.text, t.rect);
            if zoom == 1.0 {
                assert!(t.height >= small - 0.01, "`{text}`: {} px", t.height);
            }
            let node = t.node.expand(1.0);
            assert!(
                node.contains_rect(rect),
                "zoom {zoom}: `{text}` outside {node:?}"
            );
            assert!(t.clip.contains_rect(rect), "zoom {zoom}: `{text}` clipped");
        }
    }
}
