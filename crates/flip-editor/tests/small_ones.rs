//! Issue 37, item 6: the small things users notice, in the whole editor driven headless.

mod common;

use common::app_ui::{small_graph, EditorUi};
use egui::{Key, Modifiers, Shape};
use flip_graph::{GraphDoc, NodeDoc};

#[test]
fn typing_nan_keeps_the_old_value() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |_| {});
    let mut ui = EditorUi::open(Some(&path));
    // gravity's y component, a vector field
    let field = ui.find_text("-9.81");
    assert_eq!(field.len(), 1, "one -9.81 shown");
    ui.type_into(field[0], "nan");
    ui.press(Key::S, Modifiers::COMMAND);
    let saved = GraphDoc::load(&path).unwrap();
    let g = &saved.node("gravity").unwrap().params["gravity"];
    assert_eq!(*g, flip_graph::ParamValue::Vector(vec![0.0, -9.81, 0.0]));
    let shown = ui.all_text();
    assert!(shown.iter().any(|t| t == "-9.81"), "still shown");
    let bad: Vec<&String> = (shown.iter())
        .filter(|t| t.contains("inf") || t.contains("NaN") || t.contains('⚠'))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn undoing_every_edit_leaves_nothing_unsaved() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |_| {});
    let mut ui = EditorUi::open(Some(&path));
    assert!(!ui.title.ends_with('*'), "{}", ui.title);
    let field = ui.find_text("-9.81");
    ui.type_into(field[0], "-5");
    assert!(ui.title.ends_with('*'), "edited: {}", ui.title);
    ui.press(Key::Z, Modifiers::COMMAND);
    assert!(!ui.title.ends_with('*'), "all undone: {}", ui.title);
    ui.press(Key::Y, Modifiers::COMMAND);
    assert!(ui.title.ends_with('*'), "redone: {}", ui.title);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_click_on_a_title_selects_and_every_glyph_drawn_exists_wire_names_included() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |doc| {
        doc.nodes.push(NodeDoc::new("scratch", "gravity"));
        doc.layout
            .positions
            .insert("scratch".into(), (40.0, 1500.0));
    });
    let mut ui = EditorUi::open(Some(&path));
    // the scratch node's title text ("Gravity", next to its id), after Fit zoomed out
    let id = ui.find_text("scratch")[0];
    let title = (ui.find_text("Gravity").into_iter())
        .min_by(|a, b| a.distance(id).total_cmp(&b.distance(id)))
        .unwrap();
    ui.click(title);
    // selected, an unwired node offers the wires it can go on
    let insert = ui.find_text("Insert on wire");
    assert_eq!(insert.len(), 1, "the title click selected the node");
    let shapes = ui.frame(vec![]);
    // the menu's entries, as the node draws them
    let wire = flip_graph::EdgeDoc::new("p2g.velocity", "gravity.velocity");
    let label = flip_editor::graph::doc_edits::wire_label(&wire);
    let body = egui::TextStyle::Button.resolve(&ui.ctx.style());
    let absent: Vec<char> = (label.chars())
        .filter(|c| !ui.ctx.fonts(|f| f.has_glyph(&body, *c)))
        .collect();
    assert!(absent.is_empty(), "{label:?} lacks {absent:?}");
    let missing = missing_glyphs(&ui.ctx, &shapes);
    assert!(missing.is_empty(), "drawn without a glyph: {missing:?}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The characters of painted texts that their font has no glyph for (drawn as a box).
fn missing_glyphs(ctx: &egui::Context, shapes: &[Shape]) -> Vec<(char, String)> {
    let mut out = vec![];
    for s in shapes {
        let Shape::Text(t) = s else { continue };
        let job = &t.galley.job;
        for section in &job.sections {
            let text = &job.text[section.byte_range.clone()];
            for c in text.chars().filter(|c| !c.is_whitespace()) {
                if !ctx.fonts(|f| f.has_glyph(&section.format.font_id, c)) {
                    out.push((c, job.text.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn paste_puts_the_nodes_at_the_pointer() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |_| {});
    let doc = GraphDoc::load(&path).unwrap();
    let text = flip_editor::graph::clipboard::copy(&doc, &["gravity".to_string()]);
    let mut ui = EditorUi::open(Some(&path));
    let original = ui.find_text("gravity")[0];
    // a spot well inside the canvas, away from the copied node
    let at = egui::pos2(450.0, 450.0);
    assert!((at - original).length() > 150.0, "{original:?}");
    ui.frame(vec![egui::Event::PointerMoved(at)]);
    ui.frame(vec![egui::Event::Paste(text)]);
    ui.settle();
    let pasted: Vec<egui::Pos2> = common::app_ui::texts(&ui.frame(vec![]))
        .into_iter()
        .filter(|(t, _)| t.starts_with("gravity") && t != "gravity")
        .map(|(_, r)| r.center())
        .collect();
    assert_eq!(pasted.len(), 1, "one pasted node");
    // its title bar (where the id label is) starts at the pointer
    let d = pasted[0] - at;
    assert!(
        (0.0..200.0).contains(&d.x) && (0.0..40.0).contains(&d.y),
        "{d:?}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn an_open_combo_shows_no_tooltip_over_its_entries() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |_| {});
    let mut ui = EditorUi::open(Some(&path));
    let combo = ui.find_text("pcg/mic0-pcg");
    assert_eq!(combo.len(), 1, "the pressure node's solver combo");
    ui.click(combo[0]);
    assert!(
        !ui.find_text("direct/cholesky").is_empty(),
        "the list is open"
    );
    // the pointer rests on the combo well past the tooltip delay
    ui.frame(vec![egui::Event::PointerMoved(
        combo[0] + egui::vec2(2.0, 0.0),
    )]);
    let tooltip = (0..15).any(|_| {
        ui.frame(vec![]);
        ui.ctx.memory(|m| {
            (m.areas().visible_layer_ids().iter()).any(|l| l.order == egui::Order::Tooltip)
        })
    });
    assert!(!tooltip, "a tooltip covers the list");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
