//! Solver sweeps: run the same scene with each algorithm at each size for a few steps and
//! average iterations and seconds per pressure solve (Lai et al. Tables 1-6 for our solvers).
//! Every run is made twice, with the voxelized and the variational boundary
//! (`pressure.geometry`), and the tables print the two side by side; `bench solvers` runs the
//! dam break and the circle/sphere container, `bench lcp` the container.

use super::bench_dir;
use super::table::Table;
use crate::cmd_run::build;
use crate::session::Session;
use crate::summary::RunSummary;
use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use flip_graph::overrides::parse_overrides;
use std::path::{Path, PathBuf};

/// Which family of solvers to sweep.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SweepKind {
    /// Standard walls, linear solvers.
    Linear,
    /// Separating walls, LCP solvers (plus one standard-wall linear solve for reference).
    Lcp,
}

/// Arguments of `bench solvers` / `bench lcp`.
#[derive(Args)]
pub struct SweepArgs {
    /// About a minute: small sizes and few steps.
    #[arg(long)]
    pub quick: bool,
    /// 2D sizes (cells per axis).
    #[arg(long, value_delimiter = ',')]
    pub sizes_2d: Option<Vec<usize>>,
    /// 3D sizes.
    #[arg(long, value_delimiter = ',')]
    pub sizes_3d: Option<Vec<usize>>,
    /// Steps per run (fixed dt = 1/240 s, the first one is not counted).
    #[arg(long)]
    pub steps: Option<u32>,
    /// Only algorithms whose name contains one of these (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Option<Vec<String>>,
    /// Skip a size of an algorithm when a smaller size, scaled by the cell count, predicts a
    /// solve longer than this (s).
    #[arg(long, default_value_t = 5.0)]
    pub budget: f64,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Boundary discretisations every run is made with, and their column tags.
const GEOMETRIES: [(&str, &str); 2] = [("voxelized", "vox"), ("variational", "var")];

struct Row {
    scene: &'static str,
    dim: u32,
    size: usize,
    solver: String,
    iterations: f64,
    outer: f64,
    seconds: f64,
    residual: f64,
    unconverged: usize,
    solves: usize,
}

fn algorithms(
    session: &Session,
    kind: SweepKind,
    only: &Option<Vec<String>>,
) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = session
        .plugins
        .algorithms()
        .into_iter()
        .filter_map(|(name, a)| {
            let keep = match kind {
                SweepKind::Linear => {
                    a.supports_linear() && !a.supports_lcp() && a.accepts_structured()
                }
                SweepKind::Lcp => a.supports_lcp(),
            };
            keep.then_some((
                name,
                if kind == SweepKind::Lcp {
                    "separating"
                } else {
                    "standard"
                },
            ))
        })
        .collect();
    if kind == SweepKind::Lcp {
        let names: Vec<String> = session
            .plugins
            .algorithms()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        if let Some(best) = ["multigrid/mgpcg", "pcg/mic0-pcg"]
            .iter()
            .find(|p| names.iter().any(|n| n == *p))
        {
            out.push((best.to_string(), "standard"));
        }
    }
    if let Some(filter) = only {
        out.retain(|(n, _)| filter.iter().any(|f| n.contains(f.as_str())));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn one_run(
    session: &Session,
    graph: &Path,
    dim: u32,
    size: usize,
    solver: &str,
    boundary: &str,
    geometry: &str,
    steps: u32,
) -> Result<RunSummary> {
    let grid = if dim == 2 {
        format!("[{size}, {size}, 1]")
    } else {
        format!("[{size}, {size}, {size}]")
    };
    let sets = vec![
        format!("settings.grid={grid}"),
        format!("settings.cell_size={}", 1.0 / size as f64),
        format!("pressure.solver={solver}"),
        format!("pressure.boundary={boundary}"),
        format!("pressure.geometry={geometry}"),
    ];
    let doc = session.graph(graph, &parse_overrides(&sets)?)?;
    let out = std::env::temp_dir().join("flipgraph-bench");
    let mut sim = build(session, &doc, graph, &out)?;
    let dt = 1.0 / 240.0;
    sim.substep(dt, 0, false).map_err(|e| anyhow!("{e}"))?; // first step: emission, not counted
    let mut summary = RunSummary::new(&sim);
    for s in 1..steps {
        let r = sim.substep(dt, s, false).map_err(|e| anyhow!("{e}"))?;
        summary.add_frame(std::slice::from_ref(&r));
    }
    Ok(summary)
}

/// Runs a sweep and prints Lai-style tables.
pub fn run(session: &Session, a: &SweepArgs, kind: SweepKind) -> Result<()> {
    // (scene, 2D graph, 3D graph); the containers run with standard walls in `bench solvers`.
    let (scenes, name): (&[(&'static str, &str, &str)], _) = match kind {
        SweepKind::Linear => (
            &[
                (
                    "dam break",
                    "graphs/bench_dam_break_2d.ron",
                    "graphs/bench_dam_break_3d.ron",
                ),
                (
                    "container",
                    "graphs/lcp_circle_2d.ron",
                    "graphs/lcp_sphere_3d.ron",
                ),
            ],
            "solvers",
        ),
        SweepKind::Lcp => (
            &[(
                "container",
                "graphs/lcp_circle_2d.ron",
                "graphs/lcp_sphere_3d.ron",
            )],
            "lcp",
        ),
    };
    let sizes2 = a.sizes_2d.clone().unwrap_or(if a.quick {
        vec![32, 64, 128]
    } else {
        vec![32, 64, 128, 256]
    });
    let sizes3 = a
        .sizes_3d
        .clone()
        .unwrap_or(if a.quick { vec![32] } else { vec![32, 64, 128] });
    let steps = a.steps.unwrap_or(if a.quick { 4 } else { 11 });
    let algs = algorithms(session, kind, &a.only);
    if algs.is_empty() {
        return Err(anyhow!(
            "no matching solver plugins loaded (see `flipgraph plugins`)"
        ));
    }
    let mut rows = Vec::new();
    for &(scene, g2, g3) in scenes {
        for (dim, sizes, graph) in [(2u32, &sizes2, g2), (3, &sizes3, g3)] {
            let graph = PathBuf::from(graph);
            for (solver, boundary) in &algs {
                for (geometry, tag) in GEOMETRIES {
                    let base = if kind == SweepKind::Lcp && *boundary == "standard" {
                        format!("{solver} (no LCP)")
                    } else {
                        solver.clone()
                    };
                    let label = format!("{base} {tag}");
                    for &size in sizes.iter() {
                        let run = (scene, dim, size, label.as_str());
                        if let Some(row) = sweep_one(a, &rows, run, &graph, |g| {
                            one_run(session, g, dim, size, solver, boundary, geometry, steps)
                        })? {
                            rows.push(row);
                        }
                    }
                }
            }
        }
    }
    for &(scene, _, _) in scenes {
        let of_scene: Vec<&Row> = rows.iter().filter(|r| r.scene == scene).collect();
        println!("\n=== {scene} (vox = voxelized, var = variational boundary)");
        print_tables(&of_scene);
    }
    let mut table = Table::new(
        name,
        format!(
            "bench {}: {steps} steps per run, dt = 1/240 s, first step not counted, {} threads",
            name,
            rayon::current_num_threads()
        ),
        &[
            "scene",
            "dim",
            "size",
            "solver",
            "avg iterations",
            "avg outer iterations",
            "avg s",
            "max residual",
            "not converged",
            "solves",
        ],
    );
    for r in &rows {
        table.row([
            r.scene.to_string(),
            r.dim.to_string(),
            r.size.to_string(),
            r.solver.clone(),
            format!("{:.3}", r.iterations),
            format!("{:.3}", r.outer),
            format!("{:.6}", r.seconds),
            format!("{:.3e}", r.residual),
            r.unconverged.to_string(),
            r.solves.to_string(),
        ]);
    }
    println!();
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}

/// Runs one (scene, dim, size, label) unless a smaller size of the same label predicts more
/// than the budget per solve; prints and returns its row.
fn sweep_one(
    a: &SweepArgs,
    rows: &[Row],
    (scene, dim, size, label): (&'static str, u32, usize, &str),
    graph: &Path,
    run: impl FnOnce(&Path) -> Result<RunSummary>,
) -> Result<Option<Row>> {
    // At least linear growth in the cell count from the largest size run so far.
    let predicted = rows
        .iter()
        .filter(|r| r.scene == scene && r.solver == label && r.dim == dim && r.size < size)
        .map(|r| r.seconds * (size as f64 / r.size as f64).powi(dim as i32))
        .fold(0.0, f64::max);
    if predicted > a.budget {
        println!(
            "{scene} {dim}D {size:>4} {label:<28} skipped (a smaller size predicts over {} s per solve)",
            a.budget
        );
        return Ok(None);
    }
    let s = run(graph)?;
    let row = Row {
        scene,
        dim,
        size,
        solver: label.to_string(),
        iterations: s.mean(|r| r.iterations),
        outer: s.mean(|r| r.outer_iterations),
        seconds: s.mean(|r| r.solve_ms) / 1e3,
        residual: s.max(|r| r.residual),
        unconverged: s.solves.iter().filter(|r| !r.converged).count(),
        solves: s.solves.len(),
    };
    println!(
        "{scene} {dim}D {size:>4} {:<28} {:>8.1} it {:>6.2} outer {:>9.4} s/solve  max res {:.1e}  not converged {}/{}",
        row.solver, row.iterations, row.outer, row.seconds, row.residual, row.unconverged, row.solves
    );
    Ok(Some(row))
}

fn print_tables(rows: &[&Row]) {
    let mut solvers: Vec<&str> = Vec::new();
    for r in rows {
        if !solvers.contains(&r.solver.as_str()) {
            solvers.push(&r.solver);
        }
    }
    for (title, value) in [
        ("average iterations per pressure solve", 0),
        ("average outer iterations", 2),
        ("average seconds per pressure solve", 1),
    ] {
        for dim in [2, 3] {
            let sizes: Vec<usize> = {
                let mut s: Vec<usize> = rows
                    .iter()
                    .filter(|r| r.dim == dim)
                    .map(|r| r.size)
                    .collect();
                s.sort_unstable();
                s.dedup();
                s
            };
            if sizes.is_empty() || (value == 2 && rows.iter().all(|r| r.outer == 0.0)) {
                continue;
            }
            println!("\n{dim}D — {title}");
            print!("{:>6}", "size");
            for s in &solvers {
                print!(" {:>20}", s.rsplit('/').next().unwrap_or(s));
            }
            println!();
            for size in sizes {
                print!("{size:>6}");
                for s in &solvers {
                    match rows
                        .iter()
                        .find(|r| r.dim == dim && r.size == size && r.solver == *s)
                    {
                        Some(r) if value == 0 => print!(" {:>20.1}", r.iterations),
                        Some(r) if value == 2 => print!(" {:>20.2}", r.outer),
                        Some(r) => print!(" {:>20.4}", r.seconds),
                        None => print!(" {:>20}", "-"),
                    }
                }
                println!();
            }
        }
    }
}
