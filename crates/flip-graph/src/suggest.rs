//! "Did you mean …": the known names nearest a mistyped one (Jaro-Winkler similarity, which
//! weighs a shared beginning, as in `pcg/mic0pcg` → `pcg/mic0-pcg`).

/// Similarity below which a name is not offered.
const CLOSE_ENOUGH: f64 = 0.8;
/// Names offered at most.
const OFFERED: usize = 3;

/// The names of `known` nearest `name`, nearest first (none when nothing is close).
pub fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let name = name.to_lowercase();
    let mut scored: Vec<(f64, &str)> = known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(&name, &k.to_lowercase()), k))
        .filter(|(s, _)| *s >= CLOSE_ENOUGH)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(OFFERED).map(|(_, k)| k).collect()
}

/// `; did you mean `a` or `b`?` for the [`nearest`] names, or nothing.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let near: Vec<String> = nearest(name, known)
        .into_iter()
        .map(|k| format!("`{k}`"))
        .collect();
    match near.as_slice() {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [rest @ .., last] => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_offered_nearest_first_and_far_ones_not() {
        let known = ["gravity", "g2p", "p2g", "pressure"];
        assert_eq!(nearest("gravty", known), ["gravity"]);
        assert_eq!(did_you_mean("gravty", known), "; did you mean `gravity`?");
        assert_eq!(did_you_mean("antigravity", ["emitter"]), "");
        let solvers = ["pcg/mic0-pcg", "pcg/ic0-pcg", "pcg/cg", "lcp/pgs"];
        assert_eq!(nearest("pcg/mic0pcg", solvers)[0], "pcg/mic0-pcg");
    }
}
