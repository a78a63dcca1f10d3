//! Plugin loading and robustness: what is not a plugin (or is one for another ABI) is refused
//! with the file and reason; a plugin that panics or returns NaN fails its node cleanly;
//! frames written before a failure stay on disk, whole.

use flip_graph::{ParamValue::*, RunError, Simulation};
use flip_plugin::host::{
    default_plugin_dirs, LoadedPlugin, PluginError, PluginSet, SolverInstance,
};
use flip_solvers_free::tiny_problem;
use flipgraph_tests::{fixture_lib, graph, graphs_dir, plugins, registry, set};
use std::sync::Arc;

/// A 2-cell problem built by hand (no solver crate needed): two fluid cells side by side
/// between air, so `A = [[2, -1], [-1, 2]]`.
mod flip_solvers_free {
    pub struct Tiny {
        pub kind: Vec<u8>,
        pub diag: Vec<f32>,
        pub offx: Vec<f32>,
        pub zero: Vec<f32>,
        pub rhs: Vec<f64>,
        pub phi: Vec<f32>,
        pub flags: Vec<u8>,
        pub p: Vec<f64>,
    }
    pub fn tiny_problem() -> Tiny {
        // cells: air, fluid, fluid, air (4×1×1)
        Tiny {
            kind: vec![1, 0, 0, 1],
            diag: vec![0.0, 2.0, 2.0, 0.0],
            offx: vec![0.0, -1.0, 0.0, 0.0],
            zero: vec![0.0; 4],
            rhs: vec![0.0, 1.0, 2.0, 0.0],
            phi: vec![0.5, -0.5, -0.5, 0.5],
            flags: vec![0; 4],
            p: vec![0.0; 4],
        }
    }
}

#[test]
fn a_real_plugin_loads_lists_algorithms_and_solves() {
    // target/<profile>/deps: on a clean checkout `cargo test` builds plugins only there.
    let set = PluginSet::load_dirs(&default_plugin_dirs());
    let pcg = set
        .plugins
        .iter()
        .find(|p| p.id == "pcg")
        .expect("pcg plugin built")
        .clone();
    let mic = pcg.algorithm("mic0-pcg").expect("MIC(0) offered");
    assert!(mic.params.iter().any(|p| p.name == "rel_tolerance"));
    let mut solver =
        SolverInstance::create(pcg, "mic0-pcg", &[("rel_tolerance".into(), 1e-12)]).unwrap();
    let mut t = tiny_problem();
    let mut view = flip_plugin::sdk::Problem {
        dims: [4, 1, 1],
        dimension: 2,
        dx: 1.0,
        lcp: false,
        step: 0,
        cell_kind: &t.kind,
        diag: &t.diag,
        off: [&t.offx, &t.zero, &t.zero],
        rhs: &t.rhs,
        liquid_phi: &t.phi,
        solid_phi: &t.phi,
        complementarity: &t.flags,
        face_open: [&t.offx, &t.zero, &t.zero],
        pressure: &mut t.p,
    };
    let stats = solver.solve(&mut view).unwrap();
    assert_eq!(stats.converged, 1);
    // [[2,-1],[-1,2]] p = [1,2] → p = [4/3, 5/3]
    assert!(
        (t.p[1] - 4.0 / 3.0).abs() < 1e-9 && (t.p[2] - 5.0 / 3.0).abs() < 1e-9,
        "{:?}",
        t.p
    );
}

#[test]
fn a_library_that_is_not_a_plugin_is_refused() {
    let err = LoadedPlugin::load(std::path::Path::new("libm.so.6")).unwrap_err();
    assert!(matches!(err, PluginError::MissingEntry { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("libm.so.6 is not a flipgraph plugin"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("libflipgraph_garbage.so");
    std::fs::write(&garbage, b"this is not an ELF file").unwrap();
    let set = PluginSet::load_dirs(&[dir.path().to_path_buf()]);
    assert!(set.plugins.is_empty());
    let msg = set.refused[0].to_string();
    assert!(
        msg.starts_with("cannot open plugin") && msg.contains("libflipgraph_garbage.so"),
        "{msg}"
    );
}

#[test]
fn a_plugin_for_another_abi_version_is_refused() {
    let err = LoadedPlugin::load(&fixture_lib("fixture_wrong_abi")).unwrap_err();
    match &err {
        PluginError::AbiMismatch {
            found, expected, ..
        } => assert_eq!((*found, *expected), (999, flip_plugin::ABI_VERSION)),
        other => panic!("expected an ABI mismatch, got {other}"),
    }
    assert!(
        err.to_string().contains("fixture_wrong_abi") && err.to_string().contains("rebuild"),
        "{err}"
    );
}

fn failing_run(
    algorithm: &str,
    fail_after: f64,
    export: bool,
) -> (Result<(), RunError>, tempfile::TempDir) {
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [24, 24, 1];
    doc.settings.cell_size = 1.0 / 24.0;
    set(
        &mut doc,
        "pressure",
        "solver",
        Text(format!("faulty/{algorithm}")),
    );
    set(&mut doc, "pressure", "fail_after", Number(fail_after));
    set(&mut doc, "export", "ply", Bool(export));
    set(&mut doc, "export", "png", Bool(export));
    let out = tempfile::tempdir().unwrap();
    let mut sim =
        Simulation::new(&doc, &registry(), out.path(), &graphs_dir()).expect("valid graph");
    let result = (0..10).try_for_each(|_| sim.advance_frame().map(|_| ()));
    (result, out)
}

#[test]
fn a_panicking_plugin_fails_its_node_cleanly() {
    let (result, _out) = failing_run("panic", 0.0, false);
    match result {
        Err(RunError::NodeFailed { node, message, .. }) => {
            assert_eq!(node, "pressure");
            assert!(
                message.contains("plugin panicked: deliberate panic"),
                "{message}"
            );
        }
        other => panic!("expected a node failure, got {other:?}"),
    }
}

#[test]
fn nan_from_a_plugin_is_caught_and_earlier_frames_survive() {
    let (result, out) = failing_run("nan", 6.0, true);
    match result {
        Err(RunError::NodeFailed {
            node,
            message,
            frame,
            ..
        }) => {
            assert_eq!(node, "pressure");
            assert!(message.contains("non-finite pressure"), "{message}");
            assert!(frame >= 1, "fails after some frames were written");
        }
        other => panic!("expected a node failure, got {other:?}"),
    }
    let frames = out.path().join("frames");
    let files: Vec<String> = std::fs::read_dir(&frames)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.iter().any(|f| f == "frame_0001.ply") && files.iter().any(|f| f == "frame_0001.png"),
        "{files:?}"
    );
    assert!(
        !files.iter().any(|f| f.ends_with(".tmp")),
        "torn temp files left: {files:?}"
    );
    let ply = std::fs::read(frames.join("frame_0001.ply")).unwrap();
    assert!(ply.starts_with(b"ply\nformat binary_little_endian 1.0\n"));
}

#[test]
fn missing_solver_is_refused_with_the_available_ones() {
    let mut doc = graph("dam_break_2d.ron");
    set(&mut doc, "pressure", "solver", Text("pcg/mic0-pcg".into()));
    let empty = Arc::new(PluginSet::default());
    let errors = flip_graph::compile(&doc, &flip_nodes::builtin_registry(empty)).unwrap_err();
    assert!(
        errors.iter().any(|e| e.node.as_deref() == Some("pressure")
            && e.message.contains("no loaded plugin provides solver")),
        "{errors:#?}"
    );
    assert!(plugins().plugins.len() >= 2);
}
