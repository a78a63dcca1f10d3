//! Issue 41: a graph with a node plugin (`plugins/wind`) opens in the editor, shows the plugin
//! node on the canvas under its label, runs every frame, and gives the frames the CLI gives
//! from the saved file.

mod common;

use common::app_ui::{plugins_and_registry, position_bits, small_graph, EditorUi};
use egui::{Key, Modifiers};
use flip_graph::{GraphDoc, RunPaths, Simulation};
use flip_nodes::kinds::CarriedParticles;

const FRAMES: u32 = 3;

#[test]
fn a_graph_with_a_node_plugin_runs_in_the_editor_as_in_the_cli() {
    let (_, registry) = plugins_and_registry();
    let wind = registry
        .get("wind/force_field")
        .expect("the wind plugin is built (cargo build --release) and offered to the finder");
    assert_eq!(wind.spec.category, "Forces");

    let path = small_graph("wind_dam_break_2d.ron", 32, FRAMES, |_| {});
    let mut ui = EditorUi::open(Some(&path));
    assert!(
        ui.all_text().iter().any(|t| t == "Force Field (plugin)"),
        "the plugin node is on the canvas under its label"
    );
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("the editor runs every frame", |app| {
        app.frames().len() == FRAMES as usize
    });
    ui.press(Key::S, Modifiers::COMMAND);
    let editor = position_bits(ui.app.frames().iter().map(|f| f.sample.points.clone()));

    let saved = GraphDoc::load(&path).unwrap();
    assert_eq!(saved.node("wind").unwrap().kind, "wind/force_field");
    let out = path.with_extension("out");
    let paths = RunPaths {
        out_dir: &out,
        base_dir: path.parent().unwrap(),
        allow_outside_out: false,
    };
    let mut sim = Simulation::with_paths(&saved, &registry, paths).expect("the CLI runs it");
    let cli = position_bits((0..FRAMES).map(|_| {
        sim.advance_frame().unwrap();
        let p = sim.particles().unwrap();
        p.pos.iter().map(|v| v.to_array()).collect()
    }));
    assert_eq!(editor.len(), cli.len());
    for (i, (e, c)) in editor.iter().zip(&cli).enumerate() {
        assert!(e == c, "frame {}: editor and CLI differ", i + 1);
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
