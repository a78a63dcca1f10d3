//! The out-of-process solver mode (`pressure.isolation = "process"`): the same pressure as
//! in-process, bit for bit, in 2D and 3D and for CSR problems and saved state; a crashing or
//! hanging solve fails the step with a clear message; plugin messages and logs cross the
//! boundary sanitised; the fallback solver takes over; the children are always reaped.

use flip_graph::{GraphDoc, NodeEvent, ParamValue::*, Simulation};
use flip_host::{
    default_plugin_dirs, ChildCommand, PluginSet, ServiceEvent, SolveLimits, SolverInstance,
};
use flip_nodes::kinds::SCALAR;
use flip_nodes::stats::SolvedGrid;
use flip_sdk::OwnedCsr;
use flip_solvers::fixtures::{self, Scene};
use flipgraph_tests::{graph, graphs_dir, hostile_copy, set, solve};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bundled plugins (plus `extra`), with the test's solver child.
fn plugins(extra: Option<&Path>) -> Arc<PluginSet> {
    let mut set = PluginSet::load_dirs(&default_plugin_dirs());
    if let Some(file) = extra {
        assert!(set.add_file(file).is_none(), "{:?}", set.refused);
    }
    set.solver_child = Some(child());
    Arc::new(set)
}

fn child() -> ChildCommand {
    ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    }
}

/// A small graph with `solver`, isolated or not, writing nothing.
fn small(name: &str, grid: [usize; 3], solver: &str, isolation: &str) -> GraphDoc {
    let mut doc = graph(name);
    doc.settings.cell_size *= doc.settings.grid[0] as f32 / grid[0] as f32;
    doc.settings.grid = grid;
    set(&mut doc, "pressure", "solver", Text(solver.into()));
    set(&mut doc, "pressure", "isolation", Text(isolation.into()));
    for param in ["ply", "png"] {
        set(&mut doc, "export", param, Bool(false));
    }
    doc
}

fn simulation(doc: &GraphDoc, set: &Arc<PluginSet>) -> (Simulation, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(set.clone());
    let sim = Simulation::new(doc, &registry, out.path(), &graphs_dir())
        .unwrap_or_else(|e| panic!("{e:?}"));
    (sim, out)
}

/// Pressure bits at the end of each frame.
fn pressures(sim: &mut Simulation, frames: usize) -> Vec<Vec<u32>> {
    sim.set_probes(&[("pressure", "pressure")]);
    (0..frames)
        .map(|_| {
            sim.advance_frame().unwrap_or_else(|e| panic!("{e}"));
            let probe = sim.probed()[0].as_ref();
            let Some(p) = probe.and_then(|v| v.shared_as::<flip_core::Grid3<f32>>(SCALAR)) else {
                panic!("pressure probed")
            };
            p.data.iter().map(|v| v.to_bits()).collect()
        })
        .collect()
}

#[test]
fn isolated_solves_equal_in_process_solves_bit_for_bit_in_2d_and_3d() {
    let plugins = plugins(None);
    for (name, grid) in [
        ("dam_break_2d.ron", [32, 32, 1]),
        ("drop_3d.ron", [16, 16, 16]),
    ] {
        let run = |isolation| {
            let doc = small(name, grid, "multigrid/mgpcg", isolation);
            pressures(&mut simulation(&doc, &plugins).0, 3)
        };
        let (local, isolated) = (run("none"), run("process"));
        assert!(local.iter().flatten().any(|&b| f32::from_bits(b) > 0.0));
        assert_eq!(local, isolated, "{name}");
    }
}

#[test]
fn csr_problems_and_saved_state_cross_the_process_boundary_unchanged() {
    let plugins = plugins(None);
    let make = |name: &str, isolated: bool| {
        let (plugin, info) = plugins.find(name).unwrap();
        let info = info.name.clone();
        if isolated {
            SolverInstance::create_isolated(plugin, &info, &[], &child()).unwrap()
        } else {
            SolverInstance::create(plugin, &info, &[]).unwrap()
        }
    };
    let mut grid = fixtures::build(Scene::AirBubbles, [12, 10, 6], 2);
    grid.lcp = false;
    let base = OwnedCsr::from_structured(&grid.view());
    let solved: Vec<_> = [false, true]
        .map(|iso| {
            let mut c = base.clone();
            let stats = make("pcg/ic0-pcg", iso).solve_csr(&mut c.view()).unwrap();
            (c.pressure, stats.iterations)
        })
        .into();
    assert!(solved[0].1 > 0);
    assert_eq!(solved[0], solved[1], "CSR solve in-process vs isolated");
    // Policy iteration keeps the previous step's policy: saved in the child, loaded in-process.
    let steps: Vec<_> = (0..3)
        .map(|s| fixtures::build(Scene::LcpContainer, [20, 20, 1], s))
        .collect();
    let mut isolated = make("lcp/pi-pcg", true);
    assert!(isolated.is_isolated());
    for p in &steps[..2] {
        isolated.solve(&mut p.clone().view()).unwrap();
    }
    let state = isolated.save_state().unwrap().expect("state");
    let mut local = make("lcp/pi-pcg", false);
    local.load_state(&state).unwrap();
    let (mut a, mut b) = (steps[2].clone(), steps[2].clone());
    isolated.solve(&mut a.view()).unwrap();
    local.solve(&mut b.view()).unwrap();
    assert_eq!(a.pressure, b.pressure);
    isolated.reset().unwrap();
}

/// Processes whose parent is this process and that are zombies (the fewest seen in 5 s).
fn lingering_zombies() -> usize {
    let me = std::process::id().to_string();
    let count = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter(|s| {
                let after = s.rsplit_once(") ").map_or("", |(_, r)| r);
                let f: Vec<&str> = after.split(' ').collect();
                f.len() > 1 && f[0] == "Z" && f[1] == me
            })
            .count()
    };
    // Other tests of this process end children too, so a zombie may be in passing at any one
    // instant; a leaked one never goes. The least count seen over a few seconds is the answer.
    let start = Instant::now();
    let mut least = count();
    while least > 0 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
        least = least.min(count());
    }
    least
}

/// Runs `hostile/<algorithm>` isolated for up to 3 frames; the error of the failing frame.
fn hostile_run(algorithm: &str, extra: &[(&str, flip_graph::ParamValue)]) -> (String, u32) {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(Some(&hostile_copy(dir.path(), "ok", "hostile")));
    let mut doc = small(
        "dam_break_2d.ron",
        [20, 20, 1],
        "hostile/ignore-cancel",
        "process",
    );
    set(
        &mut doc,
        "pressure",
        "solver",
        Text(format!("hostile/{algorithm}")),
    );
    set(&mut doc, "pressure", "fail_after", Number(2.0));
    for (k, v) in extra {
        set(&mut doc, "pressure", k, v.clone());
    }
    let (mut sim, _out) = simulation(&doc, &plugins);
    for _ in 0..3 {
        if let Err(e) = sim.advance_frame() {
            return (e.to_string(), sim.frame());
        }
    }
    panic!("hostile/{algorithm} ran 3 frames without failing")
}

#[test]
fn a_crashing_or_hanging_isolated_solve_fails_the_step_naming_what_happened() {
    for (algorithm, what) in [
        ("crash-segv", "was killed by signal 11 (SIGSEGV)"),
        ("crash-abort", "was killed by signal 6 (SIGABRT)"),
        ("crash-exit", "exited with status 7"),
    ] {
        let (e, frame) = hostile_run(algorithm, &[]);
        let expected = format!("plugin `hostile` algorithm `{algorithm}` (isolation = \"process\") failed during solve: the plugin process {what}");
        assert!(e.contains("pressure") && e.contains(&expected), "{e}");
        assert!(frame >= 1, "earlier frames finished: {frame}");
    }
    // What the child logged before dying came over live (no reply ever came).
    let (e, _) = hostile_run("crash-segv", &[]);
    assert!(
        e.contains("plugin log: crash-segv starts misbehaving"),
        "{e}"
    );
    let start = Instant::now();
    let (e, _) = hostile_run("ignore-cancel", &[("time_limit", Number(0.1))]);
    assert!(
        e.contains("ignored its time limit of 0.100 s and cancellation; the plugin process was killed after"),
        "{e}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(
        e.contains("plugin log: ignore-cancel starts misbehaving"),
        "{e}"
    );
    let (e, _) = hostile_run("sleep", &[("time_limit", Number(0.1))]);
    assert!(
        e.contains("ran past its time limit of 0.100 s and was cancelled"),
        "{e}"
    );
    // The plugin's message and log cross the boundary, sanitised.
    let (e, _) = hostile_run("escape-error", &[]);
    assert!(
        e.contains("\\e[31mforged\\nerror: everything is fine"),
        "{e}"
    );
    assert!(
        e.contains("plugin log: about to fail\\e[2J\\nerror: forged log"),
        "{e}"
    );
    assert!(!e.contains('\u{1b}'), "{e:?}");
    assert_eq!(lingering_zombies(), 0, "every solver child is reaped");
}

#[test]
fn an_isolated_solver_cannot_change_the_problem_the_host_checks_its_result_against() {
    // The child zeroes the right-hand side (through /proc, then through its view) and returns
    // p = 0 with residual 0: had either write landed, the host's residual check would agree.
    let (e, frame) = hostile_run("tamper-inputs", &[]);
    // Other tests of this process may hold input segments too: it tries them all.
    let tried = e
        .split_once("plugin log: tamper: 0 of ")
        .and_then(|(_, rest)| rest.split_once(' '))
        .and_then(|(n, _)| n.parse::<usize>().ok());
    assert!(tried.is_some_and(|n| n >= 1), "{e}");
    assert!(
        e.contains("the plugin process was killed by signal 11 (SIGSEGV)"),
        "{e}"
    );
    assert!(frame >= 1, "earlier frames finished: {frame}");
    assert_eq!(lingering_zombies(), 0, "every solver child is reaped");
}

#[test]
fn an_isolated_solvers_logs_and_progress_reach_the_host_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(Some(&hostile_copy(dir.path(), "ok", "hostile")));
    let (plugin, _) = plugins.find("hostile/sleep").unwrap();
    let params = [("fail_after".to_string(), 0.0)];
    let mut solver = SolverInstance::create_isolated(plugin, "sleep", &params, &child()).unwrap();
    let heard: Arc<Mutex<Vec<(Duration, ServiceEvent)>>> = Arc::default();
    let start = Instant::now();
    let sink = heard.clone();
    solver.set_listener(Some(Arc::new(move |e: &ServiceEvent| {
        sink.lock().unwrap().push((start.elapsed(), e.clone()));
    })));
    solver.set_limits(SolveLimits {
        time_limit: Some(Duration::from_millis(800)),
        ..SolveLimits::default()
    });
    let mut p = fixtures::build(Scene::AirBubbles, [12, 10, 1], 1);
    let err = solver.solve(&mut p.view()).unwrap_err().to_string();
    let returned = start.elapsed();
    assert!(err.contains("time limit"), "{err}");
    let heard = heard.lock().unwrap();
    let at = |want: &dyn Fn(&ServiceEvent) -> bool| {
        heard
            .iter()
            .find(|(_, e)| want(e))
            .map(|(t, _)| *t)
            .unwrap_or_else(|| panic!("not heard: {heard:?}"))
    };
    let logged = at(&|e| matches!(e, ServiceEvent::Log(l) if l.text == "sleep starts misbehaving"));
    let progressed = at(&|e| *e == ServiceEvent::Progress(0.25));
    // Both arrived while the solve was still sleeping, long before it was stopped.
    for t in [logged, progressed] {
        assert!(
            t + Duration::from_millis(500) < returned,
            "{t:?} vs {returned:?}"
        );
    }
}

#[test]
fn the_fallback_solver_takes_over_when_the_isolated_child_dies() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(Some(&hostile_copy(dir.path(), "ok", "hostile")));
    let mut doc = small(
        "dam_break_2d.ron",
        [20, 20, 1],
        "hostile/crash-segv",
        "process",
    );
    set(&mut doc, "pressure", "fail_after", Number(3.0));
    set(
        &mut doc,
        "pressure",
        "fallback_solver",
        Text("pcg/mic0-pcg".into()),
    );
    let (mut sim, _out) = simulation(&doc, &plugins);
    let mut on_fallback = Vec::new();
    let mut events = Vec::new();
    for _ in 0..4 {
        for report in sim.advance_frame().unwrap_or_else(|e| panic!("{e}")) {
            events.extend(report.events.iter().map(|e| (on_fallback.len(), e.clone())));
            let solved = solve(&sim, &report, "pressure");
            let SolvedGrid::Regular(regular) = &solved.grid else {
                panic!("a regular-grid solve")
            };
            let flag = f64::from(u8::from(regular.on_fallback));
            let converged = f64::from(u8::from(solved.converged));
            assert!(
                flag == 0.0 || converged == 1.0,
                "the fallback solves each step"
            );
            on_fallback.push(flag);
        }
    }
    let first = on_fallback
        .iter()
        .position(|&f| f == 1.0)
        .expect("fallback taken");
    assert_eq!(first, 3, "after 3 honest solves: {on_fallback:?}");
    assert!(
        on_fallback[first..].iter().all(|&f| f == 1.0),
        "{on_fallback:?}"
    );
    // One typed event, in the step of the switch, naming node, plugin and reason.
    let [(
        step,
        (
            node,
            NodeEvent::SolverFallback {
                plugin,
                algorithm,
                fallback,
                reason,
            },
        ),
    )] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (*step, node.as_str(), plugin.as_str()),
        (first, "pressure", "hostile")
    );
    assert_eq!(
        (algorithm.as_str(), fallback.as_str()),
        ("crash-segv", "pcg/mic0-pcg")
    );
    assert!(reason.contains("SIGSEGV"), "{reason}");
    assert_eq!(lingering_zombies(), 0);
    // Without a fallback the same graph stops.
    set(&mut doc, "pressure", "fallback_solver", Text("none".into()));
    let (mut sim, _out) = simulation(&doc, &plugins);
    let failed = (0..4).map(|_| sim.advance_frame()).find_map(Result::err);
    assert!(failed.is_some_and(|e| e.to_string().contains("SIGSEGV")));
}

#[test]
fn isolation_needs_a_program_that_can_start_the_child() {
    let mut plugins = PluginSet::load_dirs(&default_plugin_dirs());
    plugins.solver_child = None;
    let doc = small("dam_break_2d.ron", [20, 20, 1], "pcg/mic0-pcg", "process");
    let registry = flip_nodes::builtin_registry(Arc::new(plugins));
    let out = tempfile::tempdir().unwrap();
    let errors = Simulation::new(&doc, &registry, out.path(), &graphs_dir())
        .err()
        .expect("refused");
    let text = format!("{errors:?}");
    assert!(
        text.contains("isolation") && text.contains("not offered"),
        "{text}"
    );
}
