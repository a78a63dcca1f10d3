//! The graph fuzzer's pieces: a seeded generator, mutations of graph text and documents, and
//! the check every input must pass.

use flip_graph::{
    compile, EdgeDoc, GraphDoc, GraphError, NodeRegistry, ParamValue, RunPaths, Simulation,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Grids up to this many cells also get their nodes created (masks read, folders checked).
const INSTANTIATE_CELLS: usize = 64 * 64 * 64;
/// Graphs up to this many cells also run [`RUN_STEPS`] substeps.
const RUN_CELLS: usize = 32 * 32 * 32;
/// `FLIPGRAPH_FUZZ_STEPS` (default 0).
static RUN_STEPS: std::sync::LazyLock<u32> = std::sync::LazyLock::new(|| {
    std::env::var("FLIPGRAPH_FUZZ_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
});

/// SplitMix64: small, seeded, reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0.0",
    "0.5",
    "1e-9",
    "1e-30",
    "3e38",
    "1e38",
    "1e308",
    "-1e308",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999",
    "NaN",
    "inf",
    "-inf",
    "7",
    "1000000",
];
const TEXTS: &[&str] = &[
    "",
    "../..",
    "/tmp/flipgraph-fuzz-abs",
    "a.b",
    "\\u{1b}[31mred",
    "step_input",
    "pcg/",
    "pcg/cg",
    "lcp/pgs",
    "missing.png",
    "maze.png",
    "\\n",
    "émoji 🌊",
    "none",
    "mask",
];
const TOKENS: &[&str] = &[
    "(", ")", "[", "]", ",", ":", "\"", "{", "}", "Some(", "//", "/*",
];

/// Byte ranges of number literals in `text`.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if starts {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b".eE+-".contains(&b[j])) {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the insides of string literals (no escapes inside, as in our graphs).
fn strings(text: &str) -> Vec<(usize, usize)> {
    let quotes: Vec<usize> = text.match_indices('"').map(|(i, _)| i).collect();
    quotes.chunks_exact(2).map(|q| (q[0] + 1, q[1])).collect()
}

fn splice(text: &str, (a, b): (usize, usize), with: &str) -> String {
    format!("{}{with}{}", &text[..a], &text[b..])
}

/// One mutation of the text.
fn mutate_text(rng: &mut Rng, text: &str) -> String {
    let bytes = text.as_bytes();
    match rng.below(6) {
        0 => match numbers(text) {
            n if n.is_empty() => text.into(),
            n => splice(text, rng.pick(&n), rng.pick(NUMBERS)),
        },
        1 => match strings(text) {
            s if s.is_empty() => text.into(),
            s => splice(text, rng.pick(&s), rng.pick(TEXTS)),
        },
        2 => {
            let a = rng.below(bytes.len().max(1));
            let b = (a + 1 + rng.below(40)).min(bytes.len());
            String::from_utf8_lossy(&[&bytes[..a], &bytes[b..]].concat()).into_owned()
        }
        3 => {
            let lines: Vec<&str> = text.lines().collect();
            let i = rng.below(lines.len().max(1));
            let mut out: Vec<&str> = lines.clone();
            out.insert(i, lines.get(i).copied().unwrap_or(""));
            out.join("\n")
        }
        4 => {
            let a = rng.below(bytes.len() + 1);
            let cut = String::from_utf8_lossy(&bytes[..a]).into_owned();
            let rest = String::from_utf8_lossy(&bytes[a..]).into_owned();
            format!("{cut}{}{rest}", rng.pick(TOKENS))
        }
        _ => {
            let mut b = bytes.to_vec();
            if !b.is_empty() {
                let i = rng.below(b.len());
                b[i] = (rng.next() % 128) as u8;
            }
            String::from_utf8_lossy(&b).into_owned()
        }
    }
}

fn interesting_value(rng: &mut Rng) -> ParamValue {
    match rng.below(4) {
        0 => ParamValue::Number(rng.pick(NUMBERS).parse().unwrap_or(f64::NAN)),
        1 => ParamValue::Text(rng.pick(TEXTS).replace("\\u{1b}", "\u{1b}")),
        2 => ParamValue::Bool(rng.below(2) == 0),
        _ => ParamValue::Vector(
            (0..rng.below(5))
                .map(|_| rng.pick(NUMBERS).parse().unwrap_or(0.0))
                .collect(),
        ),
    }
}

/// One mutation of the document's structure: values, nodes, edges.
fn mutate_doc(rng: &mut Rng, doc: &mut GraphDoc) {
    let n = doc.nodes.len();
    match rng.below(5) {
        0 if n > 0 => {
            let node = &mut doc.nodes[rng.below(n)];
            let names: Vec<String> = node.params.keys().cloned().collect();
            let name = if names.is_empty() || rng.below(4) == 0 {
                ["folder", "mask", "solver", "center", "size", "radius"][rng.below(6)].to_string()
            } else {
                names[rng.below(names.len())].clone()
            };
            node.params.insert(name, interesting_value(rng));
        }
        1 if n > 0 => {
            doc.nodes.remove(rng.below(n));
        }
        2 if !doc.edges.is_empty() => {
            let i = rng.below(doc.edges.len());
            doc.edges.remove(i);
        }
        3 if !doc.edges.is_empty() => {
            let (a, b) = (rng.below(doc.edges.len()), rng.below(doc.edges.len()));
            let e = EdgeDoc::new(doc.edges[a].from.clone(), doc.edges[b].to.clone());
            doc.edges.push(e);
        }
        _ => {
            let s = &mut doc.settings;
            let x: f64 = rng.pick(NUMBERS).parse().unwrap_or(f64::NAN);
            match rng.below(7) {
                0 => s.cell_size = x as f32,
                1 => s.fps = x as f32,
                2 => s.cfl = x as f32,
                3 => s.fixed_dt = x as f32,
                4 => s.frames = x as u32,
                5 => s.max_substeps = x as u32,
                _ => s.grid[rng.below(3)] = x as usize,
            }
        }
    }
}

/// One to three mutations of a graph file's text.
pub fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..1 + rng.below(3) {
        text = match GraphDoc::from_ron(&text, "mutant") {
            Ok(mut doc) if rng.below(2) == 0 => {
                mutate_doc(rng, &mut doc);
                doc.to_ron()
            }
            _ => mutate_text(rng, &text),
        };
    }
    text
}

/// An error that says nowhere, or prints control characters.
fn unplaced(e: &GraphError) -> Option<String> {
    let shown = e.to_string();
    if e.file.is_none() && e.node.is_none() && e.field.is_none() {
        return Some(format!("names no file, node or field: {shown}"));
    }
    shown
        .chars()
        .any(char::is_control)
        .then(|| format!("prints control characters: {shown:?}"))
}

fn check_errors(errors: &[GraphError]) -> Result<(), String> {
    errors.iter().find_map(unplaced).map_or(Ok(()), Err)
}

/// Loads, validates and (for small grids) creates the nodes of `text`.
fn load_validate_create(
    registry: &NodeRegistry,
    out: &Path,
    name: &str,
    text: &str,
) -> Result<(), String> {
    let doc = match GraphDoc::from_ron(text, name) {
        Ok(doc) => doc,
        Err(e) if e.file.as_deref() == Some(name) => return check_errors(&[e]),
        Err(e) => return Err(format!("load error without the file: {e}")),
    };
    if let Err(errors) = compile(&doc, registry) {
        return check_errors(&errors);
    }
    let cells = doc.settings.grid.iter().product::<usize>();
    if cells <= INSTANTIATE_CELLS {
        let paths = RunPaths {
            out_dir: out,
            base_dir: &flipgraph_tests::graphs_dir(),
            allow_outside_out: false,
        };
        let mut sim = match Simulation::with_paths(&doc, registry, paths) {
            Ok(sim) => sim,
            Err(errors) => return check_errors(&errors),
        };
        if cells <= RUN_CELLS {
            // a failing or blown-up step is an answer; only a panic or an abort is not
            let steps = *RUN_STEPS;
            for s in 0..steps {
                if sim.substep(1e-3, s, s + 1 == steps).is_err() {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Runs one input; a panic or a badly placed error is an `Err` saying which.
pub fn check_input(
    registry: &NodeRegistry,
    out: &Path,
    name: &str,
    text: &str,
) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        load_validate_create(registry, out, name, text)
    }))
    .unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panicked: {msg}"))
    })
}
