//! A RON text read as a tree of values with their byte spans, comments and layout left where
//! they are: what saving needs to change one value of a hand-written graph file in place.

use std::ops::Range;

/// A value of the text and where it lies.
#[derive(Debug)]
pub struct Item {
    /// Bytes of the value (a named struct's name included).
    pub span: Range<usize>,
    /// What the value is.
    pub kind: Kind,
}

/// The shapes of RON values that saving looks into; anything else is an atom.
#[derive(Debug)]
pub enum Kind {
    /// A number, string, identifier or unit.
    Atom,
    /// `(name: value, …)`.
    Struct(Vec<Entry>),
    /// `(value, …)`, `Some(value)`.
    Tuple(Vec<Entry>),
    /// `[value, …]`.
    List(Vec<Entry>),
    /// `{key: value, …}`.
    Map(Vec<Entry>),
}

/// One field, map entry or element.
#[derive(Debug)]
pub struct Entry {
    /// The field's name or the map key's text (empty for elements).
    pub key: String,
    /// Where the entry starts (its key, else its value).
    pub start: usize,
    /// Where it ends, past its comma if it has one.
    pub end: usize,
    /// Whether a comma follows it.
    pub comma: bool,
    /// The value.
    pub value: Item,
}

impl Kind {
    /// The entries of a struct, tuple, list or map (none for an atom).
    pub fn entries(&self) -> &[Entry] {
        match self {
            Kind::Atom => &[],
            Kind::Struct(e) | Kind::Tuple(e) | Kind::List(e) | Kind::Map(e) => e,
        }
    }
}

/// Reads the one value of `text` (comments around it allowed); `None` when the text is not
/// RON this reader understands.
pub fn scan(text: &str) -> Option<Item> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    let item = s.value()?;
    s.skip();
    (s.i == s.b.len()).then_some(item)
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Skips whitespace and comments (`//` to the end of the line, nested `/* */`).
    fn skip(&mut self) {
        loop {
            match (self.peek(), self.b.get(self.i + 1)) {
                (Some(c), _) if c.is_ascii_whitespace() => self.i += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let mut depth = 0;
                    while self.i < self.b.len() {
                        if self.b[self.i..].starts_with(b"/*") {
                            depth += 1;
                            self.i += 2;
                        } else if self.b[self.i..].starts_with(b"*/") {
                            depth -= 1;
                            self.i += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            self.i += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip();
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn value(&mut self) -> Option<Item> {
        self.skip();
        let start = self.i;
        let kind = match self.peek()? {
            b'(' => self.paren()?,
            b'[' => Kind::List(self.items(b'[', b']')?),
            b'{' => self.map()?,
            b'"' => {
                self.string()?;
                Kind::Atom
            }
            b'\'' => {
                self.i += 1;
                while self.peek()? != b'\'' {
                    self.i += if self.peek()? == b'\\' { 2 } else { 1 };
                }
                self.i += 1;
                Kind::Atom
            }
            b'r' if matches!(self.b.get(self.i + 1), Some(b'"' | b'#')) => {
                self.raw_string()?;
                Kind::Atom
            }
            _ => {
                self.word()?;
                let after = self.i;
                self.skip();
                if self.peek() == Some(b'(') {
                    self.paren()?
                } else {
                    self.i = after;
                    Kind::Atom
                }
            }
        };
        Some(Item {
            span: start..self.i,
            kind,
        })
    }

    /// A number, identifier, `true`…: the characters RON allows in them.
    fn word(&mut self) -> Option<()> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || b"_.+-".contains(&c))
        {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    fn string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
    }

    fn raw_string(&mut self) -> Option<()> {
        self.i += 1;
        let hashes = self.b[self.i..].iter().take_while(|&&c| c == b'#').count();
        self.i += hashes;
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        let mut end = vec![b'"'];
        end.extend(std::iter::repeat_n(b'#', hashes));
        while !self.b[self.i..].starts_with(&end) {
            self.i += 1;
            self.peek()?;
        }
        self.i += end.len();
        Some(())
    }

    /// `(` … `)`: a struct when it starts with `name:`, else a tuple.
    fn paren(&mut self) -> Option<Kind> {
        let open = self.i;
        self.i += 1;
        self.skip();
        let name_start = self.i;
        let is_struct = self.word().is_some() && {
            let name_end = self.i;
            self.skip();
            let colon = self.peek() == Some(b':') && self.b.get(self.i + 1) != Some(&b':');
            self.i = name_end;
            colon
        };
        if !is_struct {
            self.i = open;
            return Some(Kind::Tuple(self.items(b'(', b')')?));
        }
        self.i = name_start;
        let mut fields = vec![];
        loop {
            self.skip();
            if self.peek()? == b')' {
                self.i += 1;
                return Some(Kind::Struct(fields));
            }
            let start = self.i;
            self.word()?;
            let key = String::from_utf8_lossy(&self.b[start..self.i]).into_owned();
            if !self.eat(b':') {
                return None;
            }
            let value = self.value()?;
            let comma = self.eat(b',');
            let end = if comma { self.i } else { value.span.end };
            fields.push(Entry {
                key,
                start,
                end,
                comma,
                value,
            });
            if !comma {
                return self.eat(b')').then_some(Kind::Struct(fields));
            }
        }
    }

    /// `open` value, … `close`.
    fn items(&mut self, open: u8, close: u8) -> Option<Vec<Entry>> {
        self.i += 1;
        debug_assert_eq!(self.b[self.i - 1], open);
        let mut items = vec![];
        loop {
            if self.eat(close) {
                return Some(items);
            }
            let value = self.value()?;
            let comma = self.eat(b',');
            let end = if comma { self.i } else { value.span.end };
            items.push(Entry {
                key: String::new(),
                start: value.span.start,
                end,
                comma,
                value,
            });
            if !comma {
                return self.eat(close).then_some(items);
            }
        }
    }

    fn map(&mut self) -> Option<Kind> {
        self.i += 1;
        let mut entries = vec![];
        loop {
            if self.eat(b'}') {
                return Some(Kind::Map(entries));
            }
            let key = self.value()?;
            if !self.eat(b':') {
                return None;
            }
            let value = self.value()?;
            let comma = self.eat(b',');
            let end = if comma { self.i } else { value.span.end };
            entries.push(Entry {
                key: String::from_utf8_lossy(&self.b[key.span.clone()]).into_owned(),
                start: key.span.start,
                end,
                comma,
                value,
            });
            if !comma {
                return self.eat(b'}').then_some(Kind::Map(entries));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_spans_past_comments() {
        let text = "// a graph\n(\n    a: 1, // one\n    b: [2, 3],\n    c: {\"k\": (4.0, 5.0)},\n    d: Some(r#\"x\"#),\n    /* gone: 6, */\n)\n";
        let item = scan(text).unwrap();
        let Kind::Struct(fields) = item.kind else {
            panic!("a struct")
        };
        let names: Vec<&str> = fields.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        let at = |i: usize| &text[fields[i].value.span.clone()];
        assert_eq!(at(0), "1");
        assert_eq!(at(1), "[2, 3]");
        assert_eq!(at(2), "{\"k\": (4.0, 5.0)}");
        assert_eq!(at(3), "Some(r#\"x\"#)");
        assert!(scan("(a: 1").is_none());
    }
}
