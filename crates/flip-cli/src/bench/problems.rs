//! `flipgraph bench problems`: pressure solves of reference problems through the loaded
//! plugins from a zero initial guess: cold (a fresh instance, set-up included) and warm (the
//! same instance again, set-up reused), medians of `--repeats`, both including the host's
//! result check, which is also timed on its own. The problems are the solver
//! crate's fixtures (`flip_solvers::fixtures`, and the variational scenes) at each size, or the
//! `.fgprob` dumps of a folder (`--dumps`, as the pressure node's `dump_problems` writes them),
//! optionally solved in file order by one instance per solver (`--sequence`, warm, as in a run).
//! Dumps may be coupled (rigid bodies): solved through the host's coupled path, as the pressure
//! node solves them, and a solver without the kind is refused by name in its rows. The `check
//! residual` is the host's residual of the returned pressure on the problem's own operator.
//!
//! Lai et al.'s cold-solve tables: `--scene lcp-container` (Tables 1, 3, 5); the FAS-MG
//! variants of Table 12 by parameters, e.g. `--solver lcp/fas-mg:interpolation=1`.

use super::bench_dir;
use super::table::Table;
use crate::session::Session;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use flip_host::{PluginError, ProblemRef, SolverInstance};
use flip_sdk::{check, CoupledProblem, DumpedProblem, OwnedBodyTerms, OwnedProblem, SolveStats};
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

/// The kinds of problem a table holds (each row's solver must accept its row's kind).
#[derive(Clone, Copy, Default)]
struct Kinds {
    lcp: bool,
    structured: bool,
    coupled: bool,
}

impl Kinds {
    fn of<'a>(problems: impl IntoIterator<Item = &'a DumpedProblem>) -> Self {
        problems.into_iter().fold(Self::default(), |k, p| Self {
            lcp: k.lcp || p.grid().lcp,
            structured: k.structured || matches!(p, DumpedProblem::Structured(_)),
            coupled: k.coupled || matches!(p, DumpedProblem::Coupled(..)),
        })
    }
}

/// The solvers asked for, or every grid algorithm for linear (or LCP) problems that accepts a
/// kind of `kinds` (the other kinds' problems it refuses by name, in a row each).
fn solvers(session: &Session, a: &ProblemsArgs, kinds: Kinds) -> Result<Vec<SolverSpec>> {
    if !a.solvers.is_empty() {
        return a.solvers.iter().map(|s| SolverSpec::parse(s)).collect();
    }
    let all = session.plugins.algorithms();
    let fits = |i: &flip_host::AlgorithmInfo| {
        let kind =
            (kinds.structured && i.accepts_structured()) || (kinds.coupled && i.accepts_coupled());
        kind && if kinds.lcp {
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

/// The coupled problem of `grid` and `bodies`, as the pressure node hands it to a plugin.
fn coupled<'a>(grid: &'a mut OwnedProblem, bodies: &'a OwnedBodyTerms) -> CoupledProblem<'a> {
    CoupledProblem {
        grid: grid.view(),
        bodies: bodies.view(),
    }
}

/// What one solve gave.
struct Solved {
    stats: SolveStats,
    /// ms of the solve, the host's check included.
    ms: f64,
    /// ms of the host's one-pass check alone.
    check_ms: f64,
}

/// Solves `problem` in place through the host's path for its kind (a coupled problem as the
/// pressure node solves it with bodies), result check included; then times that check alone.
fn solve(solver: &mut SolverInstance, problem: &mut DumpedProblem) -> Result<Solved> {
    let t = Instant::now();
    let stats = match problem {
        DumpedProblem::Structured(p) => solver.solve(&mut p.view()),
        DumpedProblem::Coupled(g, b) => solver.solve_any(ProblemRef::Coupled(&mut coupled(g, b))),
    }?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    std::hint::black_box(match problem {
        DumpedProblem::Structured(p) => check::structured_raw(&p.view()),
        DumpedProblem::Coupled(g, b) => check::coupled_raw(&coupled(g, b)),
    });
    let check_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(Solved {
        stats,
        ms,
        check_ms,
    })
}

/// The residual of the returned pressure on `problem`'s own operator (with a coupled problem's
/// bodies' terms), as the host defines it (`flip_sdk::check`), whoever solved it.
fn check_residual(problem: &mut DumpedProblem) -> f64 {
    match problem {
        DumpedProblem::Structured(p) => check::structured(&p.view()).max,
        DumpedProblem::Coupled(g, b) => check::coupled(&coupled(g, b)).max,
    }
}

/// The host's refusal of a solver for a problem's kind (`PluginError::UnsupportedKind`), by
/// name; any other error is returned.
fn refusal(e: anyhow::Error) -> Result<String> {
    match e.downcast_ref::<PluginError>() {
        Some(PluginError::UnsupportedKind { .. }) => Ok(e.to_string()),
        _ => Err(e),
    }
}

/// The cells of `problem` that are unknowns.
fn unknowns(problem: &DumpedProblem) -> usize {
    let kinds: &[u8] = &problem.grid().cell_kind;
    kinds.iter().filter(|&&k| k == flip_abi::CELL_FLUID).count()
}

/// A table's problem column: the name, and the kind when not structured.
fn problem_label(name: &str, problem: &DumpedProblem) -> String {
    match problem {
        DumpedProblem::Structured(_) => name.to_string(),
        DumpedProblem::Coupled(..) => format!("{name} (coupled)"),
    }
}

/// One row: `repeats` cold solves of `problem` by `spec`, each followed by a warm one (the same
/// instance, its set-up reused, again from a zero guess); or, when the host refuses `spec` for
/// the problem's kind, a row saying so and the refusal.
fn cold_row(
    session: &Session,
    spec: &SolverSpec,
    name: &str,
    problem: &DumpedProblem,
    repeats: usize,
) -> Result<(Vec<String>, Option<String>)> {
    let (mut times, mut warm, mut checks) = (Vec::new(), Vec::new(), Vec::new());
    let (mut stats, mut residual) = (SolveStats::default(), 0.0);
    let mut head = vec![
        problem_label(name, problem),
        unknowns(problem).to_string(),
        spec.label(),
    ];
    for _ in 0..repeats.max(1) {
        let mut solver = instance(session, spec)?;
        for pass in 0..2 {
            let mut p = problem.clone();
            p.grid_mut().pressure.fill(0.0);
            let solved = match solve(&mut solver, &mut p) {
                Ok(s) => s,
                Err(e) => {
                    let refused =
                        refusal(e).with_context(|| format!("{} on {name}", spec.label()))?;
                    head.extend(["–", "–", "–", "–", "refused", "–", "–", "–"].map(String::from));
                    return Ok((head, Some(refused)));
                }
            };
            if pass == 0 {
                (stats, residual) = (solved.stats, check_residual(&mut p));
                times.push(solved.ms);
                checks.push(solved.check_ms);
            } else {
                warm.push(solved.ms);
            }
        }
    }
    head.extend([
        stats.iterations.to_string(),
        stats.outer_iterations.to_string(),
        format!("{:.2e}", stats.residual),
        format!("{residual:.2e}"),
        (if stats.converged == 1 { "yes" } else { "NO" }).to_string(),
        format!("{:.2}", median(times)),
        format!("{:.2}", median(warm)),
        format!("{:.2}", median(checks)),
    ]);
    Ok((head, None))
}

/// The `.fgprob` files of `dir`, sorted, parsed (either kind).
fn load_dumps(dir: &Path) -> Result<Vec<(String, DumpedProblem)>> {
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
            let p =
                DumpedProblem::parse(&bytes).with_context(|| format!("parsing {}", f.display()))?;
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Ok((name, p))
        })
        .collect()
}

const COLD_COLUMNS: [&str; 11] = [
    "problem",
    "unknowns",
    "solver",
    "iterations",
    "outer",
    "residual",
    "check residual",
    "converged",
    "cold ms",
    "warm ms",
    "check ms",
];

/// Adds the cold rows of every solver on every problem, and a note per distinct refusal.
fn cold_rows(
    t: &mut Table,
    session: &Session,
    a: &ProblemsArgs,
    specs: &[SolverSpec],
    problems: &[(String, DumpedProblem)],
) -> Result<()> {
    for spec in specs {
        for (name, p) in problems {
            let (row, refused) = cold_row(session, spec, name, p, a.repeats)?;
            t.rows.push(row);
            note_refusal(t, refused);
        }
    }
    Ok(())
}

/// Notes `refused` (the host's message) under the table, once.
fn note_refusal(t: &mut Table, refused: Option<String>) {
    if let Some(line) = refused.map(|r| format!("refused: {r}")) {
        if !t.notes.contains(&line) {
            t.note(line);
        }
    }
}

/// Runs the benchmark.
pub fn run(session: &Session, a: &ProblemsArgs) -> Result<()> {
    let threads = rayon::current_num_threads();
    let table = match &a.dumps {
        Some(dir) if a.sequence => sequence(session, a, &load_dumps(dir)?, dir)?,
        Some(dir) => {
            let dumps = load_dumps(dir)?;
            let mut t = Table::new(
                "problems_dumps",
                format!(
                    "bench problems: cold solves of the dumps in {}, median of {}, {threads} threads",
                    dir.display(),
                    a.repeats
                ),
                &COLD_COLUMNS,
            );
            let specs = solvers(session, a, Kinds::of(dumps.iter().map(|(_, p)| p)))?;
            cold_rows(&mut t, session, a, &specs, &dumps)?;
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
            let kinds = Kinds {
                lcp: a.scene == "lcp-container",
                structured: true,
                coupled: false,
            };
            let specs = solvers(session, a, kinds)?;
            for d in dims {
                let problem = DumpedProblem::Structured(build(&a.scene, a.boundary, d)?);
                let name = match d[2] {
                    1 => format!("{}²", d[0]),
                    _ => format!("{}³", d[0]),
                };
                cold_rows(&mut t, session, a, &specs, &[(name, problem)])?;
            }
            t
        }
    };
    table.emit(&bench_dir(&a.out))?;
    Ok(())
}

/// One instance per solver through `dumps` in order, each from its stored initial guess; the
/// dumps of a kind the host refuses the solver for are counted, and the refusal noted.
fn sequence(
    session: &Session,
    a: &ProblemsArgs,
    dumps: &[(String, DumpedProblem)],
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
            "refused",
            "max check residual",
            "mean ms (check incl.)",
            "mean check ms",
        ],
    );
    for spec in solvers(session, a, Kinds::of(dumps.iter().map(|(_, p)| p)))? {
        let mut solver = instance(session, &spec)?;
        let (mut its, mut max_its, mut failed, mut ms, mut check) = (0u64, 0u32, 0, 0.0, 0.0);
        let (mut solved, mut refused, mut residual) = (0u32, 0u32, 0.0f64);
        for (name, p) in dumps {
            let mut p = p.clone();
            let s = match solve(&mut solver, &mut p) {
                Ok(s) => s,
                Err(e) => {
                    let why = refusal(e).with_context(|| format!("{} on {name}", spec.label()))?;
                    note_refusal(&mut t, Some(why));
                    refused += 1;
                    continue;
                }
            };
            solved += 1;
            its += u64::from(s.stats.iterations);
            max_its = max_its.max(s.stats.iterations);
            failed += usize::from(s.stats.converged == 0);
            (ms, check) = (ms + s.ms, check + s.check_ms);
            residual = residual.max(check_residual(&mut p));
        }
        // over the solved dumps ("–" when the solver was refused every one)
        let solved_only = |cell: String| if solved == 0 { "–".into() } else { cell };
        let n = f64::from(solved);
        t.row([
            spec.label(),
            solved_only(format!("{:.1}", its as f64 / n)),
            solved_only(max_its.to_string()),
            failed.to_string(),
            refused.to_string(),
            solved_only(format!("{residual:.2e}")),
            solved_only(format!("{:.2}", ms / n)),
            solved_only(format!("{:.2}", check / n)),
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
