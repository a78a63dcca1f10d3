//! `validate`, `plugins`, `nodes`.

use crate::cmd_run::{build_with, default_out};
use crate::compare::default_report_dir;
use crate::estimate::check_fits;
use crate::session::{format_errors, Session};
use anyhow::{anyhow, Result};
use flip_abi::sanitize;
use flip_graph::overrides::apply_variant;
use flip_graph::{GraphDoc, ParamKind, ParamSpec, RunPaths, Simulation};
use flip_host::StateSupport;
use flip_nodes::nodes::plugin_node::PluginSource;
use flip_nodes::roles::{KindFacts, NodeRole};
use std::path::{Path, PathBuf};

/// Arguments of `validate`.
#[derive(clap::Args)]
pub struct ValidateArgs {
    /// Graph file (.ron).
    pub graph: PathBuf,
    /// Output folder the run would write to (default: out/<graph name>); checked, not created.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a parameter: node.param=value or settings.field=value (repeatable).
    #[arg(long = "set", value_name = "NODE.PARAM=VALUE")]
    pub sets: Vec<flip_graph::Override>,
    /// Let export folders lie outside the output folder (absolute paths, `..`).
    #[arg(long)]
    pub allow_outside_out: bool,
    /// Validate even if the memory estimate exceeds what this machine has.
    #[arg(long)]
    pub ignore_memory_check: bool,
}

/// `flipgraph validate GRAPH`: checks the memory estimate, compiles the graph and creates its
/// nodes (reading masks, checking output folders and solver capabilities) without running a
/// step, so it refuses what `run` would refuse; then the same for each saved variant applied,
/// as `compare` would run it.
pub fn validate(session: &Session, args: &ValidateArgs) -> Result<()> {
    let graph = args.graph.as_path();
    let doc = session.graph(graph, &args.sets)?;
    let ignore = args.ignore_memory_check;
    check_fits(&doc, &graph.display(), &session.registry, ignore)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(graph));
    let sim = build_with(session, &doc, graph, &out, args.allow_outside_out)?;
    validate_variants(session, &doc, graph, args)?;
    let plan = sim.plan();
    println!(
        "{}: ok — {} nodes in {} parallel levels, {} edges, grid {:?}, {} saved variants",
        sanitize(&graph.display().to_string()),
        plan.nodes.len(),
        plan.levels.len(),
        doc.edges.len(),
        doc.settings.grid,
        doc.variants.len()
    );
    let left_out = flip_graph::unwired::unwired(&doc);
    if !left_out.is_empty() {
        println!(
            "left out of the run (no wires): {}",
            sanitize(&left_out.join(", "))
        );
    }
    Ok(())
}

/// Validates each saved variant of `doc` as if applied ([`apply_variant`]): its memory
/// estimate, then its graph and nodes, writing where `compare` would put it; every problem
/// names the variant.
fn validate_variants(
    session: &Session,
    doc: &GraphDoc,
    graph: &Path,
    args: &ValidateArgs,
) -> Result<()> {
    let reports = default_report_dir(graph);
    let mut errors = Vec::new();
    for v in &doc.variants {
        let (applied, bad) = apply_variant(doc, v, &session.registry);
        errors.extend(bad);
        let origin = format!("{}: variant `{}`", graph.display(), v.name);
        check_fits(
            &applied,
            &origin,
            &session.registry,
            args.ignore_memory_check,
        )?;
        let paths = RunPaths {
            out_dir: &reports.join(&v.name),
            base_dir: graph.parent().unwrap_or(Path::new(".")),
            allow_outside_out: args.allow_outside_out,
        };
        if let Err(es) = Simulation::with_paths(&applied, &session.registry, paths) {
            errors.extend(es.into_iter().map(|e| e.in_variant(&v.name)));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(anyhow!(format_errors(&errors, graph)))
    }
}

fn describe(p: &ParamSpec) -> String {
    let kind = match &p.kind {
        ParamKind::Float { min, max } => format!("float [{min}, {max}]"),
        ParamKind::Int { min, max } => format!("int [{min}, {max}]"),
        ParamKind::Bool => "bool".into(),
        ParamKind::Vec3 => "vec3".into(),
        ParamKind::Choice(c) => format!("one of {}", c.join("|")),
        ParamKind::Path => "path".into(),
        ParamKind::Text => "text".into(),
    };
    format!(
        "{:<16} {:<34} default {:<18} {}",
        p.name,
        kind,
        p.default.display(),
        p.help
    )
}

/// `flipgraph plugins`.
pub fn plugins(session: &Session) -> Result<()> {
    let dirs: Vec<String> = session
        .dirs
        .iter()
        .map(|d| flip_abi::text::path(d))
        .collect();
    println!("searched: {}", dirs.join(", "));
    for p in &session.plugins.plugins {
        println!(
            "\n{} — {} {} ({}{}, sha256 {}, {})",
            p.id,
            p.name,
            p.version,
            if p.bundled { "bundled: " } else { "" },
            flip_abi::text::path(&p.path),
            &p.sha256[..p.sha256.len().min(16)],
            match p.state_support() {
                StateSupport::Saves => "saves state",
                StateSupport::KeepsNone => "keeps no state",
                StateSupport::NotSaved => "no saved state: resumed runs re-create its solvers",
            }
        );
        for a in &p.algorithms {
            let problem = match (a.supports_linear(), a.supports_lcp()) {
                (true, true) => "linear+LCP",
                (false, true) => "LCP",
                _ => "linear",
            };
            let kinds = [
                (a.accepts_structured(), "grid"),
                (a.accepts_csr(), "CSR"),
                (a.accepts_tallcell(), "tall-cell"),
            ]
            .iter()
            .filter(|k| k.0)
            .map(|k| k.1)
            .collect::<Vec<_>>()
            .join("+");
            let mpi = if a.supports_distributed() {
                ", MPI"
            } else {
                ""
            };
            let state = if a.saves_state() { ", saves state" } else { "" };
            println!(
                "  {}/{:<14} [{problem}, {kinds}{mpi}{state}] {}",
                p.id, a.name, a.label
            );
            for q in &a.params {
                println!(
                    "      {:<20} default {:<8} [{}, {}] {}",
                    q.name, q.default, q.min, q.max, q.help
                );
            }
        }
    }
    for p in &session.plugins.nodes {
        println!(
            "\n{} — {} {} (node plugin, {}{}, sha256 {})",
            p.id,
            p.name,
            p.version,
            if p.bundled { "bundled: " } else { "" },
            flip_abi::text::path(&p.path),
            &p.sha256[..p.sha256.len().min(16)],
        );
        for k in &p.kinds {
            println!("  node {:<24} [{}] {}", k.qualified(), k.category, k.label);
        }
    }
    for r in &session.plugins.refused {
        println!("\nrefused: {r}");
    }
    for w in &session.plugins.warnings {
        println!("\nwarning: {w}");
    }
    if session.plugins.plugins.is_empty() {
        return Err(anyhow!(
            "no solver plugins found; build them with `cargo build --release` or pass --plugin-dir"
        ));
    }
    Ok(())
}

/// `flipgraph nodes`.
pub fn nodes(session: &Session) -> Result<()> {
    for k in session.registry.kinds() {
        let s = &k.spec;
        let clean = |t: &str| flip_abi::sanitize(t).into_owned();
        println!(
            "\n{} — {} [{}]\n  {}",
            clean(&s.kind),
            clean(&s.label),
            clean(&s.category),
            clean(&s.help)
        );
        for i in &s.inputs {
            let req = if i.required { "" } else { " (optional)" };
            println!("  in  {:<14} {:<12} {}{req}", i.name, i.kind.name(), i.help);
        }
        for o in &s.outputs {
            println!("  out {:<14} {:<12} {}", o.name, o.kind.name(), o.help);
        }
        for p in &s.params {
            println!("  param {}", flip_abi::sanitize(&describe(p)));
        }
        if s.role() == NodeRole::Pressure {
            println!("  (+ the chosen algorithm's parameters: see `flipgraph plugins`)");
        }
        if let Some(src) = s.get::<PluginSource>() {
            println!(
                "  from node plugin `{}` {} in {} (sha256 {})",
                src.plugin,
                clean(&src.version),
                flip_abi::text::path(&src.library),
                src.sha256
            );
            let about = flip_host::bundle::resources(&src.library).and_then(|r| r.description);
            if let Some(about) = about {
                println!("  bundle: {about}");
            }
        }
    }
    Ok(())
}
