//! The C side of the plugin contract: the header generated from `flip-abi` with cbindgen
//! (committed as `crates/flip-abi/include/flipgraph.h`, regenerated with
//! `FLIPGRAPH_BLESS=1`), and the C example node (`examples/c-node/damp.c`) compiled with `gcc`
//! into a folder outside the build, found there, probed, listed and run in a graph.

use flip_graph::{ParamValue, Simulation};
use flip_host::probe::ProbeCommand;
use flip_host::{LoadOptions, PluginSet};
use flipgraph_tests::{fixture_lib, graph, graphs_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The header cbindgen generates from the contract crate now.
fn generated_header() -> String {
    let config = cbindgen::Config {
        language: cbindgen::Language::C,
        include_guard: Some("FLIPGRAPH_H".into()),
        header: Some(
            "/* flipgraph's plugin contract (solver and node suites), generated from crates/flip-abi \
             by cbindgen: do not edit.\n * The pre- and post-conditions of every entry are in the \
             rustdoc of flip-abi. */"
                .into(),
        ),
        documentation: true,
        cpp_compat: true,
        // the crate exports no functions: name the tables and what the calls take
        export: cbindgen::ExportConfig {
            include: [
                "DescribeFn",
                "CreateFn",
                "SolveFn",
                "DestroyFn",
                "ResetFn",
                "StateSizeFn",
                "SaveStateFn",
                "LoadStateFn",
                "LogFn",
                "CancelledFn",
                "ProgressFn",
                "FetchSuiteFn",
                "NodeDescribeFn",
                "NodeCreateFn",
                "NodeEvalFn",
                "EntryFn",
                "PluginTable",
                "NodeEntryFn",
                "NodeTable",
                "PortData",
                "NodeContext",
                "HostServices",
                "DistributedSuite",
                "PressureProblem",
                "CsrProblem",
                "TallCellProblem",
                "ViscosityProblem",
                "CoupledProblem",
            ]
            .map(String::from)
            .to_vec(),
            ..cbindgen::ExportConfig::default()
        },
        ..cbindgen::Config::default()
    };
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(repo().join("crates/flip-abi"))
        .with_config(config)
        .generate()
        .expect("cbindgen reads flip-abi")
        .write(&mut out);
    let text = String::from_utf8(out).expect("UTF-8 header");
    nullable_function_pointers(&text)
}

/// cbindgen leaves `Option<F>` of a function-pointer alias `F` as an opaque struct
/// `Option_F` (in C a function pointer is nullable already, so the field is `F` itself), and
/// then no longer sees that a table needs `F` first: every struct and union is declared up
/// front and the function-pointer typedefs (with their comments) come before the first
/// definition.
fn nullable_function_pointers(header: &str) -> String {
    let mut body: Vec<String> = Vec::new();
    let mut pointers: Vec<String> = Vec::new();
    let mut in_pointer = false;
    for line in header.lines() {
        if line.starts_with("typedef struct Option_") && line.ends_with(';') {
            continue;
        }
        let line = line.replace("struct Option_", "").replace("Option_", "");
        let starts = line.starts_with("typedef ") && line.contains("(*");
        if starts {
            // its doc comment moves with it
            if body.last().is_some_and(|l| l.trim_end() == "*/") {
                let from = body
                    .iter()
                    .rposition(|l| l.starts_with("/**"))
                    .unwrap_or(body.len());
                pointers.extend(body.drain(from..));
            }
            in_pointer = true;
        }
        if in_pointer {
            in_pointer = !line.ends_with(");");
            pointers.push(line);
            if !in_pointer {
                pointers.push(String::new());
            }
        } else {
            body.push(line);
        }
    }
    let defined = |l: &String| {
        (l.starts_with("typedef struct ") || l.starts_with("typedef union ")) && l.ends_with('{')
    };
    let forward: Vec<String> = body
        .iter()
        .filter(|l| defined(l))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            format!("{} {};", words[1], words[2])
        })
        .collect();
    let at = body.iter().position(defined).unwrap_or(body.len());
    let mut out: Vec<String> = body[..at].to_vec();
    out.extend(forward);
    out.push(String::new());
    out.extend(pointers);
    out.extend(body[at..].iter().cloned());
    out.join("\n") + "\n"
}

#[test]
fn the_committed_c_header_is_what_the_contract_generates() {
    let path = repo().join("crates/flip-abi/include/flipgraph.h");
    let now = generated_header();
    if std::env::var_os("FLIPGRAPH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == now,
        "{} is stale: regenerate it with FLIPGRAPH_BLESS=1 cargo test --release -p flipgraph-tests --test c_node",
        path.display()
    );
}

/// `damp.c` compiled with gcc against the generated header into `dir`.
fn compile_example(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("flipgraph.h"), generated_header()).unwrap();
    let lib = dir.join("plugins").join(format!(
        "{}flipgraph_c_example{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    let status = Command::new("gcc")
        .args([
            "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC", "-o",
        ])
        .arg(&lib)
        .arg(repo().join("examples/c-node/damp.c"))
        .arg("-I")
        .arg(dir)
        .arg("-lm")
        .status()
        .expect("gcc runs");
    assert!(status.success(), "gcc failed");
    lib
}

fn plugins_with_c_example(dir: &Path) -> Arc<PluginSet> {
    let lib = compile_example(dir);
    let mut set = PluginSet::load(&LoadOptions {
        user_dirs: vec![lib.parent().unwrap().to_path_buf()],
        builtin_node_kinds: flip_nodes::builtin_kind_names(),
        probe: Some(ProbeCommand {
            program: env!("CARGO_BIN_EXE_flipgraph-probe").into(),
            args: Vec::new(),
            timeout: std::time::Duration::from_secs(20),
        }),
        ..LoadOptions::default()
    });
    for id in ["pcg", "multigrid"] {
        let lib = fixture_lib(&format!("flipgraph_{id}"));
        assert!(set.add_file(&lib).is_none(), "{}", lib.display());
    }
    assert!(set.refused.is_empty(), "{:?}", set.refused);
    Arc::new(set)
}

/// The dam break with the wind node swapped for the C node damping the velocity.
fn damped_dam_break(rate: f64) -> flip_graph::GraphDoc {
    let mut doc = graph("wind_dam_break_2d.ron");
    doc.settings.grid = [40, 40, 1];
    doc.settings.cell_size = 1.0 / 40.0;
    let node = doc.node_mut("wind").unwrap();
    node.kind = "c_example/damp".into();
    node.params.clear();
    node.params.insert("rate".into(), ParamValue::Number(rate));
    doc
}

fn run(
    doc: &flip_graph::GraphDoc,
    plugins: &Arc<PluginSet>,
    frames: u32,
    threads: usize,
) -> Arc<flip_core::Particles> {
    let registry = flip_nodes::builtin_registry(plugins.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let out = tempfile::tempdir().unwrap();
        let mut sim = Simulation::new(doc, &registry, out.path(), &graphs_dir())
            .unwrap_or_else(|e| panic!("{e:?}"));
        for _ in 0..frames {
            sim.advance_frame().expect("runs");
        }
        flip_nodes::kinds::CarriedParticles::particles(&sim).expect("particles")
    })
}

#[test]
fn the_c_example_node_loads_from_outside_the_build_and_damps_the_flow() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins_with_c_example(dir.path());
    let registry = flip_nodes::builtin_registry(plugins.clone());
    let spec = &registry
        .get("c_example/damp")
        .expect("the C node is registered")
        .spec;
    assert_eq!(spec.params[0].name, "rate");

    // identical across runs and thread counts
    let doc = damped_dam_break(2.0);
    let runs = [1, 1, 3].map(|t| run(&doc, &plugins, 3, t));
    let bits = |p: &flip_core::Particles| -> Vec<u32> {
        p.pos
            .iter()
            .chain(&p.vel)
            .flat_map(|v| v.to_array().map(f32::to_bits))
            .collect()
    };
    assert!(runs.iter().all(|r| bits(r) == bits(&runs[0])));

    // damping takes kinetic energy out: the damped fluid moves slower than the undamped one
    let energy = |p: &flip_core::Particles| p.vel.iter().map(|v| v.length_squared()).sum::<f32>();
    let undamped = run(&damped_dam_break(0.0), &plugins, 3, 2);
    assert!(
        energy(&runs[0]) < 0.9 * energy(&undamped),
        "{} vs {}",
        energy(&runs[0]),
        energy(&undamped)
    );
}
