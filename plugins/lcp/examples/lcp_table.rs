//! Prints iterations, outer iterations and time per solve of every LCP algorithm on
//! `Scene::LcpContainer` (Lai et al. Tables 1/3/5 style).
//!
//! `cargo run --release -p flipgraph-lcp --example lcp_table -- [2d sizes] [--3d sizes]`
//! (default: 2D 32 64 128 256, 3D 32 64), or `-- --table12 [sizes]` for the FAS-MG variants
//! of Lai et al. Table 12 on the 3D container. Each solve starts cold (p = 0, fresh instance, setup
//! included); the time is the best of `REPEATS` runs.

use flip_sdk::{PressureSolver, SolveStats};
use flip_solvers::fixtures::{self, Scene};
use flip_solvers::lcp::{
    lcp_residual, Boundary, CoarseMatrix, FasConfig, FasMgSolver, FmgConfig, FmgSolver,
    InnerSolver, Interpolation, PenaltyConfig, PenaltyMethod, PgsConfig, PgsSolver, PolicyConfig,
    PolicyIteration,
};
use std::time::Instant;

/// Runs per measurement (best time kept).
const REPEATS: usize = 3;
/// PGS sweeps allowed (it needs ~n² sweeps; larger grids are reported as not converged).
const PGS_SWEEPS: usize = 20_000;

fn solver(name: &str) -> Box<dyn PressureSolver> {
    let pi = |inner| PolicyConfig {
        inner,
        ..PolicyConfig::default()
    };
    let pe = |inner| PenaltyConfig {
        outer: pi(inner),
        ..PenaltyConfig::default()
    };
    match name {
        "pgs" => Box::new(PgsSolver::new(PgsConfig {
            max_iterations: PGS_SWEEPS,
            ..PgsConfig::default()
        })),
        "pi-pcg" => Box::new(PolicyIteration::new(pi(InnerSolver::Ic0Pcg))),
        "pi-mg" => Box::new(PolicyIteration::new(pi(InnerSolver::Multigrid))),
        "pe-pcg" => Box::new(PenaltyMethod::new(pe(InnerSolver::Ic0Pcg))),
        "pe-mg" => Box::new(PenaltyMethod::new(pe(InnerSolver::Multigrid))),
        "fas-mg" => Box::new(FasMgSolver::new(FasConfig::default())),
        _ => Box::new(FmgSolver::new(FmgConfig::default())),
    }
}

const NAMES: [&str; 7] = ["fas-mg", "pi-pcg", "pi-mg", "pe-pcg", "pe-mg", "fmg", "pgs"];

fn measure(name: &str, dims: [usize; 3]) -> (SolveStats, f64) {
    let problem = fixtures::build(Scene::LcpContainer, dims, 3);
    let mut best = f64::INFINITY;
    let mut stats = SolveStats::default();
    let repeats = if name == "pgs" && dims[0] >= 128 {
        1
    } else {
        REPEATS
    };
    for _ in 0..repeats {
        let mut p = problem.clone();
        let mut s = solver(name);
        let t = Instant::now();
        stats = s.solve(&mut p.view()).expect("solve");
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        let x = p.pressure.clone();
        let r = lcp_residual(&p.view(), &x);
        assert!(
            (r - stats.residual).abs() <= 1e-12 * r.max(1.0),
            "{name}: reported residual"
        );
    }
    (stats, best)
}

fn table(sizes: &[usize], three_d: bool) {
    let dim = if three_d { "3D" } else { "2D" };
    println!("\n{dim} LcpContainer: iterations (outer) / ms per solve; * = not converged\n");
    print!("| n |");
    NAMES.iter().for_each(|n| print!(" {n} |"));
    println!();
    print!("|---|");
    NAMES.iter().for_each(|_| print!("---|"));
    println!();
    for &n in sizes {
        let dims = if three_d { [n, n, n] } else { [n, n, 1] };
        print!("| {n} |");
        for name in NAMES {
            let (st, ms) = measure(name, dims);
            let mark = if st.converged == 1 { "" } else { "*" };
            let outer = if st.outer_iterations > 0 {
                format!(" ({})", st.outer_iterations)
            } else {
                String::new()
            };
            print!(" {}{mark}{outer} / {ms:.1} |", st.iterations);
        }
        println!();
    }
}

/// Lai et al. Table 12: FAS-MG with each §4.3 modification replaced by the standard option.
fn table12(sizes: &[usize]) {
    let variants = [
        (
            "ours",
            Interpolation::Barycentric,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            "trilinear",
            Interpolation::Trilinear,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            "pwc",
            Interpolation::PiecewiseConstant,
            Boundary::OneSided,
            CoarseMatrix::Galerkin,
        ),
        (
            "simple bdry",
            Interpolation::Barycentric,
            Boundary::Simple,
            CoarseMatrix::Galerkin,
        ),
        (
            "direct",
            Interpolation::Barycentric,
            Boundary::OneSided,
            CoarseMatrix::DirectDiscretisation,
        ),
    ];
    println!("\n3D LcpContainer, FAS-MG variants: V-cycles / ms; * = not converged in 100\n");
    print!("| n |");
    variants.iter().for_each(|v| print!(" {} |", v.0));
    println!();
    print!("|---|");
    variants.iter().for_each(|_| print!("---|"));
    println!();
    for &n in sizes {
        print!("| {n} |");
        for (_, interpolation, boundary, coarse) in variants {
            let mut p = fixtures::build(Scene::LcpContainer, [n, n, n], 3);
            let mut s = FasMgSolver::new(FasConfig {
                interpolation,
                boundary,
                coarse,
                ..FasConfig::default()
            });
            let t = Instant::now();
            let st = s.solve(&mut p.view()).expect("solve");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let mark = if st.converged == 1 { "" } else { "*" };
            print!(" {}{mark} / {ms:.0} |", st.iterations);
        }
        println!();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--table12") {
        let sizes: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
        table12(if sizes.is_empty() {
            &[16, 32, 64]
        } else {
            &sizes
        });
        return;
    }
    let split = args.iter().position(|a| a == "--3d");
    let parse = |s: &[String]| {
        s.iter()
            .filter_map(|a| a.parse().ok())
            .collect::<Vec<usize>>()
    };
    let (two, three) = match split {
        Some(i) => (parse(&args[..i]), parse(&args[i + 1..])),
        None if args.is_empty() => (vec![32, 64, 128, 256], vec![32, 64]),
        None => (parse(&args), Vec::new()),
    };
    println!("threads: {}", rayon_threads());
    if !two.is_empty() {
        table(&two, false);
    }
    if !three.is_empty() {
        table(&three, true);
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
