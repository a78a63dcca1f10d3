//! `flipgraph bench problems`: pressure solves of reference problems through the loaded
//! plugins from a zero initial guess: cold (a fresh instance, set-up included) and warm (the
//! same instance again, set-up reused), medians of `--repeats`, both including the host's
//! result check, which is also timed on its own. The problems are the solver
//! crate's fixtures (`flip_solvers::fixtures`, and the variational scenes) at each size, or the
//! `.fgprob` dumps of a folder (`--dumps`, as the pressure node's `dump_problems` writes them),
//! optionally solved in file order by one instance per solver (`--sequence`, warm, as in a run).
//!
//! Lai et al.'s cold-solve tables: `--scene lcp-container` (Tables 1, 3, 5); the FAS-MG
//! variants of Table 12 by parameters, e.g. `--solver lcp/fas-mg:interpolation=1`.

use super::bench_dir;
use super::table::Table;
use crate::session::Session;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use flip_host::SolverInstance;
use flip_sdk::{OwnedProblem, SolveStats};
use flip_solvers::fixtures::{self, Scene};
use flip_solvers::fixtures_variational::{build_variational, Boundary, VarScene};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `bench problems`.
#[derive(Args)]
pub struct ProblemsArgs {
    /// Scene: dam-break, free-surface-box, air-bubbles, closed-box, two-puddles,
    /// lcp-container, or (variational boundaries) container, slanted-wall, thin-plate,
    /// straddling-plate.
    #[arg(long, default_value = "dam-break")]
    pub scene: String,
    /// The boundary of the variational scenes: their fractional faces, or the voxelized twin
    /// (whole cells, unit stencil) for iteration-count comparisons.
    #[arg(long, value_enum, default_value_t = SceneBoundary::Variational)]
    pub boundary: SceneBoundary,
    /// 2D sizes (cells per side), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,128,256")]
    pub sizes_2d: Vec<usize>,
    /// 3D sizes (cells per side), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32,64")]
    pub sizes_3d: Vec<usize>,
    /// A solver, `plugin/algorithm` with optional parameters `:name=value,name=value`
    /// (repeatable). Default: every algorithm for the problem (linear or LCP, grid).
    #[arg(long = "solver")]
    pub solvers: Vec<String>,
    /// Timed cold solves per problem and solver (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// Solve the `.fgprob` dumps of this folder instead of a scene.
    #[arg(long)]
    pub dumps: Option<PathBuf>,
    /// With `--dumps`: one instance per solver through all dumps in file order, each starting
    /// from the dump's initial guess (one row per solver).
    #[arg(long, requires = "dumps")]
    pub sequence: bool,
    /// Folder for the table's CSV and Markdown (default out/bench).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// How a variational scene's boundary is discretised.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SceneBoundary {
    /// Face fractions and ghost-fluid weights.
    Variational,
    /// Whole cells, unit stencil.
    Voxelized,
}

/// A solver and the parameters it is created with.
struct SolverSpec {
    name: String,
    params: Vec<(String, f64)>,
}

impl SolverSpec {
    /// `plugin/algorithm[:name=value,...]`.
    fn parse(text: &str) -> Result<Self> {
        let (name, params) = text.split_once(':').unwrap_or((text, ""));
        let params = params
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p
                    .split_once('=')
                    .ok_or_else(|| anyhow!("solver parameter `{p}`: expected name=value"))?;
                let v: f64 = v
                    .parse()
                    .map_err(|_| anyhow!("solver parameter `{p}`: not a number"))?;
                Ok((k.to_string(), v))
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            name: name.into(),
            params,
        })
    }

    fn label(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        match params.is_empty() {
            true => self.name.clone(),
            false => format!("{}:{}", self.name, params.join(",")),
        }
    }
}

/// The problem of `scene` on `dims` cells.
fn build(scene: &str, boundary: SceneBoundary, dims: [usize; 3]) -> Result<OwnedProblem> {
    let fixture = match scene {
        "dam-break" => Some(Scene::DamBreak),
        "free-surface-box" => Some(Scene::FreeSurfaceBox),
        "air-bubbles" => Some(Scene::AirBubbles),
        "closed-box" => Some(Scene::ClosedBox),
        "two-puddles" => Some(Scene::TwoPuddles),
        "lcp-container" => Some(Scene::LcpContainer),
        _ => None,
    };
    if let Some(s) = fixture {
        return Ok(fixtures::build(s, dims, 1));
    }
    let variational = match scene {
        "container" => VarScene::Container,
        "slanted-wall" => VarScene::SlantedWall,
        "thin-plate" => VarScene::ThinPlate,
        "straddling-plate" => VarScene::StraddlingPlate,
        other => bail!("unknown scene `{other}` (see `flipgraph bench problems --help`)"),
    };
    let boundary = match boundary {
        SceneBoundary::Variational => Boundary::Variational,
        SceneBoundary::Voxelized => Boundary::Voxelized,
    };
    Ok(build_variational(variational, dims, boundary, 1))
}

/// The solvers asked for, or every grid algorithm for linear (or LCP) problems.
fn solvers(session: &Session, a: &ProblemsArgs, lcp: bool) -> Result<Vec<SolverSpec>> {
    if !a.solvers.is_empty() {
        return a.solvers.iter().map(|s| SolverSpec::parse(s)).collect();
    }
    let all = session.plugins.algorithms();
    let fits = |i: &flip_host::AlgorithmInfo| {
        i.accepts_structured()
            && if lcp {
                i.supports_lcp()
            } else {
                i.supports_linear()
            }
    };
    Ok(all
        .into_iter()
        .filter(|(_, i)| fits(i))
        .map(|(name, _)| SolverSpec {
            name,
            params: Vec::new(),
        })
        .collect())
}

/// Median of `v` (0 when empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// A fresh instance of `spec`.
fn instance(session: &Session, spec: &SolverSpec) -> Result<SolverInstance> {
    let (plugin, info) = session.plugins.find(&spec.name)?;
    Ok(SolverInstance::create(plugin, &info.name, &spec.params)?)
}

/// Solves `problem` in place; returns the stats, ms of the solve (the host's check included)
/// and ms of the check alone.
fn solve(
    solver: &mut SolverInstance,
    problem: &mut OwnedProblem,
) -> Result<(SolveStats, f64, f64)> {
    let t = Instant::now();
    let stats = solver.solve(&mut problem.view())?;
    let solve_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    std::hint::black_box(flip_sdk::check::structured_raw(&problem.view()));
    Ok((stats, solve_ms, t.elapsed().as_secs_f64() * 1e3))
}

/// The cells of `problem` that are unknowns.
fn unknowns(problem: &OwnedProblem) -> usize {
    let kinds: &[u8] = &problem.cell_kind;
    kinds.iter().filter(|&&k| k == flip_abi::CELL_FLUID).count()
}

/// One row: `repeats` cold solves of `problem` by `spec`, each followed by a warm one (the same
/// instance, its set-up reused, again from a zero guess).
fn cold_row(
    session: &Session,
    spec: &SolverSpec,
    name: &str,
    problem: &OwnedProblem,
    repeats: usize,
) -> Result<Vec<String>> {
    let (mut times, mut warm, mut checks) = (Vec::new(), Vec::new(), Vec::new());
    let mut stats = SolveStats::default();
    for _ in 0..repeats.max(1) {
        let mut solver = instance(session, spec)?;
        for pass in 0..2 {
            let mut p = problem.clone();
            p.pressure.fill(0.0);
            let (s, ms, check) = solve(&mut solver, &mut p)
                .with_context(|| format!("{} on {name}", spec.label()))?;
            if pass == 0 {
                stats = s;
                times.push(ms);
                checks.push(check);
            } else {
                warm.push(ms);
            }
        }
    }
    Ok(vec![
        name.to_string(),
        unknowns(problem).to_string(),
        spec.label(),
        stats.iterations.to_string(),
        stats.outer_iterations.to_string(),
        format!("{:.2e}", stats.residual),
        (if stats.converged == 1 { "yes" } else { "NO" }).to_string(),
        format!("{:.2}", median(times)),
        format!("{:.2}", median(warm)),
        format!("{:.2}", median(checks)),
    ])
}

/// The `.fgprob` files of `dir`, sorted, parsed.
fn load_dumps(dir: &Path) -> Result<Vec<(String, OwnedProblem)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fgprob"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no .fgprob dumps in {}", dir.display());
    }
    files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).with_context(|| format!("reading {}", f.display()))?;
            let p = OwnedProblem::parse_dump(&bytes)
                .with_context(|| format!("parsing {}", f.display()))?;
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Ok((name, p))
        })
        .collect()
}

const COLD_COLUMNS: [&str; 10] = [
    "problem",
    "unknowns",
    "solver",
    "iterations",
    "outer",
    "residual",
    "converged",
    "cold ms",
    "warm ms",
    "check ms",
];

/// Runs the benchmark.
pub fn run(session: &Session, a: &ProblemsArgs) -> Result<()> {
    let threads = rayon::current_num_threads();
    let table = match &a.dumps {
        Some(dir) if a.sequence => sequence(session, a, &load_dumps(dir)?, dir)?,
        Some(dir) => {
            let dumps = load_dumps(dir)?;
            let lcp = dumps.iter().any(|(_, p)| p.lcp);
            let mut t = Table::new(
                "problems_dumps",
                format!(
                    "bench problems: cold solves of the dumps in {}, median of {}, {threads} threads",
                    dir.display(),
                    a.repeats
                ),
                &COLD_COLUMNS,
            );
            for spec in solvers(session, a, lcp)? {
                for (name, p) in &dumps {
                    t.rows.push(cold_row(session, &spec, name, p, a.repeats)?);
                }
            }
            t
        }
        None => {
            let mut t = Table::new(
                match (a.boundary, a.scene.as_str()) {
                    (SceneBoundary::Voxelized, s) => format!("problems_{s}_voxelized"),
                    (_, s) => format!("problems_{s}"),
                },
                format!(
                    "bench problems: cold solves of the {} scene, median of {}, {threads} threads",
                    a.scene, a.repeats
                ),
                &COLD_COLUMNS,
            );
            let dims = a.sizes_2d.iter().map(|&n| [n, n, 1]);
            let dims: Vec<[usize; 3]> = dims.chain(a.sizes_3d.iter().map(|&n| [n, n, n])).collect();
            let specs = solvers(session, a, a.scene == "lcp-container")?;
            for d in dims {
                let problem = build(&a.scene, a.boundary, d)?;
                let name = match d[2] {
                    1 => format!("{}²", d[0]),
                    _ => format!("{}³", d[0]),
                };
                for spec in &specs {
                    t.rows
                        .push(cold_row(session, spec, &name, &problem, a.repeats)?);
                }
            }
            t
        }
    };
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}

/// One instance per solver through `dumps` in order, each from its stored initial guess.
fn sequence(
    session: &Session,
    a: &ProblemsArgs,
    dumps: &[(String, OwnedProblem)],
    dir: &Path,
) -> Result<Table> {
    let mut t = Table::new(
        "problems_sequence",
        format!(
            "bench problems: {} dumps of {} in order, one instance per solver, {} threads",
            dumps.len(),
            dir.display(),
            rayon::current_num_threads()
        ),
        &[
            "solver",
            "mean iterations",
            "max iterations",
            "not converged",
            "mean ms (check incl.)",
            "mean check ms",
        ],
    );
    let lcp = dumps.iter().any(|(_, p)| p.lcp);
    for spec in solvers(session, a, lcp)? {
        let mut solver = instance(session, &spec)?;
        let (mut its, mut max_its, mut failed, mut ms, mut check) = (0u64, 0u32, 0, 0.0, 0.0);
        for (name, p) in dumps {
            let mut p = p.clone();
            let (s, m, c) = solve(&mut solver, &mut p)
                .with_context(|| format!("{} on {name}", spec.label()))?;
            its += u64::from(s.iterations);
            max_its = max_its.max(s.iterations);
            failed += usize::from(s.converged == 0);
            (ms, check) = (ms + m, check + c);
        }
        let n = dumps.len() as f64;
        t.row([
            spec.label(),
            format!("{:.1}", its as f64 / n),
            max_its.to_string(),
            failed.to_string(),
            format!("{:.2}", ms / n),
            format!("{:.2}", check / n),
        ]);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_specs_carry_parameters() {
        let s = SolverSpec::parse("lcp/fas-mg:interpolation=1,n_sweep=4").unwrap();
        assert_eq!(s.name, "lcp/fas-mg");
        assert_eq!(
            s.params,
            [
                ("interpolation".to_string(), 1.0),
                ("n_sweep".to_string(), 4.0)
            ]
        );
        assert_eq!(s.label(), "lcp/fas-mg:interpolation=1,n_sweep=4");
        assert!(SolverSpec::parse("pcg/mic0-pcg:tolerance").is_err());
    }
}
