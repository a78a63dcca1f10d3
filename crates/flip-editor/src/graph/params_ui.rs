//! Parameter widgets: a suitable editor per [`ParamKind`] (drag values with ranges, checkbox,
//! three drag values for vectors, combo box for choices, text + file picker for paths).

use crate::hints::Hint;
use crate::types::{NodeData, Response, UserState, ValueType};
use egui::{ComboBox, DragValue, RichText, TextEdit, Ui};
use egui_node_graph2::{NodeId, WidgetValueTrait};
use flip_graph::{ParamKind, ParamSpec, ParamValue};
use std::collections::HashSet;
use std::path::Path;

/// Width of the value part of a parameter row, in widget heights: it follows the canvas zoom
/// (the library scales the style's sizes), so zoomed-out nodes shrink with their positions.
const VALUE_WIDTH: f32 = 96.0 / 18.0;

/// [`VALUE_WIDTH`] in points for `ui`'s (zoomed) style.
fn value_width(ui: &Ui) -> f32 {
    VALUE_WIDTH * ui.spacing().interact_size.y
}

impl WidgetValueTrait for ValueType {
    type Response = Response;
    type UserState = UserState;
    type NodeData = NodeData;

    fn value_widget(
        &mut self,
        param_name: &str,
        node_id: NodeId,
        ui: &mut Ui,
        user_state: &mut UserState,
        node_data: &NodeData,
    ) -> Vec<Response> {
        let ValueType::Param(value) = self else {
            port_label(ui, param_name, node_data, false);
            return vec![];
        };
        let Some(spec) = node_data.param(param_name) else {
            // A value the kind does not declare (should not happen: such values live in
            // `NodeData::extra`).
            ui.label(format!("{param_name}: {}", value.display()));
            return vec![];
        };
        let changed = param_row(ui, node_id, spec, value, user_state);
        if changed {
            vec![Response::ParamChanged {
                node: node_id,
                name: param_name.to_string(),
            }]
        } else {
            vec![]
        }
    }

    fn value_widget_connected(
        &mut self,
        param_name: &str,
        _node_id: NodeId,
        ui: &mut Ui,
        _user_state: &mut UserState,
        node_data: &NodeData,
    ) -> Vec<Response> {
        port_label(ui, param_name, node_data, true);
        vec![]
    }
}

/// An input port's name, with its help as tooltip; optional unconnected ports are dimmed.
fn port_label(ui: &mut Ui, name: &str, data: &NodeData, connected: bool) {
    let spec = data.inputs.iter().find(|p| p.name == name);
    let optional = spec.is_some_and(|p| !p.required);
    let mut text = RichText::new(name);
    if optional && !connected {
        text = text.weak();
    }
    let r = ui.label(text);
    if let Some(p) = spec {
        let req = if p.required { "required" } else { "optional" };
        r.hint(format!("{} ({}, {req})", p.help, p.kind.name()));
    }
}

/// One labelled parameter row (vectors and paths get a second line); returns whether the
/// value changed.
fn param_row(
    ui: &mut Ui,
    node_id: NodeId,
    spec: &ParamSpec,
    value: &mut ParamValue,
    user: &UserState,
) -> bool {
    let hover = format!("{} (`{}`)", spec.help, spec.name);
    let mut changed = false;
    if matches!(spec.kind, ParamKind::Vec3 | ParamKind::Path) {
        ui.label(spec.label.as_str()).hint(hover);
        ui.horizontal(|ui| {
            changed = value_editor(ui, node_id, spec, value, user);
        });
        return changed;
    }
    ui.horizontal(|ui| {
        ui.label(spec.label.as_str()).hint(hover);
        if matches!(spec.kind, ParamKind::Choice(_)) {
            // A combo box in a right-to-left layout grows over the label.
            changed = value_editor(ui, node_id, spec, value, user);
            return;
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            changed = value_editor(ui, node_id, spec, value, user);
        });
    });
    changed
}

/// Drag speed: 1 % of the value per pixel (so tolerances like 1e-6 stay usable), a small part
/// of the range for zero.
fn drag_speed(x: f64, min: f64, max: f64) -> f64 {
    if x != 0.0 && x.is_finite() {
        return x.abs() * 0.01;
    }
    let span = (max - min).abs();
    if span.is_finite() && span > 0.0 {
        (span * 1e-4).min(1e-2)
    } else {
        1e-3
    }
}

/// A typed number, refused unless finite: egui would clamp a NaN to the top of the range and
/// show `inf`, so `nan` (or `inf`) leaves the value as it was. Every number field (floats,
/// integers, vector components) parses with it.
pub fn parse_finite(text: &str) -> Option<f64> {
    let x: f64 = text.trim().replace('−', "-").parse().ok()?;
    x.is_finite().then_some(x)
}

/// Short text for a number: scientific for very small or large magnitudes.
pub fn format_number(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{x:.2e}")
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn value_editor(
    ui: &mut Ui,
    node_id: NodeId,
    spec: &ParamSpec,
    value: &mut ParamValue,
    user: &UserState,
) -> bool {
    let (base_dir, lcp) = (user.base_dir.as_path(), &user.lcp_solvers);
    match (&spec.kind, value) {
        (ParamKind::Float { min, max }, ParamValue::Number(x)) => {
            let speed = drag_speed(*x, *min, *max);
            let drag = DragValue::new(x)
                .range(*min..=*max)
                .speed(speed)
                .custom_formatter(|n, _| format_number(n))
                .custom_parser(parse_finite);
            ui.add(drag).changed()
        }
        (ParamKind::Int { min, max }, ParamValue::Number(x)) => {
            let mut i = x.round() as i64;
            let drag = DragValue::new(&mut i).range(*min..=*max).speed(0.1);
            let r = ui.add(drag.custom_parser(parse_finite));
            if r.changed() {
                *x = i as f64;
            }
            r.changed()
        }
        (ParamKind::Bool, ParamValue::Bool(b)) => ui.checkbox(b, "").changed(),
        (ParamKind::Vec3, ParamValue::Vector(v)) => {
            // 2-vectors (allowed in files, z = 0) keep their length.
            let mut changed = false;
            for c in v.iter_mut() {
                let drag = DragValue::new(c).speed(0.01).max_decimals(4);
                let r = ui.add(drag.custom_parser(parse_finite));
                changed |= r.changed();
            }
            changed
        }
        (ParamKind::Choice(choices), ParamValue::Text(s)) => {
            choice_editor(ui, (node_id, &spec.name), choices, s, lcp)
        }
        (ParamKind::Path, ParamValue::Text(s)) => path_editor(ui, s, base_dir),
        (ParamKind::Text, ParamValue::Text(s)) => {
            let r = ui.add(TextEdit::singleline(s).desired_width(value_width(ui)));
            let changed = r.changed();
            full_text_hint(r, s);
            changed
        }
        (_, v) => {
            // Wrong type in the file: show it and offer the default.
            let reset = ui
                .button("reset")
                .hint("the file's value has the wrong type; use the default");
            ui.colored_label(egui::Color32::LIGHT_RED, v.display());
            if reset.clicked() {
                *v = spec.default.clone();
                return true;
            }
            false
        }
    }
}

/// A choice's label: LCP-capable solver algorithms are marked.
pub fn choice_label(choice: &str, lcp: &HashSet<String>) -> String {
    if lcp.contains(choice) {
        format!("{choice} (LCP)")
    } else {
        choice.to_string()
    }
}

fn choice_editor(
    ui: &mut Ui,
    id: (NodeId, &str),
    choices: &[String],
    s: &mut String,
    lcp: &HashSet<String>,
) -> bool {
    let mut changed = false;
    let shown = if choices.contains(s) {
        choice_label(s, lcp)
    } else {
        format!("{s} (missing)")
    };
    let combo = ComboBox::from_id_salt(id)
        .selected_text(shown.clone())
        .width(value_width(ui))
        .show_ui(ui, |ui| {
            if choices.is_empty() {
                ui.label("(none available)");
            }
            for c in choices {
                let label = choice_label(c, lcp);
                changed |= ui.selectable_value(s, c.clone(), label).changed();
            }
        });
    // not while the list is open: the tooltip would hide its first entries
    if combo.inner.is_none() {
        full_text_hint(combo.response, &shown);
    }
    changed
}

/// A narrow field may cut its text off: the whole text as its tooltip.
fn full_text_hint(field: egui::Response, text: &str) {
    if !text.is_empty() {
        field.hint(text);
    }
}

fn path_editor(ui: &mut Ui, s: &mut String, base_dir: &Path) -> bool {
    let width = value_width(ui) * 116.0 / 96.0;
    let field = ui.add(TextEdit::singleline(s).desired_width(width));
    let mut changed = field.changed();
    full_text_hint(field, s);
    if ui
        .small_button("…")
        .hint("choose a file (stored relative to the graph's folder)")
        .clicked()
    {
        if let Some(path) = rfd::FileDialog::new().set_directory(base_dir).pick_file() {
            let rel = path.strip_prefix(base_dir).unwrap_or(&path);
            *s = rel.to_string_lossy().into_owned();
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::{choice_label, drag_speed, format_number, parse_finite};

    #[test]
    fn drag_speed_follows_size_or_range() {
        assert!((drag_speed(0.5, 0.0, 1.0) - 0.005).abs() < 1e-12);
        assert!((drag_speed(1e-6, 0.0, 1.0) - 1e-8).abs() < 1e-20);
        assert!((drag_speed(0.0, 0.0, 1.0) - 1e-4).abs() < 1e-12);
        assert!(drag_speed(0.0, 0.0, 0.0) > 0.0);
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(format_number(1e-6), "1.00e-6");
        assert_eq!(format_number(0.95), "0.95");
        assert_eq!(format_number(2000.0), "2000");
        assert_eq!(format_number(0.0), "0");
    }

    #[test]
    fn typed_nan_or_inf_keeps_the_value_and_lcp_solvers_are_marked() {
        assert_eq!(parse_finite("nan"), None);
        assert_eq!(parse_finite("NaN"), None);
        assert_eq!(parse_finite("inf"), None);
        assert_eq!(parse_finite(" 1e-6 "), Some(1e-6));
        assert_eq!(parse_finite("−0.5"), Some(-0.5));
        let lcp = ["lcp/pi-mg".to_string()].into();
        assert_eq!(choice_label("lcp/pi-mg", &lcp), "lcp/pi-mg (LCP)");
        assert_eq!(choice_label("multigrid/mgpcg", &lcp), "multigrid/mgpcg");
    }
}
