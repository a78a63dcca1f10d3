//! Node plugins (`plugins/confinement`, `plugins/wind`) loaded as a user would: copied into a
//! folder outside the build and found there, listed by the registry, run in the shipped
//! example graphs; their physics; a graph naming a missing node plugin.

use flip_core::{GridSpec, Particles};
use flip_graph::{
    DataKind, EvalCtx, GraphDoc, NodeInit, NodeIo, NodeRegistry, ParamMap, ParamValue, Settings,
    Simulation, Value,
};
use flip_host::{LoadOptions, PluginSet};
use flip_nodes::kinds::{VelocityField, VELOCITY};
use flip_nodes::nodes::plugin_node::PluginSource;
use flipgraph_tests::{artifact_dir, fixture_lib, graph, graphs_dir, set};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn library(id: &str) -> PathBuf {
    fixture_lib(&format!("flipgraph_{id}"))
}

/// The node plugins copied into `dir` (outside the build) and loaded from there as a user
/// folder; the solver plugins the graphs need are added from the build.
fn plugins_outside_the_build(dir: &Path) -> Arc<PluginSet> {
    for id in ["confinement", "wind"] {
        let from = library(id);
        std::fs::copy(&from, dir.join(from.file_name().unwrap()))
            .unwrap_or_else(|e| panic!("{} must be built: {e}", from.display()));
    }
    let mut set = PluginSet::load(&LoadOptions {
        user_dirs: vec![dir.to_path_buf()],
        builtin_node_kinds: flip_nodes::builtin_kind_names(),
        ..LoadOptions::default()
    });
    for id in ["pcg", "multigrid"] {
        assert!(set.add_file(&library(id)).is_none(), "{:?}", set.refused);
    }
    assert!(set.refused.is_empty(), "{:?}", set.refused);
    Arc::new(set)
}

#[test]
fn node_plugins_load_from_a_folder_outside_the_build_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(plugins_outside_the_build(dir.path()));
    for kind in ["confinement/vorticity_confinement", "wind/force_field"] {
        let spec = &registry.get(kind).unwrap_or_else(|| panic!("{kind}")).spec;
        let source = spec
            .get::<PluginSource>()
            .expect("a plugin kind names its source");
        assert!(source.library.starts_with(dir.path()), "{source:?}");
        assert_eq!(source.sha256.len(), 64);
        assert_eq!(spec.inputs[0].kind, VELOCITY);
        assert_eq!(spec.outputs[0].kind, VELOCITY);
    }
}

/// A graph's last carried `T` after `frames` frames at a reduced size, run on `threads`
/// worker threads.
fn final_state<T: std::any::Any + Send + Sync>(
    doc: &GraphDoc,
    registry: &NodeRegistry,
    frames: u32,
    threads: usize,
) -> Arc<T> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let out = tempfile::tempdir().unwrap();
        let mut sim = Simulation::new(doc, registry, out.path(), &graphs_dir())
            .unwrap_or_else(|e| panic!("{e:?}"));
        for _ in 0..frames {
            sim.advance_frame().expect("runs");
        }
        sim.carried_as::<T>().expect("carried")
    })
}

fn bits(v: &[glam::Vec3]) -> Vec<u32> {
    v.iter()
        .flat_map(|p| p.to_array().map(f32::to_bits))
        .collect()
}

#[test]
fn plugin_graphs_give_identical_frames_across_runs_and_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(plugins_outside_the_build(dir.path()));

    let mut dam = graph("wind_dam_break_2d.ron");
    dam.settings.grid = [48, 48, 1];
    dam.settings.cell_size = 1.0 / 48.0;
    let runs: Vec<Arc<Particles>> = [1, 1, 3]
        .map(|threads| final_state(&dam, &registry, 3, threads))
        .into();
    assert!(runs[0].pos.len() > 100);
    for r in &runs[1..] {
        assert_eq!(bits(&runs[0].pos), bits(&r.pos));
        assert_eq!(bits(&runs[0].vel), bits(&r.vel));
    }

    let mut smoke = graph("plugin_smoke_plume_2d.ron");
    smoke.settings.grid = [40, 60, 1];
    smoke.settings.cell_size = 1.0 / 40.0;
    let runs: Vec<Arc<VelocityField>> = [1, 1, 3]
        .map(|threads| final_state(&smoke, &registry, 3, threads))
        .into();
    assert!(runs[0].vel.max_abs() > 0.01);
    for r in &runs[1..] {
        assert_eq!(runs[0].vel, r.vel);
    }
}

/// `isolation = "process"` on a plugin node runs its `eval` in a child on shared memory: the
/// same frames bit for bit as in this process, for a particle-free grid node (the smoke plume's
/// confinement) and for the wind on the dam break's grid velocity.
#[test]
fn isolated_plugin_nodes_give_the_same_frames_as_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let mut plugins = Arc::into_inner(plugins_outside_the_build(dir.path())).expect("one owner");
    plugins.solver_child = Some(flip_host::ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    });
    let registry = flip_nodes::builtin_registry(Arc::new(plugins));

    let mut smoke = graph("plugin_smoke_plume_2d.ron");
    smoke.settings.grid = [40, 60, 1];
    smoke.settings.cell_size = 1.0 / 40.0;
    let local: Arc<VelocityField> = final_state(&smoke, &registry, 2, 1);
    set(
        &mut smoke,
        "vorticity",
        "isolation",
        ParamValue::Text("process".into()),
    );
    let isolated: Arc<VelocityField> = final_state(&smoke, &registry, 2, 1);
    assert!(local.vel.max_abs() > 0.01);
    assert_eq!(local.vel, isolated.vel);

    let mut dam = graph("wind_dam_break_2d.ron");
    dam.settings.grid = [48, 48, 1];
    dam.settings.cell_size = 1.0 / 48.0;
    let local: Arc<Particles> = final_state(&dam, &registry, 2, 1);
    set(
        &mut dam,
        "wind",
        "isolation",
        ParamValue::Text("process".into()),
    );
    let isolated: Arc<Particles> = final_state(&dam, &registry, 2, 1);
    assert!(local.pos.len() > 100);
    assert_eq!(bits(&local.pos), bits(&isolated.pos));
    assert_eq!(bits(&local.vel), bits(&isolated.vel));
}

/// The wind blows the dam break's water to the right: its centre of mass ends further right
/// than without wind.
#[test]
fn wind_pushes_the_dam_break_downwind() {
    let dir = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(plugins_outside_the_build(dir.path()));
    let mut windy = graph("wind_dam_break_2d.ron");
    windy.settings.grid = [48, 48, 1];
    windy.settings.cell_size = 1.0 / 48.0;
    let mut calm = windy.clone();
    calm.node_mut("wind")
        .unwrap()
        .params
        .insert("strength".into(), ParamValue::Number(0.0));
    let mean_x = |doc: &GraphDoc| {
        let p = final_state::<Particles>(doc, &registry, 6, 2);
        p.pos.iter().map(|x| x.x).sum::<f32>() / p.pos.len() as f32
    };
    let (windy_x, calm_x) = (mean_x(&windy), mean_x(&calm));
    assert!(windy_x > calm_x + 0.005, "wind {windy_x} vs calm {calm_x}");
}

/// One evaluation of registry kind `kind` with `params` on `velocity` over `dt`.
fn eval_velocity(
    registry: &NodeRegistry,
    kind: &str,
    params: &[(&str, ParamValue)],
    grid: GridSpec,
    velocity: VelocityField,
    dt: f32,
) -> VelocityField {
    let settings: Settings = graph("wind_dam_break_2d.ron").settings;
    let node_kind = registry.get(kind).expect("registered");
    let mut values = ParamMap::new();
    for p in &node_kind.spec.params {
        values.insert(p.name.clone(), p.default.clone());
    }
    for (name, v) in params {
        values.insert((*name).into(), v.clone());
    }
    let tmp = tempfile::tempdir().unwrap();
    let init = NodeInit {
        id: "under_test",
        params: &values,
        settings: &settings,
        out_dir: tmp.path(),
        base_dir: tmp.path(),
        allow_outside_out: false,
    };
    let mut node = node_kind.instantiate(&init).expect("created");
    let ctx = EvalCtx {
        grid,
        settings: Arc::new(settings.clone()),
        dt,
        time: 0.0,
        step: 0,
        frame: 0,
        substep: 0,
        frame_end: false,
        paired: false,
        out_dir: tmp.path().into(),
        cancel: Arc::new(AtomicBool::new(false)),
        window: None,
    };
    let kind_of: DataKind = VELOCITY;
    let mut io = NodeIo::new(
        vec![("velocity".into(), Some(Value::new(kind_of, velocity)))],
        &["velocity".into()],
    );
    node.eval(&ctx, &mut io).expect("evaluates");
    io.output("velocity")
        .and_then(|v| v.get::<VelocityField>())
        .expect("velocity out")
        .clone()
}

/// A 3D swirl with shear: u = −(y − c)(1 + z), v = (x − c)(1 + z/2), w = sin 3x cos 2y.
fn swirl(grid: &GridSpec) -> VelocityField {
    let mut f = VelocityField::zeros(grid);
    let c = 0.5 * grid.ni as f32 * grid.dx;
    for (a, comp) in f.vel.axes_mut().into_iter().enumerate() {
        let [ni, nj, nk] = comp.dims();
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    let x = grid.face_center(a, i, j, k);
                    comp[(i, j, k)] = match a {
                        0 => -(x.y - c) * (1.0 + x.z),
                        1 => (x.x - c) * (1.0 + 0.5 * x.z),
                        _ => (x.x * 3.0).sin() * (x.y * 2.0).cos(),
                    };
                }
            }
        }
    }
    f
}

#[test]
fn plugin_vorticity_confinement_matches_the_built_in_node() {
    let dir = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(plugins_outside_the_build(dir.path()));
    let grid = GridSpec::new(13, 11, 9, 0.1);
    let start = swirl(&grid);
    let eps = [("epsilon", ParamValue::Number(0.8))];
    let built_in = eval_velocity(&registry, "vorticity", &eps, grid, start.clone(), 0.02);
    let plugin = eval_velocity(
        &registry,
        "confinement/vorticity_confinement",
        &eps,
        grid,
        start.clone(),
        0.02,
    );
    let mut changed = 0.0f32;
    for a in 0..3 {
        let (b, p, s) = (
            built_in.vel.axes()[a],
            plugin.vel.axes()[a],
            start.vel.axes()[a],
        );
        for ((b, p), s) in b.data.iter().zip(&p.data).zip(&s.data) {
            assert!((b - p).abs() <= 1e-5 * (1.0 + b.abs()), "{b} vs {p}");
            changed = changed.max((p - s).abs());
        }
    }
    assert!(changed > 1e-4, "confinement changed nothing ({changed})");
}

#[test]
fn force_fields_point_blow_and_swirl_as_declared() {
    let dir = tempfile::tempdir().unwrap();
    let registry = flip_nodes::builtin_registry(plugins_outside_the_build(dir.path()));
    let grid = GridSpec::new(21, 17, 1, 0.05);
    let (dt, kind) = (0.1, "wind/force_field");
    let text = |s: &str| ParamValue::Text(s.into());
    let num = ParamValue::Number;
    let center = [("center_x", num(0.5)), ("center_y", num(0.4))];
    let zero = VelocityField::zeros(&grid);
    // the face of axis `a` nearest to (x, y): faces of axis a sit at whole cells along a
    let face = |f: &VelocityField, a: usize, x: f32, y: f32| {
        let along = |p: f32, on_face: bool| {
            if on_face {
                (p / grid.dx).round() as usize
            } else {
                (p / grid.dx) as usize
            }
        };
        f.vel.axes()[a][(along(x, a == 0), along(y, a == 1), 0)]
    };

    // directional force: u += dt·s everywhere, v untouched
    let blown = eval_velocity(
        &registry,
        kind,
        &[("strength", num(5.0))],
        grid,
        zero.clone(),
        dt,
    );
    assert!(blown.vel.u.data.iter().all(|&u| (u - 0.5).abs() < 1e-6));
    assert!(blown.vel.v.data.iter().all(|&v| v == 0.0));

    // drag toward a 3 m/s wind at 2/s from 1 m/s: u = 1 + (1 − e^{−2·dt})·(3 − 1)
    let drag = [
        ("mode", text("drag")),
        ("strength", num(3.0)),
        ("drag", num(2.0)),
    ];
    let mut moving = zero.clone();
    moving.vel.u.fill(1.0);
    let dragged = eval_velocity(&registry, kind, &drag, grid, moving, dt);
    let expected = 1.0 + (1.0 - (-2.0f32 * dt).exp()) * 2.0;
    assert!(dragged
        .vel
        .u
        .data
        .iter()
        .all(|&u| (u - expected).abs() < 1e-5));

    // point: toward the centre, from both sides
    let mut point = vec![("field", text("point"))];
    point.extend(center.clone());
    let pulled = eval_velocity(&registry, kind, &point, grid, zero.clone(), dt);
    assert!(face(&pulled, 0, 0.2, 0.4) > 0.0 && face(&pulled, 0, 0.8, 0.4) < 0.0);
    assert!(face(&pulled, 1, 0.5, 0.1) > 0.0 && face(&pulled, 1, 0.5, 0.7) < 0.0);

    // vortex about +z: counter-clockwise (v up on the right, u left above)
    let mut vortex = vec![
        ("field", text("vortex")),
        ("direction_x", num(0.0)),
        ("direction_z", num(1.0)),
    ];
    vortex.extend(center);
    let swirled = eval_velocity(&registry, kind, &vortex, grid, zero, dt);
    assert!(face(&swirled, 1, 0.8, 0.4) > 0.0 && face(&swirled, 1, 0.2, 0.4) < 0.0);
    assert!(face(&swirled, 0, 0.5, 0.7) < 0.0 && face(&swirled, 0, 0.5, 0.1) > 0.0);
}

#[test]
fn a_graph_whose_node_plugin_is_missing_fails_validation_naming_node_kind_and_plugin() {
    let doc = graph("wind_dam_break_2d.ron");
    // registry without node plugins: only the solvers
    let mut set = PluginSet::default();
    for id in ["pcg", "multigrid"] {
        assert!(set.add_file(&library(id)).is_none());
    }
    let registry = flip_nodes::builtin_registry(Arc::new(set));
    let out = tempfile::tempdir().unwrap();
    let errors = match Simulation::new(&doc, &registry, out.path(), &graphs_dir()) {
        Ok(_) => panic!("a graph with a missing node plugin must not validate"),
        Err(e) => e,
    };
    let text = errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("wind"), "{text}");
    assert!(text.contains("`force_field`"), "{text}");
    assert!(text.contains("node plugin `wind`"), "{text}");
    assert!(text.contains("not loaded"), "{text}");

    // and the graph saved with it reads back unchanged
    let again = GraphDoc::from_ron(&doc.to_ron(), "saved").expect("reads back");
    assert_eq!(again, doc);
}

#[test]
fn a_bundle_folder_is_found_like_a_plain_library_with_its_resources() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("wind.flipgraph");
    let platform = flip_host::bundle::platform();
    let lib_dir = bundle.join("Contents").join(&platform);
    let resources = bundle.join("Contents").join("Resources");
    std::fs::create_dir_all(&lib_dir).unwrap();
    std::fs::create_dir_all(&resources).unwrap();
    let lib = lib_dir.join(format!("wind{}", std::env::consts::DLL_SUFFIX));
    std::fs::copy(library("wind"), &lib).unwrap();
    std::fs::write(
        resources.join("description.txt"),
        "Wind fields\x1b[2J for studios\n",
    )
    .unwrap();
    std::fs::write(resources.join("icon.png"), b"\x89PNG").unwrap();
    // a bundle without a library for this platform is named in a warning
    std::fs::create_dir_all(dir.path().join("empty.flipgraph/Contents")).unwrap();

    let set = PluginSet::load(&LoadOptions {
        user_dirs: vec![dir.path().to_path_buf()],
        builtin_node_kinds: flip_nodes::builtin_kind_names(),
        ..LoadOptions::default()
    });
    assert!(set.refused.is_empty(), "{:?}", set.refused);
    let wind = set
        .nodes
        .iter()
        .find(|p| p.id == "wind")
        .expect("loaded from the bundle");
    assert_eq!(wind.path, lib);
    let found = flip_host::bundle::resources(&wind.path).expect("a bundle");
    assert_eq!(
        found.description.as_deref(),
        Some("Wind fields\\e[2J for studios")
    );
    assert_eq!(found.icon, Some(resources.join("icon.png")));
    assert!(
        set.warnings
            .iter()
            .any(|w| w.contains("empty.flipgraph") && w.contains(&platform)),
        "{:?}",
        set.warnings
    );
}

/// The SHA-256 of every frame file a `flipgraph run` of `graph` wrote, from its `run.json`,
/// run with `threads` rayon threads (the host's pool and the plugins' own pools alike).
fn frame_hashes(graph: &str, out: &Path, threads: usize) -> Vec<(String, String)> {
    // a plain `cargo test` leaves the plugins in deps/, not beside the binary
    let deps = artifact_dir().join("deps");
    let status = std::process::Command::new(artifact_dir().join("flipgraph"))
        .arg("--plugin-dir")
        .arg(&deps)
        .args([
            "run",
            graph,
            "--frames",
            "2",
            "--set",
            "settings.grid=[48, 48, 1]",
        ])
        .args(["--set", "settings.cell_size=0.0208333333"])
        .arg("--out")
        .arg(out)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the flipgraph binary is built (cargo build --release)");
    assert!(status.success(), "{graph}: {status}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    let used = manifest["node_plugins"].as_array().unwrap();
    assert!(used.iter().any(|p| p["used"] == true), "{used:?}");
    manifest["frame_records"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["files"].as_array().unwrap().clone())
        .map(|f| (f["path"].to_string(), f["sha256"].to_string()))
        .collect()
}

#[test]
fn the_cli_writes_byte_identical_frames_with_node_plugins_on_any_thread_count() {
    let graph = graphs_dir().join("wind_dam_break_2d.ron");
    let graph = graph.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<_> = [1, 1, 3]
        .iter()
        .enumerate()
        .map(|(i, &t)| frame_hashes(graph, &dir.path().join(i.to_string()), t))
        .collect();
    assert!(runs[0].len() >= 2, "{:?}", runs[0]);
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}
