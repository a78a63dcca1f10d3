//! `flipgraph`: run, validate, compare and benchmark simulation graphs headless.

mod bench;
mod cmd_info;
mod cmd_run;
mod compare;
mod session;
mod summary;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Node-graph PIC/FLIP liquid simulation, headless.
#[derive(Parser)]
#[command(name = "flipgraph", version, about)]
struct Cli {
    /// Extra folder to load solver plugins from (repeatable; searched before the defaults:
    /// $FLIPGRAPH_PLUGIN_PATH, then the executable's folder).
    #[arg(long = "plugin-dir", global = true)]
    plugin_dirs: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a graph and write its frames.
    Run(cmd_run::RunArgs),
    /// Check a graph without running it.
    Validate {
        /// Graph file (.ron).
        graph: PathBuf,
    },
    /// List loaded solver plugins, their algorithms and parameters.
    Plugins,
    /// List node kinds with their ports and parameters.
    Nodes,
    /// Run variants of a graph side by side and report metrics, tables and plots.
    Compare(compare::CompareArgs),
    /// Benchmarks: linear solvers, LCP solvers, whole steps.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    let session = session::Session::load(&cli.plugin_dirs);
    match cli.command {
        Command::Run(args) => cmd_run::run(&session, &args),
        Command::Validate { graph } => cmd_info::validate(&session, &graph),
        Command::Plugins => cmd_info::plugins(&session),
        Command::Nodes => cmd_info::nodes(&session),
        Command::Compare(args) => compare::run(&session, &args),
        Command::Bench(cmd) => bench::run(&session, cmd),
    }
}
