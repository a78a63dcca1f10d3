//! Saving an edited graph into the text it was read from. The document as read and as edited
//! are both written out canonically and compared value by value; only where they differ is the
//! file's text changed: a value replaced in place, a field or entry added after the last one
//! (in the layout of its neighbours), a node or edge added after the one before it or removed
//! with its line. Comments, order and formatting of everything else stay as they were.

use super::scan::{scan, Entry, Item, Kind};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// `file` (whose values are those of the canonical text `old`) changed to hold the values of
/// the canonical text `new`; `None` when the texts cannot be read or matched up.
pub fn patch(file: &str, old: &str, new: &str) -> Option<String> {
    let texts = Texts { file, old, new };
    let (f, o, n) = (scan(file)?, scan(old)?, scan(new)?);
    let mut edits = Edits::default();
    texts.walk(&f, &o, &n, &mut edits)?;
    Some(edits.apply(file))
}

/// Replacements and insertions in the file's text.
#[derive(Default)]
struct Edits {
    replace: Vec<(Range<usize>, String)>,
    insert: BTreeMap<usize, String>,
}

impl Edits {
    fn apply(mut self, file: &str) -> String {
        for (at, text) in std::mem::take(&mut self.insert) {
            self.replace.push((at..at, text));
        }
        // back to front; at one position, a removal before an insertion
        self.replace
            .sort_by(|(a, _), (b, _)| b.start.cmp(&a.start).then(b.end.cmp(&a.end)));
        let mut out = file.to_string();
        for (range, text) in self.replace {
            out.replace_range(range, &text);
        }
        out
    }
}

struct Texts<'a> {
    file: &'a str,
    old: &'a str,
    new: &'a str,
}

impl Texts<'_> {
    fn walk(&self, f: &Item, o: &Item, n: &Item, edits: &mut Edits) -> Option<()> {
        if self.old[o.span.clone()] == self.new[n.span.clone()] {
            return Some(());
        }
        match (&f.kind, &o.kind, &n.kind) {
            (Kind::Struct(fe), Kind::Struct(oe), Kind::Struct(ne))
            | (Kind::Map(fe), Kind::Map(oe), Kind::Map(ne)) => self.entries(f, fe, oe, ne, edits),
            (Kind::List(fe), Kind::List(oe), Kind::List(ne)) if !fe.is_empty() => {
                self.list(fe, oe, ne, edits)
            }
            (Kind::Tuple(fe), Kind::Tuple(oe), Kind::Tuple(ne))
                if fe.len() == oe.len() && oe.len() == ne.len() =>
            {
                for ((f, o), n) in fe.iter().zip(oe).zip(ne) {
                    self.walk(&f.value, &o.value, &n.value, edits)?;
                }
                Some(())
            }
            _ => {
                edits
                    .replace
                    .push((f.span.clone(), self.value_at(n, f.span.start)));
                Some(())
            }
        }
    }

    /// The new text of `n`, its later lines indented for a value starting at `at` in the file.
    fn value_at(&self, n: &Item, at: usize) -> String {
        reindent(
            &self.new[n.span.clone()],
            indent(self.new, n.span.start),
            indent(self.file, at),
        )
    }

    /// A struct's fields or a map's entries, matched by name.
    fn entries(
        &self,
        f: &Item,
        fe: &[Entry],
        oe: &[Entry],
        ne: &[Entry],
        edits: &mut Edits,
    ) -> Option<()> {
        let by_key = |es: &'_ [Entry]| -> HashMap<String, usize> {
            es.iter()
                .enumerate()
                .map(|(i, e)| (e.key.clone(), i))
                .collect()
        };
        let (fk, ok, nk) = (by_key(fe), by_key(oe), by_key(ne));
        for n in ne {
            match (fk.get(&n.key), ok.get(&n.key)) {
                (Some(&fi), Some(&oi)) => {
                    self.walk(&fe[fi].value, &oe[oi].value, &n.value, edits)?
                }
                (Some(&fi), None) => {
                    let v = &fe[fi].value;
                    edits
                        .replace
                        .push((v.span.clone(), self.value_at(&n.value, v.span.start)));
                }
                (None, Some(&oi))
                    if self.old[oe[oi].value.span.clone()] == self.new[n.value.span.clone()] => {}
                (None, _) => {
                    let entry = &self.new[n.start..n.value.span.end];
                    self.add_entry(f, fe, reindent(entry, indent(self.new, n.start), ""), edits);
                }
            }
        }
        let gone = |e: &Entry| ok.contains_key(&e.key) && !nk.contains_key(&e.key);
        remove(fe, gone, edits);
        Some(())
    }

    /// Elements matched by their `id` (nodes) or whole text (edges): removed ones go with their
    /// line, added ones follow the element before them, the rest are compared.
    fn list(&self, fe: &[Entry], oe: &[Entry], ne: &[Entry], edits: &mut Edits) -> Option<()> {
        if fe.len() != oe.len() {
            return None;
        }
        let key_of = |text: &str, e: &Entry| match &e.value.kind {
            Kind::Struct(fields) => match fields.iter().find(|f| f.key == "id") {
                Some(id) => format!("id {}", &text[id.value.span.clone()]),
                None => text[e.value.span.clone()].to_string(),
            },
            _ => text[e.value.span.clone()].to_string(),
        };
        let ok: Vec<String> = oe.iter().map(|e| key_of(self.old, e)).collect();
        let nk: Vec<String> = ne.iter().map(|e| key_of(self.new, e)).collect();
        let old_at: HashMap<&str, usize> = ok
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        let new_keys: std::collections::HashSet<&str> = nk.iter().map(String::as_str).collect();
        if old_at.len() != ok.len() || new_keys.len() != nk.len() {
            return None;
        }
        // the kept elements must keep their order
        let kept: Vec<usize> = nk
            .iter()
            .filter_map(|k| old_at.get(k.as_str()).copied())
            .collect();
        if kept.windows(2).any(|w| w[0] > w[1]) {
            return None;
        }
        let mut gone = ok.iter().map(|k| !new_keys.contains(k.as_str()));
        remove(fe, |_| gone.next().unwrap_or(false), edits);
        let mut before: Option<usize> = None;
        for (j, k) in nk.iter().enumerate() {
            match old_at.get(k.as_str()) {
                Some(&i) => {
                    self.walk(&fe[i].value, &oe[i].value, &ne[j].value, edits)?;
                    before = Some(i);
                }
                None => {
                    let line = indent(self.file, fe[0].start);
                    let text = reindent(
                        &self.new[ne[j].value.span.clone()],
                        indent(self.new, ne[j].start),
                        line,
                    );
                    let (at, piece) = match before {
                        Some(i) if fe[i].comma => (fe[i].end, format!("\n{line}{text},")),
                        Some(i) => (fe[i].end, format!(",\n{line}{text}")),
                        None => (fe[0].start, format!("{text},\n{line}")),
                    };
                    edits.insert.entry(at).or_default().push_str(&piece);
                }
            }
        }
        Some(())
    }

    /// Adds `entry` (`key: value`, no indent) after the last of `fe` in `f`, laid out like them.
    fn add_entry(&self, f: &Item, fe: &[Entry], entry: String, edits: &mut Edits) {
        let open = f.span.start + self.file[f.span.clone()].find(['(', '{']).unwrap_or(0) + 1;
        let Some(last) = fe.last() else {
            edits.insert.entry(open).or_default().push_str(&entry);
            return;
        };
        let multiline = self.file[open..fe[0].start].contains('\n');
        let piece = if multiline {
            let line = indent(self.file, fe[0].start);
            let entry = reindent(&entry, "", line);
            match last.comma {
                true => format!("\n{line}{entry},"),
                false => format!(",\n{line}{entry}"),
            }
        } else {
            let entry = reindent(&entry, "", indent(self.file, last.start));
            match last.comma {
                true => format!(" {entry},"),
                false => format!(", {entry}"),
            }
        };
        edits.insert.entry(last.end).or_default().push_str(&piece);
    }
}

/// Removes the entries of `fe` that `gone` picks, each with the line it stands on: from the
/// end of the entry before (the first: up to the next one) to its own end.
fn remove(fe: &[Entry], mut gone: impl FnMut(&Entry) -> bool, edits: &mut Edits) {
    let mut ranges: Vec<Range<usize>> = vec![];
    for (i, e) in fe.iter().enumerate() {
        if !gone(e) {
            continue;
        }
        let range = match i {
            0 if fe.len() > 1 => e.start..fe[1].start,
            0 => e.start..e.end,
            _ => fe[i - 1].end..e.end,
        };
        match ranges.last_mut() {
            Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
            _ => ranges.push(range),
        }
    }
    edits
        .replace
        .extend(ranges.into_iter().map(|r| (r, String::new())));
}

/// The leading blanks of the line holding byte `at`.
fn indent(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let blanks = text[line..].len() - text[line..].trim_start_matches([' ', '\t']).len();
    &text[line..line + blanks]
}

/// `text` with `from` at the start of its later lines replaced by `to`.
fn reindent(text: &str, from: &str, to: &str) -> String {
    let mut lines = text.split('\n');
    let mut out = lines.next().unwrap_or_default().to_string();
    for l in lines {
        out.push('\n');
        out.push_str(to);
        out.push_str(l.strip_prefix(from).unwrap_or(l));
    }
    out
}
