//! Open domain faces, inflow and sinks (issue 40, items 1-3): liquid enters through an inflow
//! face, leaves through an open one or a sink, and the run's volume balance closes. The graphs
//! are the shipped 2D dam break with the solids node's face parameters set (and a sink node
//! spliced in), emitters at their default jitter.

use flip_core::{Grid3, GridSpec};
use flip_graph::{EdgeDoc, GraphDoc, NodeDoc, ParamValue, ParamValue::*, Simulation, StepReport};
use flip_nodes::kinds::{CarriedParticles, LEVEL_SET, SCALAR};
use flip_nodes::stats::{particle_volume, VolumeBalance};
use flipgraph_tests::{graph, registry, set, simulation};
use std::collections::HashSet;

const RHO_G: f64 = 1000.0 * 9.81;

/// The shipped 2D dam break on `ni × nj` cells of `dx`, without file output.
fn base(ni: usize, nj: usize, dx: f32) -> GraphDoc {
    let mut doc = graph("dam_break_2d.ron");
    for export in ["export", "fields"] {
        doc.nodes.retain(|n| n.id != export);
        doc.edges.retain(|e| e.to.node != export);
    }
    doc.settings.grid = [ni, nj, 1];
    doc.settings.cell_size = dx;
    doc
}

fn spec_of(doc: &GraphDoc) -> GridSpec {
    let [ni, nj, nk] = doc.settings.grid;
    GridSpec::new(ni, nj, nk, doc.settings.cell_size)
}

fn ids(sim: &Simulation) -> Vec<String> {
    sim.plan().nodes.iter().map(|n| n.id.clone()).collect()
}

fn count(sim: &Simulation) -> usize {
    sim.particles().map_or(0, |p| p.len())
}

/// One frame: its reports and its balance, the change inside taken from the particles
/// themselves (not from the reports), so a removal nobody reports shows as an imbalance.
fn frame(sim: &mut Simulation, spec: &GridSpec) -> (Vec<StepReport>, VolumeBalance) {
    let before = count(sim);
    let reports = sim.advance_frame().expect("frame");
    let mut b = VolumeBalance::of_steps(&reports, &ids(sim), before, f64::from(spec.dx), 2);
    let per = particle_volume(f64::from(spec.dx), 2);
    b.change = (count(sim) as f64 - before as f64) * per;
    b.imbalance = b.volume_in() - b.volume_out() - b.change;
    (reports, b)
}

/// Steps after which the conveyor is steady (its level settles after about 1700).
const STEADY: usize = 2500;

/// The conveyor: an inflow on the left face, the right face open, a shallow layer to start.
fn conveyor() -> GraphDoc {
    let mut doc = base(64, 32, 1.0 / 64.0);
    set(&mut doc, "walls", "side_x_min", Text("inflow".into()));
    set(&mut doc, "walls", "inflow_speed", Number(0.5));
    set(&mut doc, "walls", "inflow_height", Number(0.12));
    set(&mut doc, "walls", "side_x_max", Text("open".into()));
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.03, 0.0]));
    set(&mut doc, "source", "size", Vector(vec![1.0, 0.06, 0.0]));
    doc
}

/// Inflow on one face, open on the other, 4000 steps: once steady (after [`STEADY`]) the
/// volume inside stays within ±1 % of its mean, and in − out − change closes within 0.5 % of
/// the volume that passed through, by the particle measure and by the level set's volume.
#[test]
fn a_conveyor_reaches_a_steady_level_and_its_books_close() {
    let doc = conveyor();
    let spec = spec_of(&doc);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    let per = particle_volume(f64::from(spec.dx), 2);
    let (mut steps, mut frames, mut levels) = (0usize, Vec::new(), Vec::new());
    while steps < 4000 {
        let (reports, b) = frame(&mut sim, &spec);
        steps += reports.len();
        // the level of a frame: the mean over its steps of the volume inside
        let mean = reports.iter().map(|r| r.count as f64).sum::<f64>() / reports.len() as f64;
        levels.push((steps, mean * per));
        if std::env::var_os("FLIP_TRACE").is_some() && sim.frame() % 10 == 0 {
            eprintln!(
                "frame {} step {steps}: inside {:.5} out {:.5}",
                sim.frame(),
                b.inside,
                b.volume_out()
            );
        }
        frames.push((steps, b));
    }
    let steady: Vec<&VolumeBalance> = frames
        .iter()
        .filter(|(s, _)| *s > STEADY)
        .map(|(_, b)| b)
        .collect();
    // the level over a quarter second (six frames, about 35 steps): each step's inflow layer
    // adds 1.5 % of the volume inside at once, the open face takes it out particle by particle
    let inside: Vec<f64> = levels
        .iter()
        .filter(|(s, _)| *s > STEADY)
        .map(|(_, v)| *v)
        .collect::<Vec<_>>()
        .chunks_exact(6)
        .map(|c| c.iter().sum::<f64>() / 6.0)
        .collect();
    let mean = inside.iter().sum::<f64>() / inside.len() as f64;
    let spread = inside
        .iter()
        .map(|v| (v / mean - 1.0).abs())
        .fold(0.0, f64::max);
    let total_in: f64 = steady.iter().map(|b| b.volume_in()).sum();
    let total_out: f64 = steady.iter().map(|b| b.volume_out()).sum();
    let change: f64 = steady.iter().map(|b| b.change).sum();
    let gap = (total_in - total_out - change).abs() / total_out;
    let ls = |b: &VolumeBalance| b.level_set_volume.expect("level set volume");
    let ls_change = ls(steady[steady.len() - 1]) - ls(&frames[frames.len() - steady.len() - 1].1);
    let ls_gap = (total_in - total_out - ls_change).abs() / total_out;
    eprintln!(
        "conveyor: {steps} steps; steady volume {mean:.5} m², spread {:.3} %; through {total_out:.4} m², \
         in {total_in:.4}, change {change:+.5}, gap {:.4} %; level-set change {ls_change:+.5}, gap {:.3} %",
        100.0 * spread,
        100.0 * gap,
        100.0 * ls_gap
    );
    assert!(
        total_out > 2.0 * mean,
        "liquid passes through: {total_out} vs {mean}"
    );
    assert!(spread < 0.01, "steady level within ±1 %: {spread}");
    assert!(gap < 0.005, "particle books close within 0.5 %: {gap}");
    assert!(
        ls_gap < 0.005,
        "level-set books close within 0.5 %: {ls_gap}"
    );
}

/// Adds node `id` of `kind` with `params`.
fn add_node(doc: &mut GraphDoc, id: &str, kind: &str, params: Vec<(&str, ParamValue)>) {
    doc.nodes.push(NodeDoc::new(id, kind));
    for (k, v) in params {
        set(doc, id, k, v);
    }
}

/// A tank with a sink spliced between advection and the step output.
fn tank(mode: &str, rate: f64) -> GraphDoc {
    let mut doc = base(48, 48, 1.0 / 48.0);
    set(&mut doc, "source", "center", Vector(vec![0.5, 0.22, 0.0]));
    set(&mut doc, "source", "size", Vector(vec![1.0, 0.4, 0.0]));
    add_node(
        &mut doc,
        "drain",
        "sink",
        vec![
            ("shape", Text("box".into())),
            ("center", Vector(vec![0.5, 0.05, 0.0])),
            ("size", Vector(vec![0.12, 0.1, 0.0])),
            ("mode", Text(mode.into())),
            ("rate", Number(rate)),
        ],
    );
    for e in doc.edges.iter_mut() {
        if e.from.node == "advect" && e.from.port == "particles" {
            e.from = flip_graph::Endpoint::new("drain", "particles");
        }
    }
    doc.edges
        .push(EdgeDoc::new("advect.particles", "drain.particles"));
    doc
}

/// The volume a sink removes equals the volume inside's drop within 0.5 %, by the particle
/// measure and by the level set's volume; with the sink closed (rate 0) the level set's volume
/// stays within the volume correction's bound (1 %, tests/volume.rs).
#[test]
fn a_draining_tank_loses_what_its_sink_removes() {
    let registry = registry();
    for (mode, rate, frames) in [("rate", 2.0, 48), ("complete", 0.0, 12)] {
        let doc = tank(mode, rate);
        let spec = spec_of(&doc);
        let (mut sim, _out) = simulation(&doc, &registry);
        let (_, first) = frame(&mut sim, &spec);
        let (mut removed, mut change) = (0.0, 0.0);
        let mut last = first.clone();
        for _ in 0..frames {
            let (_, b) = frame(&mut sim, &spec);
            removed += b.sinks.get("drain").copied().unwrap_or(0.0);
            change += b.change;
            last = b;
        }
        let start = first.level_set_volume.unwrap();
        let ls_drop = start - last.level_set_volume.unwrap();
        let gap = (removed + change).abs() / removed;
        let ls_gap = (removed - ls_drop).abs() / removed;
        eprintln!(
            "sink {mode}: removed {removed:.5} m² of {:.5}; particle drop {:.5} (gap {:.4} %); \
             level-set drop {ls_drop:.5} (gap {:.3} %)",
            first.inside,
            -change,
            100.0 * gap,
            100.0 * ls_gap
        );
        assert!(removed > 0.05 * first.inside, "the sink drains: {removed}");
        assert!(
            gap < 0.005,
            "{mode}: particle drop = removed within 0.5 %: {gap}"
        );
        assert!(
            ls_gap < 0.005,
            "{mode}: level-set drop = removed within 0.5 %: {ls_gap}"
        );
    }
    let doc = tank("rate", 0.0);
    let spec = spec_of(&doc);
    let (mut sim, _out) = simulation(&doc, &registry);
    let (_, first) = frame(&mut sim, &spec);
    let mut last = first.clone();
    for _ in 0..48 {
        last = frame(&mut sim, &spec).1;
        assert_eq!(last.sinks.get("drain").copied().unwrap_or(0.0), 0.0);
    }
    let drift = last.level_set_volume.unwrap() / first.level_set_volume.unwrap() - 1.0;
    eprintln!(
        "sink closed: level-set volume drift {:+.4} %",
        100.0 * drift
    );
    assert!(drift.abs() < 0.01, "closed sink keeps the volume: {drift}");
}

fn probed(sim: &Simulation, i: usize) -> std::sync::Arc<Grid3<f32>> {
    let probe = &sim.probed()[i];
    probe
        .as_ref()
        .and_then(|v| v.shared_as(SCALAR).or(v.shared_as(LEVEL_SET)))
        .unwrap_or_else(|| panic!("probe {i}: {probe:?}"))
}

/// A dam break towards an open right face above a sill: the surge leaves without coming back
/// (no particle that reached the open layer is found inside again) and, once it has passed,
/// the pool left behind the sill is hydrostatic within 1 % (RMS over its liquid cells).
#[test]
fn an_open_face_lets_a_dam_break_surge_leave() {
    let (report, returned) = dam_break_open("open");
    assert_eq!(returned, 0, "particles came back from the open face");
    assert!(
        report < 0.01,
        "pool near the open face hydrostatic within 1 %: {report}"
    );
}

/// The sill's top (m) and the domain of the open-face dam break.
const SILL: f32 = 0.25;

/// Runs the dam break with the right face `mode`; returns the RMS hydrostatic error of the
/// pool at the end and how many particles came back from the open layer.
fn dam_break_open(mode: &str) -> (f64, usize) {
    let mut doc = base(64, 48, 1.0 / 64.0);
    set(&mut doc, "walls", "side_x_max", Text(mode.into()));
    set(&mut doc, "source", "center", Vector(vec![0.2, 0.35, 0.0]));
    set(&mut doc, "source", "size", Vector(vec![0.4, 0.7, 0.0]));
    add_node(
        &mut doc,
        "sill",
        "solids",
        vec![
            ("shape", Text("box".into())),
            ("center", Vector(vec![0.9, 0.5 * f64::from(SILL), 0.5])),
            ("size", Vector(vec![0.2, f64::from(SILL), 1.0])),
        ],
    );
    for e in doc.edges.iter_mut() {
        if e.from.node == "walls" {
            e.from = flip_graph::Endpoint::new("sill", "solids");
        }
    }
    doc.edges
        .push(EdgeDoc::new("walls.solids", "sill.solids_in"));
    let spec = spec_of(&doc);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("pressure", "pressure"), ("level_set", "level_set")]);
    let (dx, ext) = (spec.dx, spec.extent().x);
    let mut reached: HashSet<u64> = HashSet::new();
    let mut returned = HashSet::new();
    let mut samples = Vec::new();
    let frames: u32 = std::env::var("FLIP_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(192);
    for f in 0..frames {
        frame(&mut sim, &spec);
        if 2 * f >= frames {
            samples.push(pool(&sim, &spec));
        }
        let ps = sim.particles().unwrap();
        for (i, p) in ps.pos.iter().enumerate() {
            let id = ps.id_of(i);
            if p.x > ext - 1.5 * dx && p.y > SILL {
                reached.insert(id);
            } else if p.x < ext - 4.0 * dx && reached.contains(&id) {
                returned.insert(id);
            }
        }
    }
    let rms = mean_pool_error(&samples);
    eprintln!(
        "dam break, right face {mode}: {} particles reached the open layer, {} came back; \
         pool hydrostatic RMS error {:.3} % ({} left)",
        reached.len(),
        returned.len(),
        100.0 * rms,
        count(&sim)
    );
    (rms, returned.len())
}

/// A pool cell: its index, pressure and hydrostatic pressure.
type PoolCell = ((usize, usize), f64, f64);

/// The pool left of the sill (ten columns, cells more than two cells below the local surface
/// `h`): each cell's pressure and its hydrostatic value `ρ g (h − y)`.
fn pool(sim: &Simulation, spec: &GridSpec) -> Vec<PoolCell> {
    let dx = spec.dx;
    let (p, phi) = (probed(sim, 0), probed(sim, 1));
    let sill_start = ((0.8 / dx) as usize).saturating_sub(1);
    let mut out = Vec::new();
    for i in sill_start - 12..sill_start - 2 {
        let surface = (0..spec.nj - 1).find_map(|j| {
            let (a, b) = (phi[(i, j, 0)], phi[(i, j + 1, 0)]);
            (a < 0.0 && b >= 0.0).then(|| (j as f64 + 0.5 + f64::from(a / (a - b))) * f64::from(dx))
        });
        let Some(h) = surface else { continue };
        for j in 1..spec.nj {
            if phi[(i, j, 0)] >= -2.0 * dx {
                break;
            }
            let exact = RHO_G * (h - (j as f64 + 0.5) * f64::from(dx));
            out.push(((i, j), f64::from(p[(i, j, 0)]), exact));
        }
    }
    out
}

/// RMS relative deviation from hydrostatic of the pool's pressure averaged over the samples
/// (a FLIP pool's per-step pressure carries its particles' noise; its mean is the physics),
/// over the cells liquid in every sample.
fn mean_pool_error(samples: &[Vec<PoolCell>]) -> f64 {
    let mut sums: std::collections::HashMap<(usize, usize), (f64, f64, usize)> = Default::default();
    for s in samples {
        for &(c, p, exact) in s {
            let e = sums.entry(c).or_default();
            (e.0, e.1, e.2) = (e.0 + p, e.1 + exact, e.2 + 1);
        }
    }
    let (mut err, mut norm) = (0.0, 0.0);
    for (p, exact, n) in sums.values() {
        if *n == samples.len() {
            err += (p - exact).powi(2);
            norm += exact.powi(2);
        }
    }
    (err / norm).sqrt()
}

/// The same dam break against a wall: the surge comes back from the face (the check above
/// measures something a closed face fails).
#[test]
fn a_wall_sends_the_surge_back() {
    let (_, returned) = dam_break_open("wall");
    assert!(returned > 0, "a wall reflects the surge");
}

/// Bad input names the node and the field: a sink with a negative rate is refused when the
/// graph is built, and a face one solids node opens and another makes an inflow is refused
/// on the first step.
#[test]
fn bad_faces_and_rates_name_their_node_and_field() {
    let registry = registry();
    let doc = tank("rate", -0.5);
    let out = tempfile::tempdir().unwrap();
    let errors = match Simulation::new(&doc, &registry, out.path(), &flipgraph_tests::graphs_dir())
    {
        Err(e) => e
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        Ok(_) => panic!("a negative sink rate is accepted"),
    };
    assert!(
        errors.contains("drain") && errors.contains("rate"),
        "{errors}"
    );

    let mut doc = conveyor();
    add_node(
        &mut doc,
        "outlet",
        "solids",
        vec![("side_x_max", Text("inflow".into()))],
    );
    for e in doc.edges.iter_mut() {
        if e.from.node == "walls" {
            e.from = flip_graph::Endpoint::new("outlet", "solids");
        }
    }
    doc.edges
        .push(EdgeDoc::new("walls.solids", "outlet.solids_in"));
    let (mut sim, _out) = simulation(&doc, &registry);
    let error = match sim.advance_frame() {
        Err(e) => e.to_string(),
        Ok(_) => panic!("conflicting faces accepted"),
    };
    assert!(
        error.contains("outlet") && error.contains("side_x_max"),
        "{error}"
    );
}
