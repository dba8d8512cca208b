//! What a CODES configuration becomes: the options, and the table of
//! what was taken, converted and ignored that a run prints on stderr.

use timewarp::text::printable;

/// A row of the table: key, its value, where the value came from, what
/// became of it, and why.
pub(super) struct Row {
    pub(super) key: String,
    pub(super) value: String,
    /// `file`, `CODES default`, `timewarp` (a choice of ours) or, once the
    /// command line replaces the option, `command line`.
    pub(super) from: &'static str,
    pub(super) status: &'static str,
    pub(super) note: String,
    /// The option the row became (to mark it when the command line replaces it).
    pub(super) option: Option<String>,
}

/// What a configuration becomes.
pub(crate) struct Import {
    /// The CODES model.
    pub model: String,
    /// (long option, value, place) in order.
    pub options: Vec<(String, String, String)>,
    pub(super) rows: Vec<Row>,
}

impl Import {
    /// The table on stderr. Keys and values are cut to a column's width
    /// (the widths come from the file: one of 65,536 characters made
    /// `format!` panic).
    pub(crate) fn table(&self, file: &str) -> String {
        let (key, value) = (|r: &Row| cell(&r.key, 32), |r: &Row| cell(&r.value, 24));
        let w = self.rows.iter().map(|r| key(r).chars().count()).max().unwrap_or(0).max(3);
        let v = self.rows.iter().map(|r| value(r).chars().count()).max().unwrap_or(0).max(5);
        let mut s = format!("CODES configuration {file} (model {}):\n", self.model);
        s += &format!("  {:w$}  {:v$}  {:13}  {:9}  {}\n", "key", "value", "from", "", "as");
        for r in &self.rows {
            // A long note goes on under its column, so every line stays short.
            let mut lines = wrap(&r.note, 64).into_iter();
            let first = lines.next().unwrap_or_default();
            s += &format!("  {:w$}  {:v$}  {:13}  {:9}  {first}\n", key(r), value(r), r.from, r.status);
            for more in lines {
                s += &format!("  {:w$}  {:v$}  {:13}  {:9}    {more}\n", "", "", "", "");
            }
        }
        s
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word is a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match out.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

/// `text` shown in a column at most `width` characters wide: escaped, and
/// cut with `…` where longer.
fn cell(text: &str, width: usize) -> String {
    let t = printable(text);
    if t.chars().count() <= width {
        return t;
    }
    t.chars().take(width - 1).chain(['…']).collect()
}
