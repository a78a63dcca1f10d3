//! The editor's source files import each other in no circle of more than three files, the
//! low-level modules (`types`, `frames`) import nothing above them, and each top-level module
//! imports only those below it (types, frames, hints, graph, viewport, run, compare, app).
//!
//! File A imports file B when A names B's module through `crate::…`, `super::…` or `self::…`
//! anywhere in its text (`use` items, paths in code, doc links; `use` groups expanded). The
//! crate roots (`lib.rs`, `main.rs`) only declare modules and are left out. The import circles
//! are the strongly connected components (Tarjan) of that graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The most files one import circle may have.
const MAX_CIRCLE: usize = 3;
/// The modules at the bottom: they may import only each other.
const LOW_LEVEL: [&str; 2] = ["types", "frames"];
/// The top-level modules, bottom first: a file imports only its own module's files and those
/// of the modules below. `bench` belongs to the binary (`--bench`) and drives the whole app.
const LAYERS: [&str; 9] = [
    "types", "frames", "hints", "graph", "viewport", "run", "compare", "app", "bench",
];

/// A source file: its path under `src/`, its module path and its text.
struct Source {
    file: String,
    module: Vec<String>,
    text: String,
}

/// Every `.rs` file under `dir` but the crate roots.
fn sources(dir: &Path) -> Vec<Source> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            let rel = path.strip_prefix(dir).expect("under src/");
            let file = rel.to_string_lossy().replace('\\', "/");
            let Some(stem) = file.strip_suffix(".rs") else {
                continue;
            };
            if stem == "lib" || stem == "main" {
                continue;
            }
            let mut module: Vec<String> = stem.split('/').map(str::to_string).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            out.push(Source { file, module, text });
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// Where the first inline module (`mod tests { … }`) starts: paths after it are taken to be
/// inside it (inline modules close their files here).
fn inline_module_start(text: &str) -> usize {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let item = ["mod ", "pub mod ", "pub(crate) mod "]
            .iter()
            .any(|p| t.starts_with(p));
        if item && t.ends_with('{') {
            return at;
        }
        at += line.len();
    }
    text.len()
}

/// The paths of a use tree starting at `s` (just after `crate::`): `a::b`, `a::{b, c::d}`.
fn use_tree(s: &str) -> Vec<Vec<String>> {
    let mut out = vec![];
    tree(s.as_bytes(), 0, &[], &mut out);
    out
}

/// Parses one use tree at `i` under `prefix` into `out`; returns where it ends.
fn tree(s: &[u8], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let skip_space = |mut i: usize| {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut path = prefix.to_vec();
    loop {
        i = skip_space(i);
        if i < s.len() && s[i] == b'{' {
            i += 1;
            loop {
                i = tree(s, i, &path, out);
                i = skip_space(i);
                match s.get(i) {
                    Some(b',') => {
                        i = skip_space(i + 1);
                        if s.get(i) == Some(&b'}') {
                            return i + 1;
                        }
                    }
                    Some(b'}') => return i + 1,
                    _ => return i,
                }
            }
        }
        let start = i;
        while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
            i += 1;
        }
        if i > start {
            path.push(String::from_utf8_lossy(&s[start..i]).into_owned());
        }
        if i > start && s[i..].starts_with(b"::") {
            i += 2;
            continue;
        }
        out.push(path);
        return i;
    }
}

/// The absolute module paths `source` names (`crate::`, `super::`, `self::`).
fn named_paths(source: &Source) -> Vec<Vec<String>> {
    let text = &source.text;
    let inline = inline_module_start(text);
    let mut out = vec![];
    for (at, _) in text.match_indices("::") {
        let word_start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |k| k + 1);
        let word = &text[word_start..at];
        // the module the path is written in (an inline module is one level deeper)
        let mut here = source.module.clone();
        if at >= inline {
            here.push("inline".into());
        }
        let before = text[..word_start].chars().next_back();
        let continues = before == Some(':');
        let base = match word {
            "crate" if !continues => vec![],
            "self" if !continues => here,
            "super" if !continues => {
                // `super::super::…`: one level up per `super`
                let mut base = here;
                base.pop();
                let mut rest = &text[at + 2..];
                while let Some(r) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = r;
                }
                let skipped = text.len() - (at + 2) - rest.len();
                for p in use_tree(&text[at + 2 + skipped..]) {
                    out.push(base.iter().cloned().chain(p).collect());
                }
                continue;
            }
            _ => continue,
        };
        for p in use_tree(&text[at + 2..]) {
            out.push(base.iter().cloned().chain(p).collect());
        }
    }
    out
}

/// The file whose module is the longest prefix of `path`.
fn resolve(path: &[String], modules: &BTreeMap<Vec<String>, usize>) -> Option<usize> {
    (1..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).copied())
}

/// Per file, the files it imports.
fn imports(sources: &[Source]) -> Vec<BTreeSet<usize>> {
    let modules: BTreeMap<Vec<String>, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| (s.module.clone(), i))
        .collect();
    sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            named_paths(s)
                .iter()
                .filter_map(|p| resolve(p, &modules))
                .filter(|&j| j != i)
                .collect()
        })
        .collect()
}

/// Strongly connected components of `edges` (Tarjan).
fn components(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in self.edges[v].iter() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = vec![];
                loop {
                    let w = self.stack.pop().expect("v is on the stack");
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.out.push(component);
            }
        }
    }
    let n = edges.len();
    let mut t = Tarjan {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: vec![],
        on_stack: vec![false; n],
        next: 0,
        out: vec![],
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}

/// The largest import circle of `sources`, as file names.
fn largest_circle(sources: &[Source]) -> Vec<String> {
    let largest = components(&imports(sources))
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let mut files: Vec<String> = largest.iter().map(|&i| sources[i].file.clone()).collect();
    files.sort();
    files
}

fn editor_sources() -> Vec<Source> {
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_import_circle_has_more_than_three_files() {
    let sources = editor_sources();
    assert!(sources.len() > 40, "found {} source files", sources.len());
    let circle = largest_circle(&sources);
    println!("largest import circle: {} file(s) {circle:?}", circle.len());
    assert!(
        circle.len() <= MAX_CIRCLE,
        "{} files import each other in a circle: {circle:?}",
        circle.len()
    );
}

#[test]
fn the_low_level_modules_import_nothing_above_them() {
    let low = |path: &[String]| {
        path.first()
            .is_some_and(|m| LOW_LEVEL.contains(&m.as_str()))
    };
    let mut above = vec![];
    for s in editor_sources().iter().filter(|s| low(&s.module)) {
        for p in named_paths(s).iter().filter(|p| !low(p)) {
            above.push(format!("{} names crate::{}", s.file, p.join("::")));
        }
    }
    assert!(above.is_empty(), "{above:#?}");
}

#[test]
fn the_folders_import_only_the_layers_below_them() {
    let sources = editor_sources();
    let layer = |s: &Source| {
        let top = s.module.first().map_or("", String::as_str);
        LAYERS.iter().position(|l| *l == top)
    };
    let mut upward = vec![];
    for (i, targets) in imports(&sources).iter().enumerate() {
        let from = layer(&sources[i]).unwrap_or_else(|| panic!("{} has no layer", sources[i].file));
        for &j in targets {
            if layer(&sources[j]).is_some_and(|to| to > from) {
                upward.push(format!("{} imports {}", sources[i].file, sources[j].file));
            }
        }
    }
    assert!(upward.is_empty(), "{upward:#?}");
}

/// A source for the checks' own tests.
fn source(file: &str, text: &str) -> Source {
    let stem = file.trim_end_matches(".rs").trim_end_matches("/mod");
    Source {
        file: file.into(),
        module: stem.split('/').map(str::to_string).collect(),
        text: text.into(),
    }
}

#[test]
fn a_circle_of_four_files_is_found_through_every_kind_of_path() {
    let files = [
        source("a.rs", "use crate::{b::{self, B}, types::T};"),
        source("b.rs", "/// See [`crate::c::C`].\nfn f() {}"),
        source("c/mod.rs", "pub mod d;\nuse self::d::D;"),
        source("c/d.rs", "fn f() { super::super::a::g() }"),
        source("types.rs", "mod tests {\n    use super::*;\n}\n"),
    ];
    let circle = largest_circle(&files);
    assert_eq!(circle, ["a.rs", "b.rs", "c/d.rs", "c/mod.rs"]);
    // the test module's `super` is its own file: no import
    assert!(imports(&files)[4].is_empty());
    let broken = [
        source("a.rs", "use crate::b::B;"),
        source("b.rs", "use crate::a::A;"),
    ];
    assert_eq!(largest_circle(&broken).len(), 2);
}
