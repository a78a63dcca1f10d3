//! The compare mode's variant list: names, the pressure solver and wall mode picked from the
//! loaded plugins, free `node.param=value` lines, the graph's saved variants as a start, and
//! the frame count.

use crate::compare::drafts::{list_problem, saved_drafts, to_variant_docs, VariantDraft};
use crate::compare::mode::CompareMode;
use crate::compare::plots::{swatch, variant_color};
use crate::graph::convert::EditorDoc;
use crate::hints::Hint;
use egui::{Color32, ComboBox, RichText, TextEdit, Ui};
use flip_graph::ParamKind;
use flip_host::PluginSet;
use flip_nodes::roles::NodeRole;
use std::path::Path;

/// The pressure node of the graph: its id, current solver and walls, and their choices (from
/// the node's parameter specs, i.e. the loaded plugins' algorithms the node's own Solver combo
/// offers).
struct PressureNode {
    id: String,
    solver: String,
    boundary: String,
    /// `(value, label)`: every algorithm, LCP ones marked.
    solvers: Vec<(String, String)>,
    /// Wall modes.
    walls: Vec<(String, String)>,
}

impl PressureNode {
    /// The first pressure-solve node of `doc`, its solver choices marked from `plugins`.
    fn of(doc: &EditorDoc, plugins: &PluginSet) -> Option<Self> {
        let g = &doc.state.graph;
        let node = g
            .iter_nodes()
            .find(|n| g[*n].user_data.role == NodeRole::Pressure)?;
        let data = &g[node].user_data;
        let values = doc.param_values(node);
        let text = |name: &str| {
            values
                .get(name)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let choices = |name: &str| match data.param(name).map(|p| &p.kind) {
            Some(ParamKind::Choice(c)) => c.clone(),
            _ => vec![],
        };
        let solvers = choices("solver")
            .into_iter()
            .map(|n| {
                let lcp = plugins.find(&n).is_ok_and(|(_, a)| a.supports_lcp());
                let label = if lcp { format!("{n} (LCP)") } else { n.clone() };
                (n, label)
            })
            .collect();
        let walls = choices("boundary")
            .into_iter()
            .map(|w| (w.clone(), w))
            .collect();
        Some(PressureNode {
            id: data.doc_id.clone(),
            solver: text("solver"),
            boundary: text("boundary"),
            solvers,
            walls,
        })
    }
}

impl CompareMode {
    /// The left panel of the compare mode: the variants of `doc` (solver choices from
    /// `plugins`). Returns whether the list was stored in `doc`'s variants.
    pub(crate) fn variant_list_ui(
        &mut self,
        ui: &mut Ui,
        doc: &mut EditorDoc,
        plugins: &PluginSet,
        base_dir: &Path,
    ) -> bool {
        ui.heading("Variants");
        ui.label(
            RichText::new(
                "same graph and seed, different overrides; the first is the baseline of the \
                 RMS curve",
            )
            .weak()
            .small(),
        );
        let pressure = PressureNode::of(doc, plugins);
        let (mut changed, stored) = self.list_buttons(ui, doc, pressure.as_ref());
        ui.separator();
        let mut remove = None;
        egui::ScrollArea::vertical()
            .max_height(ui.available_height() - 110.0)
            .show(ui, |ui| {
                for (i, d) in self.drafts.iter_mut().enumerate() {
                    let r = draft_ui(ui, i, d, pressure.as_ref());
                    changed |= r.changed;
                    if r.remove {
                        remove = Some(i);
                    }
                }
            });
        if let Some(i) = remove {
            self.drafts.remove(i);
            changed = true;
        }
        ui.separator();
        self.run_row(ui, doc, base_dir);
        if changed {
            self.stale = true;
        }
        stored
    }

    /// Saved variants, add, save-to-graph. Returns whether the list changed and whether it
    /// was stored in `doc`.
    fn list_buttons(
        &mut self,
        ui: &mut Ui,
        doc: &mut EditorDoc,
        pressure: Option<&PressureNode>,
    ) -> (bool, bool) {
        let (mut changed, mut stored) = (false, false);
        ui.horizontal_wrapped(|ui| {
            let saved = doc.variants.len();
            let b = egui::Button::new(format!("Saved variants ({saved})"));
            let r = ui.add_enabled(saved > 0, b).hint(
                "replace the list with the graph's saved `variants` (what `flipgraph compare` runs)",
            );
            if r.clicked() {
                self.drafts = saved_drafts(&doc.to_doc());
                changed = true;
            }
            ui.menu_button("➕ Add", |ui| {
                if ui.button("the graph as it is").clicked() {
                    self.add_draft("graph", None);
                    changed = true;
                    ui.close_menu();
                }
                let Some(p) = pressure else { return };
                ui.separator();
                ui.label(RichText::new(format!("`{}` solved with", p.id)).weak());
                egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                    for (name, label) in &p.solvers {
                        if ui.button(label).clicked() {
                            let value = (format!("{}.solver", p.id), name.clone());
                            self.add_draft(&name.replace('/', "-"), Some(value));
                            changed = true;
                            ui.close_menu();
                        }
                    }
                });
            });
            let r = ui
                .button("Save to graph")
                .hint("keep this list as the graph's `variants` (File ▸ Save writes it)");
            if r.clicked() {
                doc.variants = to_variant_docs(&self.drafts);
                stored = true;
            }
        });
        (changed, stored)
    }

    fn add_draft(&mut self, base: &str, set: Option<(String, String)>) {
        let drafts = &mut self.drafts;
        let taken = |n: &str| drafts.iter().any(|d| d.name.trim() == n);
        let name = if taken(base) {
            (2..)
                .map(|k| format!("{base}-{k}"))
                .find(|n| !taken(n))
                .expect("a free name")
        } else {
            base.to_string()
        };
        let mut d = VariantDraft {
            name,
            overrides: vec![],
        };
        if let Some((target, value)) = set {
            d.set(&target, &value);
        }
        drafts.push(d);
    }

    /// Frames and the run button, with what stops the run.
    fn run_row(&mut self, ui: &mut Ui, doc: &EditorDoc, base_dir: &Path) {
        ui.horizontal(|ui| {
            ui.label("frames");
            let frames = egui::DragValue::new(&mut self.frames).range(1..=100_000);
            if ui.add(frames).changed() {
                self.stale = true;
            }
            let problem = list_problem(&self.drafts);
            let r = ui.add_enabled(problem.is_none(), egui::Button::new("▶ Run variants"));
            if r.hint("build every variant and play them in lockstep")
                .clicked()
            {
                self.start(doc, base_dir);
                self.toggle_play();
            }
        });
        let red = Color32::from_rgb(255, 110, 100);
        if let Some(p) = list_problem(&self.drafts).or(self.problem.clone()) {
            ui.colored_label(red, format!("⚠ {p}"));
        } else if self.stale && !self.variants.is_empty() {
            ui.label(
                RichText::new(
                    "the list or the graph changed since this run: ⟲ Reset or ▶ to rerun",
                )
                .weak()
                .small(),
            );
        }
    }
}

struct DraftResponse {
    changed: bool,
    remove: bool,
}

/// One variant: name, solver, boundary, override lines.
fn draft_ui(
    ui: &mut Ui,
    i: usize,
    d: &mut VariantDraft,
    pressure: Option<&PressureNode>,
) -> DraftResponse {
    let mut r = DraftResponse {
        changed: false,
        remove: false,
    };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            swatch(ui, variant_color(i));
            r.changed |= ui
                .add(TextEdit::singleline(&mut d.name).desired_width(170.0))
                .changed();
            if i == 0 {
                ui.label(RichText::new("baseline").weak().small());
            }
            r.remove = ui.small_button("🗑").hint("remove").clicked();
        });
        let mut combo_targets = vec![];
        if let Some(p) = pressure {
            combo_targets = vec![format!("{}.solver", p.id), format!("{}.boundary", p.id)];
            let target = format!("{}.solver", p.id);
            r.changed |= choice_row(ui, (i, "solver"), d, &target, &p.solver, &p.solvers);
            let target = format!("{}.boundary", p.id);
            r.changed |= choice_row(ui, (i, "walls"), d, &target, &p.boundary, &p.walls);
        }
        let mut drop = None;
        for (k, line) in d.overrides.iter_mut().enumerate() {
            // Lines the combo boxes above edit are not repeated.
            let target = line.split_once('=').map(|(t, _)| t.trim());
            if target.is_some_and(|t| combo_targets.iter().any(|c| c == t)) {
                continue;
            }
            ui.horizontal(|ui| {
                let edit = TextEdit::singleline(line)
                    .hint_text("node.param=value")
                    .desired_width(ui.available_width() - 30.0);
                r.changed |= ui.add(edit).changed();
                if ui.small_button("🗑").hint("remove").clicked() {
                    drop = Some(k);
                }
            });
        }
        if let Some(k) = drop {
            d.overrides.remove(k);
            r.changed = true;
        }
        if ui
            .small_button("+ override")
            .hint("node.param=value or settings.field=value, as in graph files")
            .clicked()
        {
            d.overrides.push(String::new());
            r.changed = true;
        }
    });
    r
}

/// A combo box over `choices` (value, label) for `target`; "graph's" removes the override.
fn choice_row(
    ui: &mut Ui,
    id: (usize, &str),
    d: &mut VariantDraft,
    target: &str,
    graph_value: &str,
    choices: &[(String, String)],
) -> bool {
    let current = d.value_of(target);
    let shown = current
        .clone()
        .unwrap_or_else(|| format!("graph's ({graph_value})"));
    let mut picked: Option<Option<String>> = None;
    ui.horizontal(|ui| {
        ui.label(RichText::new(id.1).small());
        ComboBox::from_id_salt(("compare_choice", id.0, id.1))
            .selected_text(shown)
            .width(ui.available_width() - 10.0)
            .show_ui(ui, |ui| {
                let graph = format!("graph's ({graph_value})");
                if ui.selectable_label(current.is_none(), graph).clicked() {
                    picked = Some(None);
                }
                for (v, label) in choices {
                    let on = current.as_deref() == Some(v.as_str());
                    if ui.selectable_label(on, label).clicked() {
                        picked = Some(Some(v.clone()));
                    }
                }
            });
    });
    match picked {
        Some(Some(v)) => d.set(target, &v),
        Some(None) => d.unset(target),
        None => return false,
    }
    true
}
