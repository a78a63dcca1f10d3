//! Plugin loading and robustness: what is not a plugin (or is one for another ABI) is refused
//! with the file and reason; a plugin that panics or returns NaN fails its node cleanly;
//! frames written before a failure stay on disk, whole.

use flip_graph::{ParamValue::*, RunError, Simulation};
use flip_host::{
    default_plugin_dirs, LoadOptions, LoadedPlugin, PluginError, PluginSet, SolverInstance,
    StateSupport,
};
use flip_sdk::OwnedProblem;
use flipgraph_tests::{fixture_lib, graph, graphs_dir, plugins, registry, set};
use std::sync::Arc;

/// A 2-cell problem: two fluid cells side by side between air, so `A = [[2, -1], [-1, 2]]`.
fn tiny_problem() -> OwnedProblem {
    let mut p = OwnedProblem::empty([4, 1, 1], 1.0);
    p.cell_kind = vec![1, 0, 0, 1].into();
    p.assemble_matrix();
    p.rhs = vec![0.0, 1.0, 2.0, 0.0].into();
    p
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
    let mut view = t.view();
    let stats = solver.solve(&mut view).unwrap();
    assert_eq!(stats.converged, 1);
    // [[2,-1],[-1,2]] p = [1,2] → p = [4/3, 5/3]
    assert!(
        (t.pressure[1] - 4.0 / 3.0).abs() < 1e-9 && (t.pressure[2] - 5.0 / 3.0).abs() < 1e-9,
        "{:?}",
        t.pressure
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
fn a_misnamed_library_in_a_user_folder_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let misnamed = dir.path().join("libsor.so");
    std::fs::copy(fixture_lib("fixture_faulty"), &misnamed).unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"not a library").unwrap();
    let set = PluginSet::load(&LoadOptions {
        user_dirs: vec![dir.path().to_path_buf()],
        ..LoadOptions::default()
    });
    assert!(set.plugins.is_empty() && set.refused.is_empty());
    assert_eq!(set.warnings.len(), 1, "{:?}", set.warnings);
    let w = &set.warnings[0];
    assert!(
        w.contains(&misnamed.display().to_string())
            && w.contains("`libflipgraph_<id>.so`")
            && w.contains("`flipgraph-<id>`")
            && !w.contains('\n'),
        "{w}"
    );
}

#[test]
fn a_missing_plugin_folder_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("plugnis");
    let set = PluginSet::load(&LoadOptions {
        user_dirs: vec![missing.clone()],
        ..LoadOptions::default()
    });
    assert_eq!(
        set.warnings,
        [format!(
            "plugin folder {} does not exist",
            missing.display()
        )]
    );
}

#[test]
fn only_solvers_that_keep_state_claim_to_save_it() {
    let set = PluginSet::load_dirs(&default_plugin_dirs());
    let plugin = |id: &str| set.plugins.iter().find(|p| p.id == id).expect(id).clone();
    for id in ["pcg", "multigrid", "direct"] {
        let p = plugin(id);
        assert_eq!(p.state_support(), StateSupport::KeepsNone, "{id}");
        assert!(p.algorithms.iter().all(|a| !a.saves_state()), "{id}");
    }
    let lcp = plugin("lcp");
    assert_eq!(lcp.state_support(), StateSupport::Saves);
    let saving: Vec<&str> = lcp
        .algorithms
        .iter()
        .filter(|a| a.saves_state())
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(saving, ["pi-pcg", "pi-mg", "pe-pcg", "pe-mg"]);
}

#[test]
fn a_plugin_for_another_abi_version_is_refused() {
    let err = LoadedPlugin::load(&fixture_lib("fixture_wrong_abi")).unwrap_err();
    match &err {
        PluginError::AbiMismatch {
            found, expected, ..
        } => assert_eq!((*found, *expected), (1, flip_abi::ABI_VERSION)),
        other => panic!("expected an ABI mismatch, got {other}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("fixture_wrong_abi")
            && msg.contains("built for ABI 1; rebuild it against flipgraph's ABI 2"),
        "{msg}"
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
        Err(RunError::NodeFailed { node, error, .. }) => {
            let message = error.to_string();
            assert_eq!(node, "pressure");
            assert!(
                message.contains("plugin panicked: deliberate panic"),
                "{message}"
            );
            // the plugin's typed error travels with the node's failure
            let cause = error.cause::<flip_nodes::nodes::pressure::SolverFailure>();
            assert!(
                matches!(cause, Some(f) if matches!(f.error, flip_host::PluginError::Call { .. })),
                "{error:?}"
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
            node, error, frame, ..
        }) => {
            let message = error.to_string();
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
            && e.field.as_deref() == Some("solver")
            && e.message
                .contains("none are available (for a solver: no plugin is loaded")),
        "{errors:#?}"
    );
    assert!(plugins().plugins.len() >= 2);
}

/// A run of the dam break whose pressure node uses the hostile fixture's `algorithm` after
/// `fail_after` honest solves.
fn hostile_run(algorithm: &str, fail_after: f64) -> (Result<(), RunError>, tempfile::TempDir) {
    let lib = tempfile::tempdir().unwrap();
    let mut plugins = PluginSet::load_dirs(&default_plugin_dirs());
    let copy = flipgraph_tests::hostile_copy(lib.path(), "ok", "hostile");
    assert!(plugins.add_file(&copy).is_none());
    let registry = flip_nodes::builtin_registry(Arc::new(plugins));
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [24, 24, 1];
    doc.settings.cell_size = 1.0 / 24.0;
    let solver = Text(format!("hostile/{algorithm}"));
    set(&mut doc, "pressure", "solver", solver);
    set(&mut doc, "pressure", "fail_after", Number(fail_after));
    let out = tempfile::tempdir().unwrap();
    let mut sim = Simulation::new(&doc, &registry, out.path(), &graphs_dir()).expect("valid");
    let result = (0..10).try_for_each(|_| sim.advance_frame().map(|_| ()));
    (result, out)
}

fn node_failure(result: Result<(), RunError>) -> (String, u32) {
    match result {
        Err(RunError::NodeFailed {
            node, error, frame, ..
        }) => {
            let message = error.to_string();
            assert_eq!(node, "pressure");
            assert!(!message.chars().any(char::is_control), "{message:?}");
            (message, frame)
        }
        other => panic!("expected a node failure, got {other:?}"),
    }
}

#[test]
fn a_solve_that_lies_about_convergence_is_refused_naming_plugin_and_algorithm() {
    let (result, out) = hostile_run("claims-converged", 6.0);
    let (message, frame) = node_failure(result);
    assert!(
        message.contains("plugin `hostile` algorithm `claims-converged` returned a wrong result")
            && message.contains("reports residual 0.000e0 and convergence"),
        "{message}"
    );
    assert!(frame >= 1, "honest solves wrote frames first");
    assert!(out.path().join("frames/frame_0001.ply").exists());
    let (result, _out) = hostile_run("absurd", 0.0);
    let (message, _) = node_failure(result);
    assert!(
        message.contains("`absurd` returned a wrong result"),
        "{message}"
    );
}

#[test]
fn a_converged_claim_that_leaves_divergence_is_refused() {
    // The reported residual is true (so the residual check passes), but p = 0 leaves the
    // divergence as it was, far above what rel_tolerance = 1e-6 allows.
    let (result, out) = hostile_run("honest-zero", 3.0);
    let (message, frame) = node_failure(result);
    assert!(
        message.contains("plugin `hostile` algorithm `honest-zero` returned a wrong result")
            && message.contains(
                "the most the host accepts from a converged solve (10 times its tolerance"
            ),
        "{message}"
    );
    assert!(frame >= 1 && out.path().join("frames/frame_0001.ply").exists());
}

#[test]
fn plugin_messages_and_logs_are_escaped() {
    let (result, _out) = hostile_run("escape-error", 0.0);
    let (message, _) = node_failure(result);
    assert!(
        message.contains("\\e[31mforged\\nerror: everything is fine"),
        "{message}"
    );
    assert!(
        message.contains("plugin log: about to fail\\e[2J\\nerror: forged log"),
        "{message}"
    );
}
