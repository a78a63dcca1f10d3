//! Issue 37, item 1: what the editor runs, the CLI runs from the saved file, frame for frame. A
//! scratch node without wires is left out by both, and the editor says so on the node.

mod common;

use common::app_ui::{plugins_and_registry, position_bits, small_graph, EditorUi};
use egui::{Key, Modifiers};
use flip_editor::run::mode::LEFT_OUT;
use flip_graph::{GraphDoc, NodeDoc, RunPaths, Simulation};
use flip_nodes::kinds::CarriedParticles;

const FRAMES: u32 = 4;

#[test]
fn a_graph_with_an_unwired_scratch_node_runs_the_same_in_the_editor_and_the_cli() {
    let path = small_graph("dam_break_2d.ron", 32, FRAMES, |doc| {
        // a scratch node parked on the canvas, its required input unwired
        doc.nodes.push(NodeDoc::new("scratch", "gravity"));
    });
    let mut ui = EditorUi::open(Some(&path));
    ui.press(Key::Space, Modifiers::NONE);
    ui.until("the editor runs every frame", |app| {
        app.frames().len() == FRAMES as usize
    });
    let shown = ui.all_text();
    assert!(
        shown.iter().any(|t| t == LEFT_OUT),
        "the scratch node says it is left out"
    );
    assert!(
        !shown.iter().any(|t| t.contains("not connected")),
        "no node says `not connected`"
    );
    ui.press(Key::S, Modifiers::COMMAND);
    let editor = position_bits(ui.app.frames().iter().map(|f| f.sample.points.clone()));

    // what `flipgraph run` builds from the saved file
    let saved = GraphDoc::load(&path).unwrap();
    assert!(saved.node("scratch").is_some(), "the scratch node is saved");
    let (_, registry) = plugins_and_registry();
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
