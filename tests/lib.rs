//! Shared helpers of the end-to-end tests: locating the built plugins, loading example
//! graphs, and running them.

use flip_graph::{
    EdgeDoc, Endpoint, GraphDoc, NodeDoc, NodeRegistry, NodeStats, ParamValue, Simulation,
    StepReport,
};
use flip_host::{default_plugin_dirs, PluginSet};
use flip_nodes::stats::SolveReport;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The folder holding the built libraries (`target/<profile>`), found from the test binary.
pub fn artifact_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("binary folder");
    if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().expect("profile folder").into()
    } else {
        deps.into()
    }
}

/// Path of a library built as a dependency of this crate into `target/<profile>/deps`: a test
/// fixture (`fixture_faulty`, `fixture_wrong_abi`) or a bundled plugin (`flipgraph_pcg`).
pub fn fixture_lib(name: &str) -> PathBuf {
    let file = format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let dir = artifact_dir();
    // `cargo build` also copies it to target/<profile>, where it may be stale: take the newest.
    [dir.join(&file), dir.join("deps").join(&file)]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("fixture {file} not built in {}", dir.display()))
}

/// Plugins from the default folders, plus the faulty fixture.
pub fn plugins() -> Arc<PluginSet> {
    let mut set = PluginSet::load_dirs(&default_plugin_dirs());
    set.add_file(&fixture_lib("fixture_faulty"));
    assert!(
        set.plugins.iter().any(|p| p.id == "pcg"),
        "the pcg plugin must be built: {:?}",
        set.refused
    );
    Arc::new(set)
}

/// The registry over [`plugins`].
pub fn registry() -> NodeRegistry {
    flip_nodes::builtin_registry(plugins())
}

/// The repository's `graphs/` folder.
pub fn graphs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../graphs")
}

/// Loads `graphs/<name>`.
pub fn graph(name: &str) -> GraphDoc {
    GraphDoc::load(&graphs_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// A simulation of `doc` writing into a temporary folder (returned to keep it alive).
pub fn simulation(doc: &GraphDoc, registry: &NodeRegistry) -> (Simulation, tempfile::TempDir) {
    let out = tempfile::tempdir().expect("temp dir");
    let sim = Simulation::new(doc, registry, out.path(), &graphs_dir()).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    (sim, out)
}

/// The statistics node `id` reported in a step, if they are a `T`.
pub fn stats<'r, T: NodeStats>(
    sim: &Simulation,
    report: &'r StepReport,
    id: &str,
) -> Option<&'r T> {
    let i = sim.plan().nodes.iter().position(|n| n.id == id)?;
    report.stats(i)
}

/// The solve node `id` reported in a step (panics if it reported none).
pub fn solve<'r>(sim: &Simulation, report: &'r StepReport, id: &str) -> &'r SolveReport {
    stats(sim, report, id).unwrap_or_else(|| panic!("node `{id}` reported no solve"))
}

/// Sets a node parameter.
pub fn set(doc: &mut GraphDoc, node: &str, param: &str, value: flip_graph::ParamValue) {
    doc.node_mut(node)
        .unwrap_or_else(|| panic!("no node {node}"))
        .params
        .insert(param.into(), value);
}

/// `doc` with a `wave_absorber` node `absorber` (`params`, the rest at their defaults) on P2G's
/// velocity before gravity, as `docs/guide/boundaries.md` wires it.
pub fn with_wave_absorber(mut doc: GraphDoc, params: &[(&str, ParamValue)]) -> GraphDoc {
    let mut absorber = NodeDoc::new("absorber", "wave_absorber");
    for (param, value) in params {
        absorber.params.insert((*param).into(), value.clone());
    }
    doc.nodes.push(absorber);
    let edge = (doc.edges.iter_mut())
        .find(|e| e.from == Endpoint::new("p2g", "velocity") && e.to.node == "gravity")
        .expect("p2g wired to gravity");
    edge.to = Endpoint::new("absorber", "velocity");
    doc.edges
        .push(EdgeDoc::new("absorber.velocity", "gravity.velocity"));
    doc
}

/// Writes a copy of the hostile fixture with its mode marker patched to `mode`, named
/// `libflipgraph_<name>.so` in `dir` (see `tests/fixtures/hostile`).
pub fn hostile_copy(dir: &Path, mode: &str, name: &str) -> PathBuf {
    let mut bytes = std::fs::read(fixture_lib("fixture_hostile")).expect("fixture built");
    let mut marker = [0u8; 32];
    marker[..9].copy_from_slice(b"FGMODE:ok");
    let at = bytes
        .windows(32)
        .position(|w| w == marker)
        .expect("the mode marker is in the library");
    let mut patched = [0u8; 32];
    let text = format!("FGMODE:{mode}");
    assert!(text.len() < 32, "mode name too long");
    patched[..text.len()].copy_from_slice(text.as_bytes());
    bytes[at..at + 32].copy_from_slice(&patched);
    let path = dir.join(format!(
        "{}flipgraph_{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::write(&path, bytes).expect("writable temp dir");
    path
}

/// Rewrites the plugin library at `path` so that its entry symbol, `flipgraph_plugin_entry`,
/// names the address of the static `FLIPGRAPH_FIXTURE_MODE` (data) instead of the function:
/// the dynamic symbol record of the one takes the other's value, size, type and section.
pub fn point_entry_at_data(path: &Path) {
    use object::read::elf::{ElfFile64, SectionHeader, Sym};
    use object::LittleEndian;
    let mut bytes = std::fs::read(path).expect("library");
    let (entry, data, offset) = {
        let file = ElfFile64::<LittleEndian>::parse(&*bytes).expect("an ELF library");
        let endian = file.endian();
        let symbols = file.elf_dynamic_symbol_table();
        let strings = symbols.strings();
        let index = |wanted: &[u8]| {
            (symbols.symbols().iter())
                .position(|s| s.name(endian, strings) == Ok(wanted))
                .expect("symbol exported")
        };
        let section = file
            .elf_section_table()
            .section(symbols.section())
            .expect("dynsym");
        let offset = section.sh_offset(endian) as usize;
        (
            index(b"flipgraph_plugin_entry"),
            index(b"FLIPGRAPH_FIXTURE_MODE"),
            offset,
        )
    };
    let size = std::mem::size_of::<object::elf::Sym64<LittleEndian>>();
    let record = |i: usize| offset + i * size;
    // st_name (4 bytes) stays; st_info, st_other, st_shndx, st_value and st_size are copied
    let from = bytes[record(data) + 4..record(data) + size].to_vec();
    bytes[record(entry) + 4..record(entry) + size].copy_from_slice(&from);
    std::fs::write(path, bytes).expect("writable");
}

/// `mpirun` on `ranks` ranks over loopback TCP, oversubscribing the cores and allowed as root
/// (CI runs as root in a container): add the program and its arguments.
pub fn mpirun(ranks: usize) -> std::process::Command {
    let mut c = std::process::Command::new("mpirun");
    c.args([
        "--oversubscribe",
        "--allow-run-as-root",
        "-np",
        &ranks.to_string(),
        "--mca",
        "btl",
        "self,tcp",
        "--mca",
        "btl_tcp_if_include",
        "lo",
    ])
    .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    c
}

/// The `main` of a thread-rank test binary (`harness = false`): sizes the plugins' rayon pool
/// so every rank's blocking solve holds a worker, runs `cases` on a thread and exits with
/// status 1 when they panic or do not finish within `limit` (a rank that fails leaves the
/// others waiting in a collective: the binary stops rather than hangs).
pub fn run_thread_ranks(
    limit: std::time::Duration,
    passed: &str,
    cases: impl FnOnce() + Send + 'static,
) {
    std::env::set_var("RAYON_NUM_THREADS", "8");
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        cases();
        done.send(()).ok();
    });
    match finished.recv_timeout(limit) {
        Ok(()) => println!("{passed}"),
        Err(e) => {
            eprintln!("FAILED: a case failed or did not finish in {limit:?} ({e})");
            std::process::exit(1);
        }
    }
}

/// Runs `f` with a simulation of `doc` in this rank's window of a decomposed run (`comm`'s
/// rank), on a one-thread rayon pool of its own, as a rank of `run --mpi` would.
pub fn on_window<R: Send>(
    doc: &GraphDoc,
    registry: &NodeRegistry,
    comm: Arc<flip_comm::threads::ThreadComm>,
    f: impl FnOnce(&mut Simulation) -> R + Send,
) -> R {
    use flip_graph::window::{ghost_layers_for, Window};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a rank's pool");
    pool.install(|| {
        let (mut sim, _out) = simulation(doc, registry);
        let reach = sim.window_reach().expect("every node runs in a window");
        let ghost = ghost_layers_for(doc.settings.cfl, reach);
        let w = Window::new(comm, doc.settings.grid_spec(), ghost).expect("slabs thick enough");
        sim.set_window(w).expect("window accepted");
        f(&mut sim)
    })
}

/// The probed grid `i` of `sim` (a scalar field or a level set); panics if it is neither.
pub fn probed_grid(sim: &Simulation, i: usize) -> Arc<flip_core::Grid3<f32>> {
    use flip_nodes::kinds::{LEVEL_SET, SCALAR};
    let probe = &sim.probed()[i];
    let grid = probe
        .as_ref()
        .and_then(|v| v.shared_as(SCALAR).or(v.shared_as(LEVEL_SET)));
    grid.unwrap_or_else(|| panic!("probe {i}: {probe:?}"))
}

/// Mean height (m) of the zero crossing of φ over the columns at least two cells from the
/// domain's sides: the free surface of a tank.
pub fn surface_height(spec: &flip_core::GridSpec, phi: &flip_core::Grid3<f32>) -> f64 {
    let (mut sum, mut count) = (0.0, 0.0);
    let layers = if spec.is_2d() { 0..1 } else { 2..spec.nk - 2 };
    for k in layers {
        for i in 2..spec.ni - 2 {
            for j in 0..spec.nj - 1 {
                let (a, b) = (phi[(i, j, k)], phi[(i, j + 1, k)]);
                if a < 0.0 && b >= 0.0 {
                    sum += (j as f64 + 0.5 + f64::from(a / (a - b))) * f64::from(spec.dx);
                    count += 1.0;
                    break;
                }
            }
        }
    }
    sum / count
}

/// RMS relative deviation of the pressure `p` (Pa) from ρ·g·(surface − y) over the liquid cells
/// of `cells` (water, g = 9.81 m/s², the surface from [`surface_height`]).
pub fn hydrostatic_error(
    spec: &flip_core::GridSpec,
    p: &flip_core::Grid3<f32>,
    phi: &flip_core::Grid3<f32>,
    cells: &flip_core::CellGrid,
) -> f64 {
    let h = surface_height(spec, phi);
    let (mut err, mut norm) = (0.0, 0.0);
    for (c, (&pc, kind)) in p.data.iter().zip(&cells.data).enumerate() {
        if !kind.is_fluid() {
            continue;
        }
        let y = ((c / spec.ni) % spec.nj) as f64 + 0.5;
        let exact = 1000.0 * 9.81 * (h - y * f64::from(spec.dx));
        err += (f64::from(pc) - exact).powi(2);
        norm += exact.powi(2);
    }
    (err / norm).sqrt()
}
