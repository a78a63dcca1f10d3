//! A benchmark's result table: printed aligned on stdout and written into the bench's `--out`
//! folder as `<name>.csv` (the rows) and `<name>.md` (title, Markdown table and notes), so
//! `flipgraph bench <name> --out docs/bench` regenerates what `docs/bench/README.md` links.

use anyhow::Result;
use std::fmt::Display;
use std::path::{Path, PathBuf};

/// One result table of a benchmark.
pub struct Table {
    /// File stem of the CSV and Markdown files (`step_3d_64`).
    pub name: String,
    /// One line saying what was measured, on what, how.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Cells, one `Vec` per row, as many as `columns`.
    pub rows: Vec<Vec<String>>,
    /// Lines printed and written under the table (totals, shares, the machine).
    pub notes: Vec<String>,
}

impl Table {
    /// An empty table.
    pub fn new(name: impl Into<String>, title: impl Into<String>, columns: &[&str]) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Appends a row (one cell per column).
    pub fn row<I: IntoIterator<Item = D>, D: Display>(&mut self, cells: I) {
        let row: Vec<String> = cells.into_iter().map(|c| c.to_string()).collect();
        debug_assert_eq!(row.len(), self.columns.len(), "table `{}`", self.name);
        self.rows.push(row);
    }

    /// Appends a note line.
    pub fn note(&mut self, line: impl Into<String>) {
        self.notes.push(line.into());
    }

    /// The table with columns padded to their widest cell (first column left-aligned, the
    /// others right-aligned), then the notes.
    pub fn text(&self) -> String {
        let width = |c: usize| {
            self.rows
                .iter()
                .map(|r| r[c].chars().count())
                .chain([self.columns[c].chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.columns.len()).map(width).collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, &w))| match i {
                    0 => format!("{c:<w$}"),
                    _ => format!("{c:>w$}"),
                })
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        let mut out = vec![self.title.clone(), line(&self.columns)];
        out.extend(self.rows.iter().map(|r| line(r)));
        out.extend(self.notes.iter().cloned());
        out.join("\n") + "\n"
    }

    /// The header and rows as CSV (cells with commas or quotes quoted).
    pub fn csv(&self) -> String {
        let cell = |c: &String| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        let line = |cells: &[String]| cells.iter().map(cell).collect::<Vec<_>>().join(",");
        let mut out = line(&self.columns) + "\n";
        for r in &self.rows {
            out += &(line(r) + "\n");
        }
        out
    }

    /// The title as a heading, the table in Markdown, then the notes as a list.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |", cells.join(" | ").replace('\n', " "));
        let mut out = format!("### {}\n\n", self.title);
        out += &(line(&self.columns) + "\n");
        out += &format!("|{}\n", "---|".repeat(self.columns.len()));
        for r in &self.rows {
            out += &(line(r) + "\n");
        }
        if !self.notes.is_empty() {
            out += "\n";
            for n in &self.notes {
                out += &format!("- {n}\n");
            }
        }
        out
    }

    /// Prints the table and writes `<name>.csv` and `<name>.md` into `dir` (created).
    ///
    /// # Errors
    /// The folder or a file cannot be written.
    pub fn emit(&self, dir: &Path) -> Result<[PathBuf; 2]> {
        print!("{}", self.text());
        std::fs::create_dir_all(dir)?;
        let csv = dir.join(format!("{}.csv", self.name));
        let md = dir.join(format!("{}.md", self.name));
        std::fs::write(&csv, self.csv())?;
        std::fs::write(&md, self.markdown())?;
        println!("table: {} and {}", csv.display(), md.display());
        Ok([csv, md])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("demo", "Demo at 16³", &["node", "median s"]);
        t.row(["pressure", "0.0100"]);
        t.row(["p2g, apic", "0.0020"]);
        t.note("2 threads");
        t
    }

    #[test]
    fn csv_quotes_cells_with_commas() {
        assert_eq!(
            sample().csv(),
            "node,median s\npressure,0.0100\n\"p2g, apic\",0.0020\n"
        );
    }

    #[test]
    fn markdown_has_title_table_and_notes() {
        let md = sample().markdown();
        assert!(md.starts_with("### Demo at 16³\n\n| node | median s |\n|---|---|\n"));
        assert!(md.contains("| pressure | 0.0100 |\n") && md.ends_with("\n- 2 threads\n"));
    }

    #[test]
    fn text_aligns_columns() {
        let text = sample().text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "node       median s");
        assert_eq!(lines[2], "pressure     0.0100");
    }
}
