//! Input quoted in messages: [`printable`] is what every error that echoes
//! a file's (or a command line's) text shows of it.

/// The most characters of one quoted piece of input a message shows.
pub const QUOTE_LIMIT: usize = 60;

/// `input` as an error message may show it: control characters escaped
/// (`\n`, `\t`, `\r`, `\u{1b}`), and so are the invisible characters that
/// reorder or hide text on a terminal (bidi embeddings, overrides and
/// isolates U+202A–U+202E, U+2066–U+2069, marks U+200E, U+200F, U+061C,
/// zero-width U+200B–U+200D, U+2060, U+FEFF, separators U+2028, U+2029);
/// at most [`QUOTE_LIMIT`] characters, then `…` and how many were left out.
///
/// Why: a message must read as what it is on the user's terminal — a
/// crafted file must not move text, clear the screen or fill it.
///
/// ```
/// use timewarp::text::printable;
/// assert_eq!(printable("a\tb\u{1b}[2J"), "a\\tb\\u{1b}[2J");
/// assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
/// assert_eq!(printable(&"x".repeat(100)), format!("{}… (40 more characters)", "x".repeat(60)));
/// ```
pub fn printable(input: &str) -> String {
    printable_within(input, QUOTE_LIMIT)
}

/// [`printable`] with another limit: for a whole message from another
/// parser (TOML, clap) that quotes input inside it.
pub fn printable_within(input: &str, limit: usize) -> String {
    let mut out = String::new();
    for (n, c) in input.chars().enumerate() {
        if n == limit {
            let more = input.chars().count() - n;
            out += &format!("… ({more} more characters)");
            break;
        }
        match c {
            '\n' => out += "\\n",
            '\t' => out += "\\t",
            '\r' => out += "\\r",
            c if c.is_control() || hidden(c) => out += &format!("\\u{{{:x}}}", c as u32),
            c => out.push(c),
        }
    }
    out
}

/// Characters that change how the text around them is shown, or show as nothing.
fn hidden(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("plain text, ünïcode: 名前"), "plain text, ünïcode: 名前");
        assert_eq!(printable("a\nb\rc\0d\u{7f}e\u{85}"), "a\\nb\\rc\\u{0}d\\u{7f}e\\u{85}");
        for c in ['\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{061c}', '\u{feff}'] {
            let s = printable(&format!("x{c}y"));
            assert_eq!(s, format!("x\\u{{{:x}}}y", c as u32));
        }
    }

    #[test]
    fn long_input_is_cut_at_the_limit_with_a_count() {
        let s = printable(&"é".repeat(70_000));
        assert_eq!(s.chars().filter(|&c| c == 'é').count(), QUOTE_LIMIT);
        assert!(s.ends_with("… (69940 more characters)"), "{s}");
        assert_eq!(printable(&"y".repeat(QUOTE_LIMIT)), "y".repeat(QUOTE_LIMIT));
    }
}
