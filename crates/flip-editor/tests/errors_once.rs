//! Issue 37, item 4: one message per problem, on the node, with the nearest names; a Swap for an
//! unknown kind; a syntax error that stays until dismissed, at the right line and column.

mod common;

use common::app_ui::{shipped_copy, small_graph, EditorUi};
use egui::Pos2;
use flip_graph::ParamValue;

/// The painted texts containing `part`.
fn texts_with(ui: &mut EditorUi, part: &str) -> Vec<String> {
    ui.all_text()
        .into_iter()
        .filter(|t| t.contains(part))
        .collect()
}

/// The label reading `text` nearest below `from`.
fn nearest_below(ui: &mut EditorUi, text: &str, from: Pos2) -> Pos2 {
    ui.find_text(text)
        .into_iter()
        .filter(|p| p.y > from.y - 5.0)
        .min_by(|a, b| a.distance(from).total_cmp(&b.distance(from)))
        .unwrap_or_else(|| panic!("no `{text}` below {from:?}"))
}

#[test]
fn each_problem_is_reported_once_on_its_node_with_the_nearest_names() {
    let path = small_graph("dam_break_2d.ron", 32, 10, |doc| {
        let solver = ParamValue::Text("pcg/mic0pcg".into());
        let pressure = doc.node_mut("pressure").unwrap();
        pressure.params.insert("solver".into(), solver);
        doc.node_mut("gravity").unwrap().kind = "gravty".into();
    });
    let mut ui = EditorUi::open(Some(&path));
    ui.settle();
    let solver = texts_with(&mut ui, "`pcg/mic0pcg` is not one of");
    assert_eq!(solver.len(), 1, "{solver:?}");
    assert!(
        solver[0].contains("did you mean `pcg/mic0-pcg`"),
        "{solver:?}"
    );
    assert!(
        !solver[0].contains("lcp/pgs"),
        "not every algorithm: {solver:?}"
    );
    let kind = texts_with(&mut ui, "unknown node kind `gravty`");
    assert_eq!(kind.len(), 1, "{kind:?}");
    assert!(kind[0].contains("did you mean `gravity`"), "{kind:?}");
    let wrong = texts_with(&mut ui, "not connected");
    assert!(wrong.is_empty(), "the node below is connected: {wrong:?}");

    // Swap offers the kind meant, and swapping clears the problem
    let message = ui.find_text(&kind[0])[0];
    let swap = nearest_below(&mut ui, "Swap", message);
    ui.click(swap);
    let gravity = nearest_below(&mut ui, "Gravity", swap);
    ui.click(gravity);
    ui.settle();
    assert!(texts_with(&mut ui, "gravty").is_empty(), "swapped");
    assert_eq!(texts_with(&mut ui, "`pcg/mic0pcg` is not one of").len(), 1);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_syntax_error_stays_until_dismissed_at_the_right_line_and_column() {
    let path = shipped_copy("dam_break_2d.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    // the comma after `frames: 100` (line 10) forgotten
    assert_eq!(text.lines().nth(9), Some("        frames: 100,"));
    std::fs::write(&path, text.replace("frames: 100,", "frames: 100")).unwrap();
    let mut ui = EditorUi::open(Some(&path));
    let shown = texts_with(&mut ui, "malformed RON");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("at 10:20: Expected comma"), "{shown:?}");
    ui.frames(20);
    assert_eq!(texts_with(&mut ui, "malformed RON").len(), 1, "still shown");
    let dismiss = ui.find_text("Dismiss");
    assert_eq!(dismiss.len(), 1);
    ui.click(dismiss[0]);
    assert!(texts_with(&mut ui, "malformed RON").is_empty(), "dismissed");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
