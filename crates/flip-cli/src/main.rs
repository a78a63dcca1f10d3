//! `flipgraph`: run, validate, compare and benchmark simulation graphs headless.

mod bake;
mod bench;
mod cmd_estimate;
mod cmd_info;
mod cmd_run;
#[cfg(feature = "mpi")]
mod cmd_run_mpi;
mod cmd_verify;
mod compare;
mod estimate;
mod exit;
mod features;
mod limits;
mod manifest;
#[cfg(feature = "mpi")]
mod mpi_checkpoints;
mod progress;
mod render;
mod session;
mod summary;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Node-graph PIC/FLIP liquid simulation, headless.
#[derive(Parser)]
#[command(name = "flipgraph", version, about)]
struct Cli {
    /// Extra folder to load solver plugins from (repeatable; searched after the bundled
    /// plugins next to the executable, before $FLIPGRAPH_PLUGIN_PATH).
    #[arg(long = "plugin-dir", global = true)]
    plugin_dirs: Vec<PathBuf>,
    /// Let a plugin from --plugin-dir or $FLIPGRAPH_PLUGIN_PATH replace a bundled plugin of
    /// the same id or file name (otherwise it is refused, naming both files).
    #[arg(long, global = true)]
    allow_plugin_override: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a graph and write its frames.
    Run(cmd_run::RunArgs),
    /// Check a graph without running it.
    Validate(cmd_info::ValidateArgs),
    /// Check a run's frames against its manifest (run.json): missing, torn or changed files.
    Verify {
        /// Output folder of the run.
        out: PathBuf,
    },
    /// Predict the memory and disk a run of a graph needs.
    Estimate {
        /// Graph file (.ron).
        graph: PathBuf,
        /// Override a parameter: node.param=value or settings.field=value (repeatable).
        #[arg(long = "set", value_name = "NODE.PARAM=VALUE")]
        sets: Vec<flip_graph::Override>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List loaded plugins: solvers with their algorithms and parameters, node plugins with
    /// their node kinds, and the libraries refused.
    Plugins,
    /// List node kinds with their ports and parameters.
    Nodes,
    /// Run variants of a graph side by side and report metrics, tables and plots.
    Compare(compare::CompareArgs),
    /// Draw OBJ/STL meshes (liquid surfaces, imported solids) shaded into a PNG.
    Render(render::RenderArgs),
    /// Benchmarks: linear solvers, LCP solvers, whole steps.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Internal: serve one isolated solver instance on stdin/stdout (`isolation = "process"`).
    #[command(name = "__solver-child", hide = true)]
    SolverChild,
    /// Internal: load and describe one plugin library in this (child) process.
    #[command(name = "__probe-plugin", hide = true)]
    ProbePlugin {
        /// The library.
        file: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    match &cli.command {
        Command::ProbePlugin { file } => {
            std::process::exit(flip_host::probe::child_main(file));
        }
        Command::SolverChild => std::process::exit(flip_host::isolation::child_main()),
        _ => {}
    }
    let done = dispatch(cli);
    // The status below stands even if a plugin call the run gave up on still runs.
    flip_host::host_exits();
    if let Err(e) = done {
        // Line by line: multi-line reports (one validation problem a line) keep their lines,
        // while anything else that could drive the terminal is escaped.
        let text = format!("{e:#}");
        let lines: Vec<_> = text.lines().map(flip_abi::sanitize).collect();
        eprintln!("error: {}", lines.join("\n"));
        std::process::exit(exit::status_of(&e));
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    let session = session::Session::load(&cli.plugin_dirs, cli.allow_plugin_override);
    match cli.command {
        Command::Run(args) => cmd_run::run(&session, &args),
        Command::Validate(args) => cmd_info::validate(&session, &args),
        Command::Verify { out } => cmd_verify::verify(&out),
        Command::Estimate { graph, sets, json } => cmd_estimate::run(&session, &graph, &sets, json),
        Command::Plugins => cmd_info::plugins(&session),
        Command::Nodes => cmd_info::nodes(&session),
        Command::Compare(args) => compare::run(&session, &args),
        Command::Bench(cmd) => bench::run(&session, cmd),
        Command::Render(args) => render::run(&args),
        Command::ProbePlugin { .. } | Command::SolverChild => {
            unreachable!("handled before loading plugins")
        }
    }
}
