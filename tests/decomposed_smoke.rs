//! Decomposed Eulerian smoke without MPI: the ranks of `run --mpi` as threads of this process
//! (`ThreadComm`), each simulating its window of `smoke_plume_2d.ron` at 48×72 cells on 2 and
//! 4 ranks. The grid fields carried between substeps (velocity, density, temperature) refresh
//! their ghost layers from the neighbours before every substep; after the plume has risen
//! through the middle slab face, the density and velocity gathered from the owned layers agree with
//! the single-domain run within the pressure solver's tolerance.
//!
//! A test binary of its own (`harness = false`): the plugins' rayon pool must hold a worker
//! for every rank's blocking solve, so `RAYON_NUM_THREADS` is set before any pool starts.

use flip_comm::threads::ThreadComm;
use flip_graph::window::{gather_cells, gather_mac, Window};
use flip_graph::{GraphDoc, NodeRegistry, Value};
use flip_nodes::kinds::{VelocityField, SCALAR, VELOCITY};
use flipgraph_tests::{graph, on_window, registry, simulation};

/// Frames simulated (3 s: the plume rises past layer 40 of 72).
const FRAMES: u32 = 72;
/// Probed outputs: the advected density and the projected velocity.
const PROBES: [(&str, &str); 2] = [("advect", "density"), ("pressure", "velocity")];

/// The density and the MAC velocity components of the last frame, over the whole domain.
struct Fields {
    density: Vec<f32>,
    velocity: Vec<f32>,
}

/// The fields of the probed values, gathered to rank 0 in a window (`None` elsewhere).
fn fields(values: &[Option<Value>], window: Option<&Window>) -> Option<Fields> {
    let probe = |i: usize, kind| values[i].as_ref().filter(|v: &&Value| v.kind() == kind);
    let (Some(d), Some(v)) = (
        probe(0, SCALAR).and_then(|v| v.get::<flip_core::Grid3<f32>>()),
        probe(1, VELOCITY).and_then(|v| v.get::<VelocityField>()),
    ) else {
        panic!("the probes hold the density and the velocity")
    };
    let Some(w) = window else {
        let velocity = [&v.vel.u, &v.vel.v, &v.vel.w]
            .map(|g| g.data.clone())
            .concat();
        return Some(Fields {
            density: d.data.clone(),
            velocity,
        });
    };
    let density = gather_cells(w, &d.data, 1);
    let mac = gather_mac(w, &v.vel);
    density.zip(mac).map(|(density, mac)| Fields {
        density,
        velocity: [mac.u.data, mac.v.data, mac.w.data].concat(),
    })
}

/// Runs the plume on `ranks` thread ranks (0: undecomposed); rank 0's gathered fields.
fn run(doc: &GraphDoc, reg: &NodeRegistry, ranks: u32) -> Fields {
    if ranks == 0 {
        let (mut sim, _out) = simulation(doc, reg);
        sim.set_probes(&PROBES);
        (0..FRAMES).for_each(|_| drop(sim.advance_frame().expect("frame")));
        return fields(sim.probed(), None).expect("one domain");
    }
    let comms = ThreadComm::group(ranks);
    std::thread::scope(|s| {
        let handles: Vec<_> = comms
            .into_iter()
            .map(|comm| s.spawn(move || rank(doc, reg, comm)))
            .collect();
        let gathered: Vec<Fields> = handles
            .into_iter()
            .filter_map(|h| h.join().expect("rank finished"))
            .collect();
        gathered.into_iter().next().expect("rank 0 gathers")
    })
}

/// One rank's run; rank 0 returns the gathered fields.
fn rank(doc: &GraphDoc, reg: &NodeRegistry, comm: std::sync::Arc<ThreadComm>) -> Option<Fields> {
    on_window(doc, reg, comm, |sim| {
        sim.set_probes(&PROBES);
        (0..FRAMES).for_each(|_| drop(sim.advance_frame().expect("frame")));
        let w = sim.window().expect("set").clone();
        fields(sim.probed(), Some(&w))
    })
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "field sizes differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn check(reg: &NodeRegistry) {
    let mut doc = graph("smoke_plume_2d.ron");
    doc.settings.grid = [48, 72, 1];
    doc.settings.cell_size = 1.0 / 48.0;
    let single = run(&doc, reg, 0);
    // the plume crosses the middle slab face (layer 36 on 2 and on 4 ranks)
    let top: f32 = single.density[48 * 40..]
        .iter()
        .copied()
        .fold(0.0, f32::max);
    assert!(top > 0.1, "the plume stays below layer 40 ({top})");
    let speed = single.velocity.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    for ranks in [2, 4] {
        let got = run(&doc, reg, ranks);
        let d = max_diff(&got.density, &single.density);
        let v = max_diff(&got.velocity, &single.velocity) / speed;
        println!("smoke_plume_2d [48, 72, 1], {ranks} ranks, frame {FRAMES}: density {d:.2e}, velocity {v:.2e} of {speed:.3} m/s");
        assert!(d < 1e-3 && v < 1e-3, "{ranks} ranks differ from one domain");
    }
}

fn main() {
    flipgraph_tests::run_thread_ranks(
        std::time::Duration::from_secs(600),
        "decomposed smoke agrees with the single-domain run",
        || check(&registry()),
    );
}
