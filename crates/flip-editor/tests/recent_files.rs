//! Issue 37, item 7: File ▸ Open Recent, and the last graph offered at a start without one.

mod common;

use common::app_ui::{small_graph, EditorUi};

#[test]
fn recent_graphs_are_in_the_file_menu_and_the_last_is_offered_at_start() {
    let a = small_graph("dam_break_2d.ron", 32, 10, |_| {});
    let b = small_graph("smoke_plume_2d.ron", 32, 10, |_| {});
    let list = a.with_file_name("recent_graphs");
    // open a, then b: b is the last one
    drop(EditorUi::with_recent(Some(&a), Some(list.clone())));
    drop(EditorUi::with_recent(Some(&b), Some(list.clone())));

    // a start without a graph offers b
    let mut ui = EditorUi::with_recent(None, Some(list.clone()));
    let offer = ui.find_text("Open smoke_plume_2d.ron");
    assert_eq!(offer.len(), 1, "the last graph is offered");
    ui.click(offer[0]);
    ui.frames(3);
    assert!(ui.title.contains("smoke_plume_2d.ron"), "{}", ui.title);
    assert!(
        ui.find_text("Open smoke_plume_2d.ron").is_empty(),
        "offered once"
    );

    // File ▸ Open Recent lists both, newest first; a click opens one
    let file = ui.find_text("File");
    ui.click(file[0]);
    let recent = ui.find_text("Open Recent");
    assert_eq!(recent.len(), 1, "Open Recent in the File menu");
    ui.click(recent[0]);
    let (na, nb) = (
        ui.find_text("dam_break_2d.ron"),
        ui.find_text("smoke_plume_2d.ron"),
    );
    assert!(na.len() == 1 && nb.len() == 1, "both listed");
    assert!(nb[0].y < na[0].y, "newest first");
    ui.click(na[0]);
    ui.frames(3);
    assert!(ui.title.contains("dam_break_2d.ron"), "{}", ui.title);
    let _ = std::fs::remove_dir_all(a.parent().unwrap());
    let _ = std::fs::remove_dir_all(b.parent().unwrap());
}
