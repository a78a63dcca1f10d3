//! Hostile plugin libraries (issues 17 and 36): each malformed table, crashing or hanging
//! library, FIFO, truncated copy and impersonation is refused or reported with its reason,
//! naming the file, while the bundled plugins still load; and in calls, what a plugin leaves
//! outside the unknowns, a convergence it claims against the host's bound, and service calls
//! with forged or stale contexts.

use flip_core::Grid3;
use flip_graph::{ParamValue, RunError, Simulation};
use flip_host::probe::ProbeCommand;
use flip_host::{
    bundled_plugin_dirs, default_plugin_dirs, LoadOptions, PluginError, PluginSet, SolverInstance,
};
use flip_nodes::kinds::SCALAR;
use flipgraph_tests::{graph, graphs_dir, hostile_copy, set};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn probe() -> ProbeCommand {
    ProbeCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-probe").into(),
        args: Vec::new(),
        timeout: Duration::from_secs(3),
    }
}

fn options(user: &Path, cache: &Path) -> LoadOptions {
    LoadOptions {
        bundled_dirs: bundled_plugin_dirs(),
        user_dirs: vec![user.to_path_buf()],
        probe: Some(probe()),
        cache_dir: Some(cache.to_path_buf()),
        ..LoadOptions::default()
    }
}

/// Loads the bundled plugins plus `user`; checks the bundled ones are there.
fn load(user: &Path, cache: &Path) -> PluginSet {
    let set = PluginSet::load(&options(user, cache));
    for id in ["pcg", "multigrid", "direct", "lcp"] {
        assert!(
            set.plugins.iter().any(|p| p.id == id),
            "{id} missing: {:?}",
            set.refused
        );
    }
    set
}

fn refusal_of(set: &PluginSet, file: &Path) -> String {
    let name = file.display().to_string();
    let found: Vec<String> = set
        .refused
        .iter()
        .map(ToString::to_string)
        .filter(|m| m.contains(&name))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one refusal naming {name}: {:?}",
        set.refused
    );
    let msg = found.into_iter().next().unwrap();
    assert!(
        !msg.chars().any(char::is_control),
        "control characters in {msg:?}"
    );
    msg
}

#[test]
fn malformed_tables_and_crashing_libraries_are_refused_with_their_reason() {
    let cases = [
        ("null-describe", "required entry `describe` is null"),
        ("null-solve", "required entry `solve` is null"),
        (
            "huge-count",
            "algorithm_count 4294967295 exceeds the limit of 256",
        ),
        (
            "lazy-describe",
            "describe(0) returned OK but wrote no description",
        ),
        ("null-params", "params is null but param_count is 1"),
        (
            "null-name",
            "describe(0) wrote a description whose `name` is null",
        ),
        ("bad-range", "range [3, 1] is empty"),
        ("nan-default", "default NaN is not finite"),
        ("bad-choice", "default 5 is not finite within [0, 1]"),
        ("reserved-name", "`solver`: reserved by the pressure node"),
        ("empty-id", "plugin id `` is not an id"),
        ("slash-id", "plugin id `pcg/cg` is not an id"),
        ("partial-state", "must be all present or all null"),
        (
            "table-0x10",
            "the table points at 0x10, where nothing is mapped",
        ),
        ("state-size-data", "entry `state_size` points at 0x"),
        (
            "wild-label",
            "algorithm #0: `claims-converged`: label points at 0x10, where nothing is mapped",
        ),
        ("ctor-segv", "killed by signal 11 (SIGSEGV)"),
        ("ctor-exit", "exited with status 0 before answering"),
        ("ctor-hang", "did not finish within 3.0 s"),
        ("entry-panic", "killed by signal 6 (SIGABRT)"),
    ];
    let cache = tempfile::tempdir().unwrap();
    for (mode, reason) in cases {
        let dir = tempfile::tempdir().unwrap();
        let file = hostile_copy(dir.path(), mode, mode.replace('-', "_").as_str());
        let set = load(dir.path(), cache.path());
        assert!(
            !set.plugins.iter().any(|p| p.path == file),
            "{mode} was loaded"
        );
        let msg = refusal_of(&set, &file);
        assert!(msg.contains(reason), "{mode}: {msg}");
        if mode == "state-size-data" {
            assert!(
                msg.contains("data of the library (not in an executable segment)"),
                "{msg}"
            );
        }
    }
    // Crash verdicts are cached by content hash: the second look does not start a child.
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_copy(dir.path(), "ctor-segv", "again");
    let start = Instant::now();
    let msg = refusal_of(&PluginSet::load(&options(dir.path(), cache.path())), &file);
    assert!(msg.contains("(cached verdict)"), "{msg}");
    eprintln!("load with a cached crash verdict: {:?}", start.elapsed());
}

#[test]
fn an_entry_symbol_that_names_data_is_refused_before_it_is_called() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = hostile_copy(dir.path(), "ok", "entry_data");
    flipgraph_tests::point_entry_at_data(&file);
    let set = load(dir.path(), cache.path());
    let msg = refusal_of(&set, &file);
    assert!(
        msg.contains("the entry point `flipgraph_plugin_entry` points at 0x")
            && msg.contains("data of the library (not in an executable segment)"),
        "{msg}"
    );
}

#[test]
fn plugin_text_is_sanitised_when_read() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_copy(dir.path(), "escape-text", "escape");
    let set = load(dir.path(), cache.path());
    let p = set
        .plugins
        .iter()
        .find(|p| p.id == "hostile")
        .expect("loads: names may be any text");
    assert_eq!(p.name, "Evil\\e[2J\\nerror: forged line");
    assert_eq!(p.algorithms[0].label, "Label\\e]0;pwned\\u{7} \\e[2J");
}

#[test]
fn fifos_and_truncated_copies_are_refused_without_hanging() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fifo = dir.path().join("libflipgraph_fifo.so");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let real = bundled("pcg");
    let bytes = std::fs::read(&real).unwrap();
    let cut = dir.path().join("libflipgraph_cut.so");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let set = load(dir.path(), cache.path());
    assert!(refusal_of(&set, &fifo).contains("not a regular file"));
    assert!(refusal_of(&set, &cut).contains("truncated"));
}

/// The file the bundled plugin `id` is loaded from.
fn bundled(id: &str) -> PathBuf {
    let set = PluginSet::load_dirs(&bundled_plugin_dirs());
    let p = set
        .plugins
        .iter()
        .find(|p| p.id == id)
        .expect("bundled plugin built");
    p.path.clone()
}

#[test]
fn shadowing_a_bundled_plugin_is_never_silent() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Same file name as the bundled pcg, other content.
    let same_name = hostile_copy(dir.path(), "ok", "pcg");
    let set = load(dir.path(), cache.path());
    let msg = refusal_of(&set, &same_name);
    assert!(
        msg.contains("shadows the bundled") && msg.contains(&bundled("pcg").display().to_string()),
        "{msg}"
    );
    // Same id, other content and file name: a patched copy of the real plugin.
    let dir2 = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(bundled("pcg")).unwrap();
    let at = bytes
        .windows(12)
        .position(|w| w == b"Precondition")
        .expect("name string");
    bytes[at] = b'p';
    let impostor = dir2.path().join("libflipgraph_mypcg.so");
    std::fs::write(&impostor, bytes).unwrap();
    let set = load(dir2.path(), cache.path());
    let msg = refusal_of(&set, &impostor);
    assert!(
        matches!(set.refused.last(), Some(PluginError::Shadowed { id, .. }) if id == "pcg"),
        "{msg}"
    );
    // An identical copy is the same plugin: skipped quietly.
    let dir3 = tempfile::tempdir().unwrap();
    let copy = dir3.path().join("libflipgraph_pcg.so");
    std::fs::copy(bundled("pcg"), &copy).unwrap();
    let quiet = load(dir3.path(), cache.path());
    assert!(!quiet
        .refused
        .iter()
        .any(|e| e.to_string().contains(&copy.display().to_string())));
    // With the explicit flag the user's plugin wins, and a warning names both files.
    let set = PluginSet::load(&LoadOptions {
        allow_override: true,
        ..options(dir2.path(), cache.path())
    });
    let pcg = set.plugins.iter().find(|p| p.id == "pcg").unwrap();
    assert_eq!(pcg.path, impostor);
    assert!(
        set.warnings
            .iter()
            .any(|w| w.contains("overrides the bundled") && w.contains("libflipgraph_mypcg")),
        "{:?}",
        set.warnings
    );
}

/// The bundled plugins plus a copy of the fixture in `mode`, as `hostile`.
fn with_hostile(mode: &str, dir: &Path) -> PluginSet {
    let mut plugins = PluginSet::load_dirs(&default_plugin_dirs());
    let copy = hostile_copy(dir, mode, "hostile");
    assert!(plugins.add_file(&copy).is_none());
    plugins
}

/// Three frames of the shipped 2D dam break at 40² whose pressure node solves with the
/// fixture's `algorithm` (in `mode`) after `fail_after` honest solves; the pressure output of
/// every substep.
fn run_hostile(
    mode: &str,
    algorithm: &str,
    fail_after: f64,
) -> (Result<(), RunError>, Vec<Arc<Grid3<f32>>>) {
    let lib = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(Arc::new(with_hostile(mode, lib.path())));
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [40, 40, 1];
    doc.settings.cell_size = 1.0 / 40.0;
    let solver = ParamValue::Text(format!("hostile/{algorithm}"));
    set(&mut doc, "pressure", "solver", solver);
    set(
        &mut doc,
        "pressure",
        "fail_after",
        ParamValue::Number(fail_after),
    );
    let out = tempfile::tempdir().unwrap();
    let mut sim = Simulation::new(&doc, &registry, out.path(), &graphs_dir()).expect("valid");
    sim.set_probes(&[("pressure", "pressure")]);
    let mut pressures = Vec::new();
    let result = (0..3).try_for_each(|_| {
        sim.advance_frame()?;
        let p = sim.probed()[0].as_ref().and_then(|v| v.shared_as(SCALAR));
        pressures.extend(p);
        Ok(())
    });
    (result, pressures)
}

/// The message of the pressure node's failure.
fn pressure_failure(result: Result<(), RunError>) -> String {
    match result {
        Err(RunError::NodeFailed { node, error, .. }) if node == "pressure" => error.to_string(),
        other => panic!("expected the pressure node to fail, got {other:?}"),
    }
}

#[test]
fn a_create_that_returns_no_instance_is_named_precisely() {
    let lib = tempfile::tempdir().unwrap();
    let plugins = with_hostile("null-instance", lib.path());
    let hostile = plugins.plugins.iter().find(|p| p.id == "hostile").unwrap();
    let Err(e) = SolverInstance::create(hostile.clone(), "claims-converged", &[]) else {
        panic!("an instance without a handle was accepted");
    };
    let message = e.to_string();
    assert!(
        message.contains("`create` returned OK but wrote a null instance handle"),
        "{message}"
    );
}

#[test]
fn what_a_plugin_writes_outside_the_unknowns_never_reaches_the_pressure_output() {
    let (result, pressures) = run_hostile("ok", "nan-outside", 0.0);
    result.expect("the unknowns are right: the run goes on");
    assert!(!pressures.is_empty());
    for p in &pressures {
        assert!(p.data.iter().all(|v| v.is_finite()), "NaN in the output");
    }
}

#[test]
fn a_claimed_convergence_is_held_to_the_hosts_bound_whatever_the_tolerances_are_called() {
    for algorithm in ["rtol-liar", "doubled"] {
        let message = pressure_failure(run_hostile("ok", algorithm, 2.0).0);
        assert!(
            message.contains(&format!(
                "plugin `hostile` algorithm `{algorithm}` returned a wrong result"
            )) && message.contains("the most the host accepts from a converged solve"),
            "{algorithm}: {message}"
        );
    }
}

#[test]
fn service_calls_with_forged_or_stale_contexts_are_refused_and_reported() {
    let message = pressure_failure(run_hostile("forged-context", "claims-converged", 1e6).0);
    assert!(
        message.contains("plugin `hostile` algorithm `claims-converged`")
            && message.contains(
                "2 call(s) of the host's services passed a context the host did not hand out"
            ),
        "{message}"
    );
}
