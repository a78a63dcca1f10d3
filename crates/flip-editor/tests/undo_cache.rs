//! Issue 37, item 2: the cache belongs to the graph that produced it. Frames simulated after an
//! edit are dropped when the edit is undone, and the run continues as the restored graph's own.

mod common;

use common::app_ui::{position_bits, small_graph, EditorUi};
use egui::{Key, Modifiers, Pos2};

/// The frames cached, as position bits.
fn cached(ui: &EditorUi) -> Vec<Vec<[u32; 3]>> {
    position_bits(ui.app.frames().iter().map(|f| f.sample.points.clone()))
}

/// The Bypass button of the node titled `title` (the nearest one below its title).
fn bypass_button(ui: &mut EditorUi, title: &str) -> Pos2 {
    // the title is the topmost label reading `title` (a parameter may read the same)
    let t = ui
        .find_text(title)
        .into_iter()
        .min_by(|a, b| a.y.total_cmp(&b.y))
        .expect("the node is shown");
    ui.find_text("Bypass")
        .into_iter()
        .filter(|b| b.y > t.y)
        .min_by(|a, b| a.distance(t).total_cmp(&b.distance(t)))
        .expect("a Bypass button")
}

#[test]
fn undo_drops_the_frames_of_the_undone_edit() {
    let path = small_graph("dam_break_2d.ron", 32, 1000, |_| {});
    let mut ui = EditorUi::open(Some(&path));
    // play a few frames of the graph as it is
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("4 frames", |app| app.frames().len() >= 4);
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("paused", |app| !app.is_simulating());
    let before = cached(&ui);
    // bypass gravity: the run continues from the shown frame without it
    let button = bypass_button(&mut ui, "Gravity");
    ui.click(button);
    let edited_at = ui.app.frames().len();
    assert!(
        edited_at >= 1 && edited_at <= before.len(),
        "continues from here"
    );
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("3 frames without gravity", |app| {
        app.frames().len() >= edited_at + 3
    });
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("paused", |app| !app.is_simulating());
    // undo: the frames simulated without gravity go, the cache bar shows it
    ui.press(Key::Z, Modifiers::COMMAND);
    assert_eq!(
        ui.app.frames().len(),
        edited_at,
        "the undone edit's frames are dropped"
    );
    // and the run goes on as the restored graph's own run
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("past the first run", |app| {
        app.frames().len() > before.len()
    });
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("paused", |app| !app.is_simulating());
    let after = cached(&ui);
    assert!(
        after[..before.len()] == before[..],
        "the restored graph's frames"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
