//! The `.conf` form of a CODES configuration: its `LPGROUPS` and `PARAMS`
//! blocks of `key = value;` entries (`#` comments, lists in parentheses),
//! as CODES writes its configurations (`src/modelconfig/configparser.y`).

use super::{Conf, Entry};
use timewarp::text::printable;

/// A token and the line it starts on.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Sym(char),
}

fn lex(file: &str, text: &str) -> Result<Vec<(Tok, usize)>, String> {
    let mut out = Vec::new();
    let mut it = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = it.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => {
                while it.peek().is_some_and(|&c| c != '\n') {
                    it.next();
                }
            }
            '{' | '}' | '=' | ';' | '(' | ')' | ',' => out.push((Tok::Sym(c), line)),
            '"' => {
                let start = line;
                let mut s = String::new();
                loop {
                    match it.next() {
                        None => {
                            return Err(format!(
                                "{file}:{start}: a string opened here is never closed (a '\"' is missing)"
                            ))
                        }
                        Some('"') => break,
                        Some('\n') => {
                            return Err(format!(
                            "{file}:{start}: a string opened here runs past the end of the line (a '\"' is missing)"
                        ))
                        }
                        Some(c) => s.push(c),
                    }
                }
                out.push((Tok::Str(s), start));
            }
            c => {
                let mut s = String::from(c);
                while let Some(&c) = it.peek().filter(|c| !c.is_whitespace() && !"{}=;(),\"#".contains(**c)) {
                    s.push(c);
                    it.next();
                }
                out.push((Tok::Word(s), line));
            }
        }
    }
    Ok(out)
}

pub(super) fn parse(file: &str, text: &str) -> Result<Conf, String> {
    let toks = lex(file, text)?;
    let last = text.lines().count().max(1);
    let mut conf = Conf { file: file.to_string(), groups: Vec::new(), params: Vec::new() };
    let mut i = 0;
    let at = |i: usize| toks.get(i).map_or(last, |t| t.1);
    let show = |t: Option<&(Tok, usize)>| match t {
        None => "the end of the file".to_string(),
        Some((Tok::Word(w), _)) => format!("'{}'", printable(w)),
        Some((Tok::Str(s), _)) => format!("\"{}\"", printable(s)),
        Some((Tok::Sym(c), _)) => format!("'{c}'"),
    };
    // `{` after a block name.
    let open = |i: &mut usize, what: &str| -> Result<usize, String> {
        match toks.get(*i) {
            Some((Tok::Sym('{'), l)) => {
                *i += 1;
                Ok(*l)
            }
            t => Err(format!("{file}:{}: expected '{{' after {what}, found {}", at(*i), show(t))),
        }
    };
    // `key = value;` entries up to the block's `}`.
    let entries = |i: &mut usize, block: &str, opened: usize| -> Result<Vec<Entry>, String> {
        let mut out = Vec::new();
        loop {
            let (key, line) = match toks.get(*i) {
                Some((Tok::Sym('}'), _)) => {
                    *i += 1;
                    return Ok(out);
                }
                None => {
                    return Err(format!(
                        "{file}:{last}: the file ends inside {block} (opened on line {opened}): a '}}' is missing"
                    ))
                }
                Some((Tok::Word(w), l)) => (w.clone(), *l),
                t => return Err(format!("{file}:{}: expected a key or '}}' in {block}, found {}", at(*i), show(t))),
            };
            // The key as messages quote it.
            let shown = printable(&key);
            *i += 1;
            if toks.get(*i).map(|t| &t.0) != Some(&Tok::Sym('=')) {
                return Err(format!("{file}:{line}: expected '=' after {shown}, found {}", show(toks.get(*i))));
            }
            *i += 1;
            let value = |i: &mut usize| match toks.get(*i) {
                Some((Tok::Str(s) | Tok::Word(s), _)) => {
                    *i += 1;
                    Ok(s.clone())
                }
                t => Err(format!("{file}:{}: expected a value for {shown}, found {}", at(*i), show(t))),
            };
            let mut values = Vec::new();
            if toks.get(*i).map(|t| &t.0) == Some(&Tok::Sym('(')) {
                *i += 1;
                loop {
                    values.push(value(i)?);
                    match toks.get(*i) {
                        Some((Tok::Sym(','), _)) => *i += 1,
                        Some((Tok::Sym(')'), _)) => {
                            *i += 1;
                            break;
                        }
                        t => {
                            return Err(format!(
                                "{file}:{}: expected ',' or ')' in the list of {shown}, found {}",
                                at(*i),
                                show(t)
                            ))
                        }
                    }
                }
            } else {
                values.push(value(i)?);
            }
            if toks.get(*i).map(|t| &t.0) != Some(&Tok::Sym(';')) {
                return Err(format!("{file}:{line}: expected ';' after {shown} = ..., found {}", show(toks.get(*i))));
            }
            *i += 1;
            out.push(Entry { key, values, line });
        }
    };
    while i < toks.len() {
        match &toks[i] {
            (Tok::Word(w), _) if w == "LPGROUPS" => {
                i += 1;
                let opened = open(&mut i, "LPGROUPS")?;
                loop {
                    match toks.get(i) {
                        Some((Tok::Sym('}'), _)) => {
                            i += 1;
                            break;
                        }
                        Some((Tok::Word(name), l)) => {
                            let (name, l) = (name.clone(), *l);
                            i += 1;
                            let group = format!("LP group {}", printable(&name));
                            let o = open(&mut i, &group)?;
                            let e = entries(&mut i, &group, o)?;
                            conf.groups.push((name, l, e));
                        }
                        None => {
                            return Err(format!(
                            "{file}:{last}: the file ends inside LPGROUPS (opened on line {opened}): a '}}' is missing"
                        ))
                        }
                        t => {
                            return Err(format!(
                                "{file}:{}: expected an LP group name or '}}', found {}",
                                at(i),
                                show(t)
                            ))
                        }
                    }
                }
            }
            (Tok::Word(w), _) if w == "PARAMS" => {
                i += 1;
                let opened = open(&mut i, "PARAMS")?;
                conf.params.extend(entries(&mut i, "PARAMS", opened)?);
            }
            // The surrogate directors' blocks (CODES's union tests carry
            // them): not a part of the network, skipped as the YAML form's
            // `sections`.
            (Tok::Word(w), _) if w.ends_with("_SURROGATE") => {
                let block = printable(w).to_string();
                i += 1;
                let opened = open(&mut i, &block)?;
                entries(&mut i, &block, opened)?;
            }
            (t, l) => {
                return Err(format!(
                    "{file}:{l}: expected a block LPGROUPS {{ ... }} or PARAMS {{ ... }}, found {}",
                    show(Some(&(t.clone(), *l)))
                ))
            }
        }
    }
    if conf.groups.is_empty() {
        return Err(format!("{file}: no LPGROUPS block: a CODES model-net configuration names its LPs there"));
    }
    if conf.params.is_empty() {
        return Err(format!("{file}: no PARAMS block (or an empty one): the network's parameters are missing"));
    }
    Ok(conf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_blocks_lists_and_comments() {
        let c = parse(
            "x.conf",
            "LPGROUPS { G { repetitions=\"2\"; # c\n a=\"1\"; } }\nPARAMS { k=( \"a\", \"b\" ); n = \"3\" ; }\n",
        )
        .unwrap();
        assert_eq!(c.groups[0].2.len(), 2);
        assert_eq!(c.params[0].values, ["a", "b"]);
        assert_eq!((c.params[1].key.as_str(), c.params[1].line), ("n", 3));
    }
}
