//! `--set node.param=value` and `--set settings.field=value` overrides.

use flip_graph::{GraphDoc, ParamValue};

/// Parses a value the way graph files write it: `true`, `0.5`, `[0, -9.81, 0]`; anything
/// else is text (`mic0-pcg`, `pcg/mic0-pcg`).
pub fn parse_value(text: &str) -> ParamValue {
    ron::from_str::<ParamValue>(text.trim())
        .unwrap_or_else(|_| ParamValue::Text(text.trim().to_string()))
}

fn number(v: &ParamValue, what: &str) -> Result<f64, String> {
    v.as_f64().ok_or_else(|| format!("`{what}` needs a number"))
}

fn set_setting(doc: &mut GraphDoc, field: &str, v: &ParamValue) -> Result<(), String> {
    let s = &mut doc.settings;
    match field {
        "grid" => match v {
            ParamValue::Vector(g) if g.len() == 3 => {
                s.grid = [g[0] as usize, g[1] as usize, g[2] as usize]
            }
            ParamValue::Number(n) => {
                // one number: that many cells on every axis of this dimension, cell size 1/n
                let n = *n as usize;
                s.grid = if s.grid[2] == 1 { [n, n, 1] } else { [n, n, n] };
                s.cell_size = 1.0 / n as f32;
            }
            _ => return Err("`settings.grid` needs [ni, nj, nk] or one size".into()),
        },
        "cell_size" => s.cell_size = number(v, field)? as f32,
        "fps" => s.fps = number(v, field)? as f32,
        "frames" => s.frames = number(v, field)? as u32,
        "cfl" => s.cfl = number(v, field)? as f32,
        "max_substeps" => s.max_substeps = number(v, field)? as u32,
        "fixed_dt" => s.fixed_dt = number(v, field)? as f32,
        "seed" => s.seed = number(v, field)? as u64,
        "density" => s.density = number(v, field)? as f32,
        _ => return Err(format!("unknown setting `{field}`")),
    }
    Ok(())
}

/// Applies one `target=value` override.
///
/// # Errors
/// Malformed text or an unknown node/setting.
pub fn apply_override(doc: &mut GraphDoc, item: &str) -> Result<(), String> {
    let (target, value) = item
        .split_once('=')
        .ok_or_else(|| format!("`{item}`: expected node.param=value"))?;
    let (node, param) = target
        .split_once('.')
        .ok_or_else(|| format!("`{target}`: expected node.param"))?;
    let v = parse_value(value);
    if node == "settings" {
        return set_setting(doc, param, &v);
    }
    let n = doc
        .node_mut(node)
        .ok_or_else(|| format!("`--set {item}`: no node `{node}` in the graph"))?;
    n.params.insert(param.to_string(), v);
    Ok(())
}

/// Applies every override in order.
///
/// # Errors
/// The first bad override.
pub fn apply_overrides(doc: &mut GraphDoc, items: &[String]) -> Result<(), String> {
    items.iter().try_for_each(|i| apply_override(doc, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_like_graph_files() {
        assert_eq!(parse_value("true"), ParamValue::Bool(true));
        assert_eq!(parse_value("0.5"), ParamValue::Number(0.5));
        assert_eq!(parse_value("3"), ParamValue::Number(3.0));
        assert_eq!(
            parse_value("[0, -9.81, 0]"),
            ParamValue::Vector(vec![0.0, -9.81, 0.0])
        );
        assert_eq!(
            parse_value("pcg/mic0-pcg"),
            ParamValue::Text("pcg/mic0-pcg".into())
        );
    }
}
