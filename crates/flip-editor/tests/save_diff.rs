//! Issue 37, item 3: saving changes only what was edited. A parameter typed in the editor and
//! saved with Ctrl+S changes one line of a commented graph file; the rest stays as written.

mod common;

use common::app_ui::{shipped_copy, EditorUi};
use egui::{Key, Modifiers};
use flip_graph::{GraphDoc, ParamValue};

#[test]
fn a_one_parameter_edit_saves_as_a_one_line_diff() {
    let path = shipped_copy("dam_break_2d.ron");
    // the file as a person wrote it: comments, their own order and spacing
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "        (id: \"g2p\", kind: \"g2p\", params: {",
        "        // the FLIP/PIC blend: lower is smoother\n        (kind: \"g2p\", id: \"g2p\",  params: {",
    );
    std::fs::write(&path, &text).unwrap();
    let mut ui = EditorUi::open(Some(&path));
    let field = ui.find_text("0.95");
    assert_eq!(field.len(), 1, "the flip_ratio field is shown");
    ui.type_into(field[0], "0.9");
    ui.press(Key::S, Modifiers::COMMAND);
    let saved = std::fs::read_to_string(&path).unwrap();
    let doc = GraphDoc::from_ron(&saved, "saved").unwrap();
    let g2p = doc.node("g2p").unwrap();
    assert_eq!(g2p.params["flip_ratio"], ParamValue::Number(0.9));
    let (before, after): (Vec<&str>, Vec<&str>) = (text.lines().collect(), saved.lines().collect());
    assert_eq!(before.len(), after.len(), "no line added or removed");
    let changed: Vec<(&&str, &&str)> = before.iter().zip(&after).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.contains("\"flip_ratio\": 0.9,"), "{changed:?}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
