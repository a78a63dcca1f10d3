//! Plugin ABI 2 end to end: reset reaches every bundled algorithm (a reset run equals a fresh
//! run bit for bit), saved state resumes a stateful solver bit for bit, general sparse (CSR)
//! problems go to the algorithms that accept them, and the time limit and cancel service stop
//! a solve.

use flip_core::Grid3;
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_host::{CancelToken, PluginError, PluginSet, SolveLimits, SolverInstance};
use flip_nodes::kinds::{CarriedParticles, SCALAR};
use flip_sdk::OwnedCsr;
use flip_solvers::fixtures::{self, Scene};
use flipgraph_tests::{graph, graphs_dir, hostile_copy, plugins, registry, set};
use std::time::{Duration, Instant};

/// The small separating-walls circle with `solver` (standard walls for linear-only ones).
fn circle(solver: &str, lcp: bool) -> GraphDoc {
    let mut doc = graph("lcp_circle_2d.ron");
    doc.settings.grid = [24, 24, 1];
    doc.settings.cell_size = 1.0 / 24.0;
    set(&mut doc, "pressure", "solver", Text(solver.into()));
    let boundary = if lcp { "separating" } else { "standard" };
    set(&mut doc, "pressure", "boundary", Text(boundary.into()));
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    doc
}

/// Pressure bits at the end of each of `frames` frames, and the final particle positions.
fn run(sim: &mut Simulation, frames: usize) -> (Vec<Vec<u32>>, Vec<[u32; 3]>) {
    sim.set_probes(&[("pressure", "pressure")]);
    let mut fields = Vec::new();
    for _ in 0..frames {
        sim.advance_frame().unwrap_or_else(|e| panic!("{e}"));
        let Some(p) = sim.probed()[0]
            .as_ref()
            .and_then(|v| v.shared_as::<Grid3<f32>>(SCALAR))
        else {
            panic!("pressure probed")
        };
        fields.push(p.data.iter().map(|v| v.to_bits()).collect());
    }
    let particles = sim.particles().expect("particles");
    let pos = particles
        .pos
        .iter()
        .map(|p| p.to_array().map(f32::to_bits))
        .collect();
    (fields, pos)
}

#[test]
fn reset_then_run_equals_a_fresh_run_for_every_bundled_algorithm() {
    let registry = registry();
    let all = plugins();
    let bundled = ["pcg", "multigrid", "direct", "lcp"];
    let mut checked = 0;
    for (name, info) in all.algorithms() {
        if !bundled.contains(&info.plugin.as_str()) || !info.accepts_structured() {
            continue;
        }
        let doc = circle(&name, info.supports_lcp());
        let out = tempfile::tempdir().unwrap();
        let mut sim = Simulation::new(&doc, &registry, out.path(), &graphs_dir()).unwrap();
        let fresh = run(&mut sim, 3);
        sim.reset();
        let again = run(&mut sim, 3);
        assert!(
            fresh == again,
            "{name}: a reset run differs from a fresh run"
        );
        checked += 1;
    }
    assert_eq!(
        checked, 16,
        "5 pcg + 3 multigrid + 1 direct + 7 lcp algorithms"
    );
}

fn instance(set: &PluginSet, name: &str, params: &[(&str, f64)]) -> SolverInstance {
    let (plugin, info) = set.find(name).unwrap();
    let values: Vec<(String, f64)> = params.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    SolverInstance::create(plugin, &info.name.clone(), &values).unwrap()
}

#[test]
fn saved_state_resumes_a_stateful_solver_bit_for_bit() {
    let set = plugins();
    for name in ["lcp/pi-pcg", "lcp/pe-pcg", "lcp/fas-mg", "multigrid/mgpcg"] {
        let lcp = name.starts_with("lcp/");
        let steps: Vec<_> = (0..4)
            .map(|s| {
                let mut p = fixtures::build(Scene::LcpContainer, [20, 20, 1], s);
                p.lcp = lcp;
                p
            })
            .collect();
        let mut a = instance(&set, name, &[]);
        for p in &steps[..3] {
            a.solve(&mut p.clone().view()).unwrap();
        }
        let state = a.save_state().unwrap().expect("bundled plugins save state");
        let mut b = instance(&set, name, &[]);
        b.load_state(&state).unwrap();
        let (mut pa, mut pb) = (steps[3].clone(), steps[3].clone());
        let (sa, sb) = (
            a.solve(&mut pa.view()).unwrap(),
            b.solve(&mut pb.view()).unwrap(),
        );
        assert_eq!(pa.pressure, pb.pressure, "{name}");
        assert_eq!(
            (sa.iterations, sa.outer_iterations),
            (sb.iterations, sb.outer_iterations),
            "{name}"
        );
        let other = instance(&set, "lcp/pgs", &[])
            .load_state(&state)
            .unwrap_err();
        assert!(
            other.to_string().contains("state saved by algorithm"),
            "{other}"
        );
    }
    // The policy of the previous step is what a policy-iteration state carries.
    let mut pi = instance(&set, "lcp/pi-pcg", &[]);
    let blank = pi.save_state().unwrap().unwrap();
    pi.solve(&mut fixtures::build(Scene::LcpContainer, [20, 20, 1], 0).view())
        .unwrap();
    assert_eq!(
        pi.save_state().unwrap().unwrap().len(),
        blank.len() + 400,
        "one byte per cell"
    );
}

#[test]
fn csr_problems_reach_the_algorithms_that_accept_them_and_they_agree() {
    let set = plugins();
    let mut grid = fixtures::build(Scene::AirBubbles, [12, 10, 6], 2);
    grid.lcp = false;
    let base = OwnedCsr::from_structured(&grid.view());
    let mut answers = Vec::new();
    for name in ["direct/cholesky", "pcg/ic0-pcg", "pcg/jacobi-pcg", "pcg/cg"] {
        let mut s = instance(&set, name, &[("rel_tolerance", 1e-12)]);
        let mut c = base.clone();
        let stats = s.solve_csr(&mut c.view()).unwrap();
        assert_eq!(stats.converged, 1, "{name}: {stats:?}");
        answers.push((name, c.pressure));
    }
    let scale = answers[0].1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (name, p) in &answers[1..] {
        let diff = p
            .iter()
            .zip(&answers[0].1)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(diff < 1e-7 * scale, "{name} vs Cholesky: {diff:e}");
    }
    let err = instance(&set, "pcg/mic0-pcg", &[])
        .solve_csr(&mut base.clone().view())
        .unwrap_err();
    assert!(matches!(err, PluginError::UnsupportedKind { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("does not accept CSR (sparse) problems"),
        "{err}"
    );
}

fn hostile(name: &str) -> (SolverInstance, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut set = PluginSet::default();
    assert!(
        set.add_file(&hostile_copy(dir.path(), "ok", "hostile"))
            .is_none(),
        "{:?}",
        set.refused
    );
    (instance(&set, &format!("hostile/{name}"), &[]), dir)
}

#[test]
fn a_sleeping_solve_ends_at_its_time_limit_or_when_cancelled() {
    let mut p = fixtures::build(Scene::DamBreak, [16, 16, 1], 1);
    let (mut s, _dir) = hostile("sleep");
    s.set_limits(SolveLimits {
        time_limit: Some(Duration::from_millis(200)),
        cancel: None,
        ..SolveLimits::default()
    });
    let start = Instant::now();
    let err = s.solve(&mut p.view()).unwrap_err();
    assert!(matches!(err, PluginError::TimeLimit { .. }), "{err}");
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    assert!(
        err.to_string()
            .contains("`hostile` algorithm `sleep` ran past its time limit of 0.200 s"),
        "{err}"
    );
    let token = CancelToken::new();
    s.set_limits(SolveLimits {
        time_limit: None,
        cancel: Some(token.clone()),
        ..SolveLimits::default()
    });
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        token.cancel();
    });
    let err = s.solve(&mut p.view()).unwrap_err();
    stopper.join().unwrap();
    assert!(matches!(err, PluginError::Cancelled { .. }), "{err}");
}
