//! Text that came from a plugin (or a file) and is about to be printed or drawn: one helper to
//! make it harmless, and the id alphabet.
//!
//! [`sanitize`] escapes every control character (C0, DEL, C1: newlines, carriage returns, the
//! ESC that starts terminal escape sequences) and the Unicode bidirectional overrides, so a
//! plugin cannot forge output lines or recolour a terminal. The host applies it to every string
//! it reads from a plugin (descriptions, error messages, log lines) and to file paths in its
//! errors; the CLI and the editor use it for anything else they print.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal or a label as is.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with control characters and bidirectional overrides escaped as `\n`, `\t`, `\e`,
/// `\u{…}`. Borrows when nothing needed escaping.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path, sanitised for display.
pub fn path(p: &std::path::Path) -> String {
    sanitize(&p.display().to_string()).into_owned()
}

/// Whether `id` is a valid plugin or algorithm id: `[a-z0-9_-]{1,32}`.
pub fn is_valid_id(id: &str) -> bool {
    valid(id, |b| b == b'-' || b == b'_')
}

/// Whether `name` is a valid parameter name: `[a-z0-9_]{1,32}`.
pub fn is_valid_param_name(name: &str) -> bool {
    valid(name, |b| b == b'_')
}

fn valid(s: &str, extra: impl Fn(u8) -> bool) -> bool {
    (1..=crate::MAX_ID_LEN).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || extra(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_escapes_are_escaped() {
        assert!(matches!(sanitize("MIC(0) PCG"), Cow::Borrowed(_)));
        assert_eq!(
            sanitize("a\nerror: forged\x1b[31mred\r\u{7f}\u{202e}"),
            "a\\nerror: forged\\e[31mred\\r\\u{7f}\\u{202e}"
        );
        assert_eq!(sanitize("tab\there \u{9b}"), "tab\\there \\u{9b}");
    }

    #[test]
    fn ids_follow_the_documented_alphabet() {
        for ok in ["pcg", "mic0-pcg", "fas_mg", "a", &"x".repeat(32)] {
            assert!(is_valid_id(ok), "{ok}");
        }
        for bad in ["", "PCG", "a/b", "a b", "é", &"x".repeat(33), "a\n"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
        assert!(is_valid_param_name("rel_tolerance"));
        assert!(!is_valid_param_name("rel-tolerance"));
    }
}
