//! `flipgraph bench nodes`: the cost of a node plugin against the built-in node doing the same
//! work: the built-in `vorticity` node and the `confinement/vorticity_confinement` plugin node
//! (plugins/confinement), in this process and isolated in a child process
//! (`isolation = "process"`, its ports copied through shared memory), on the same 3D velocity
//! field, evaluated in turn; milliseconds per evaluation and each plugin row's overhead.

use super::bench_dir;
use super::table::Table;
use crate::session::Session;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use flip_core::GridSpec;
use flip_graph::{EvalCtx, NodeInit, NodeIo, ParamMap, ParamValue, Value};
use flip_nodes::kinds::{VelocityField, VELOCITY};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `bench nodes`.
#[derive(Args)]
pub struct NodesArgs {
    /// Grid sizes (cells per axis, 3D).
    #[arg(long, value_delimiter = ',', default_value = "64")]
    pub sizes: Vec<usize>,
    /// Timed evaluations per node and size.
    #[arg(long, default_value_t = 30)]
    pub evals: u32,
    /// Untimed warm-up evaluations.
    #[arg(long, default_value_t = 3)]
    pub warmup: u32,
    /// Confinement strength ε; 0 makes both nodes return at once, so the plugin's time is
    /// the boundary's own cost (port checks, output checks).
    #[arg(long, default_value_t = 0.3)]
    pub epsilon: f64,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The compared nodes, (kind, isolated): built-in first, then the plugin in this process and
/// isolated.
const NODES: [(&str, bool); 3] = [
    ("vorticity", false),
    ("confinement/vorticity_confinement", false),
    ("confinement/vorticity_confinement", true),
];

/// A swirling, sheared velocity on `grid`, so the confinement has vortices to work on.
fn swirl(grid: &GridSpec) -> VelocityField {
    let mut f = VelocityField::zeros(grid);
    let c = 0.5 * grid.extent();
    for (a, comp) in f.vel.axes_mut().into_iter().enumerate() {
        let [ni, nj, nk] = comp.dims();
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    let x = grid.face_center(a, i, j, k) - c;
                    comp[(i, j, k)] = match a {
                        0 => -x.y * (1.0 + x.z) + (7.0 * x.z).sin(),
                        1 => x.x * (1.0 - x.z) + (5.0 * x.x).cos(),
                        _ => (3.0 * x.x).sin() * (2.0 * x.y).cos(),
                    };
                }
            }
        }
    }
    f
}

/// Median and minimum ms per evaluation of each of [`NODES`] on an `n`³ grid.
fn measure(session: &Session, a: &NodesArgs, n: usize) -> Result<[(f64, f64); 3]> {
    let doc = session.graph(&PathBuf::from("graphs/plugin_smoke_plume_2d.ron"), &[])?;
    let grid = GridSpec::new(n, n, n, 1.0 / n as f32);
    let start = swirl(&grid);
    let out = std::env::temp_dir().join("flipgraph-bench-nodes");
    let mut nodes = Vec::new();
    for (kind, isolated) in NODES {
        let k = session.registry.get(kind).ok_or_else(|| {
            anyhow!("node kind `{kind}` is not loaded (build plugins/confinement: cargo build --release)")
        })?;
        let mut params: ParamMap = k
            .spec
            .params
            .iter()
            .map(|p| (p.name.clone(), p.default.clone()))
            .collect();
        params.insert("epsilon".into(), ParamValue::Number(a.epsilon));
        if isolated {
            params.insert("isolation".into(), ParamValue::Text("process".into()));
        }
        let init = NodeInit {
            id: "bench",
            params: &params,
            settings: &doc.settings,
            out_dir: &out,
            base_dir: &out,
            allow_outside_out: false,
        };
        nodes.push(k.instantiate(&init).map_err(|e| anyhow!("{kind}: {e}"))?);
    }
    let ctx = EvalCtx {
        grid,
        settings: Arc::new(doc.settings.clone()),
        dt: 1.0 / 240.0,
        time: 0.0,
        step: 0,
        frame: 0,
        substep: 0,
        frame_end: false,
        paired: false,
        out_dir: out.clone(),
        cancel: Arc::new(AtomicBool::new(false)),
        window: None,
    };
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for e in 0..a.warmup + a.evals {
        for (node, t) in nodes.iter_mut().zip(&mut times) {
            let input = Value::new(VELOCITY, start.clone());
            let mut io = NodeIo::new(vec![("velocity".into(), Some(input))], &["velocity".into()]);
            let began = Instant::now();
            node.eval(&ctx, &mut io).map_err(|e| anyhow!("{e}"))?;
            let ms = began.elapsed().as_secs_f64() * 1e3;
            drop(io); // the output's memory is freed outside the timing
            if e >= a.warmup {
                t.push(ms);
            }
        }
    }
    Ok(times.map(|mut v| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0])
    }))
}

/// Runs the benchmark and prints the table.
pub fn run(session: &Session, a: &NodesArgs) -> Result<()> {
    if a.evals == 0 {
        bail!("--evals must be at least 1");
    }
    let mut table = Table::new(
        "nodes",
        format!(
            "bench nodes: vorticity confinement (ε = {}) as a built-in node and as a node plugin \
             in this process and isolated (isolation = process), ms per evaluation, median and \
             minimum of {} after {} warm-up",
            a.epsilon, a.evals, a.warmup
        ),
        &[
            "grid",
            "built-in ms",
            "plugin ms",
            "plugin − built-in ms",
            "overhead",
            "min built-in / plugin ms",
            "overhead of min",
            "isolated ms",
            "isolated overhead",
            "min isolated ms",
            "isolated overhead of min",
        ],
    );
    let percent = |x: f64, base: f64| format!("{:+.1} %", 100.0 * (x - base) / base);
    for &n in &a.sizes {
        let [(b, b_min), (p, p_min), (i, i_min)] = measure(session, a, n)?;
        table.row([
            format!("{n}³"),
            format!("{b:.3}"),
            format!("{p:.3}"),
            format!("{:+.3}", p - b),
            percent(p, b),
            format!("{b_min:.3} / {p_min:.3}"),
            percent(p_min, b_min),
            format!("{i:.3}"),
            percent(i, b),
            format!("{i_min:.3}"),
            percent(i_min, b_min),
        ]);
    }
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}
