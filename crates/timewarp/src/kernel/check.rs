//! `--sync check`: forward, reverse (or restore what was saved), compare with a snapshot, forward again.

use crate::digest::hash_value;
use crate::error::Error;
use crate::key::Key;
use crate::lp::Lp;
use crate::model::{Model, Outgoing, Rollback};
use serde::Serialize;
use serde_json::Value;

use super::{forward, Setup};

/// Processes one event the check-mode way. On success the event has been
/// applied once (its sends are in `out`, its undo record in `undo`) exactly
/// as the sequential kernel would.
#[allow(clippy::too_many_arguments)]
pub(crate) fn checked_forward<M: Model>(
    model: &M,
    s: &Setup,
    lp: &mut Lp<M::State>,
    dst: u32,
    key: &Key,
    msg: &M::Msg,
    undo: &mut M::Undo,
    out: &mut Vec<Outgoing<M::Msg>>,
    first: &mut Vec<Outgoing<M::Msg>>,
    journal: &mut crate::trail::Trail<M::Undo>,
) -> Result<u32, Error> {
    let snapshot = lp.state.clone();
    let (seq, counters) = (lp.seq, lp.counters);
    let before = hash_value(&snapshot);
    let fail = |detail: String| Error::Check {
        model: model.name().to_string(),
        lp: dst,
        time: key.time,
        src: key.src(),
        detail,
    };

    first.clear();
    let mut first_undo = M::Undo::default();
    journal.clear();
    let rollback = model.rollback();
    let saving = (rollback == Rollback::Incremental).then_some(&mut *journal);
    forward(model, s, lp, dst, key, msg, &mut first_undo, first, saving)?;
    match rollback {
        Rollback::Reverse => model.reverse(&mut lp.state, msg, &first_undo, dst, key.time),
        Rollback::StateSaving => lp.state = snapshot.clone(),
        Rollback::Incremental => {
            while let Some(entry) = journal.pop() {
                model.restore(&mut lp.state, &entry);
            }
            if M::RESTORE_RECORD {
                model.restore(&mut lp.state, &first_undo);
            }
        }
    }
    lp.seq = seq;
    lp.counters = counters;
    if hash_value(&lp.state) != before {
        let what = match rollback {
            Rollback::Incremental => "the saved entries (Ctx::save, Model::restore) did not restore the state",
            _ => "reverse handler did not restore the state",
        };
        return Err(fail(format!("{what}: {}", diff(&snapshot, &lp.state))));
    }

    let past_end = forward(model, s, lp, dst, key, msg, undo, out, None)?;
    let again = &out[out.len() - first.len().min(out.len())..];
    let same = again.len() == first.len()
        && first
            .iter()
            .zip(again)
            .all(|(a, b)| a.dst == b.dst && a.key == b.key && hash_value(&a.msg) == hash_value(&b.msg));
    if !same {
        return Err(fail(format!(
            "forward handler is not repeatable after reverse: first run sent {:?}, second run sent {:?}",
            first.iter().map(|o| (o.dst, o.key.time)).collect::<Vec<_>>(),
            again.iter().map(|o| (o.dst, o.key.time)).collect::<Vec<_>>()
        )));
    }
    Ok(past_end)
}

/// Describes where two serialisable values differ: `path: before -> after`.
pub(crate) fn diff<T: Serialize>(before: &T, after: &T) -> String {
    let a = serde_json::to_value(before).unwrap_or(Value::Null);
    let b = serde_json::to_value(after).unwrap_or(Value::Null);
    let mut out = Vec::new();
    walk("state", &a, &b, &mut out);
    if out.is_empty() {
        "states differ but serialise alike".into()
    } else {
        out.join("; ")
    }
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= 8 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => walk(&format!("{path}.{k}"), va, vb, out),
                    None => out.push(format!("{path}.{k}: {va} -> (missing)")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                walk(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} -> {b}")),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[derive(serde::Serialize)]
    struct S {
        a: u32,
        b: Vec<f64>,
    }

    #[test]
    fn diff_names_the_field() {
        let d = diff(&S { a: 1, b: vec![1.0, 2.0] }, &S { a: 1, b: vec![1.0, 2.5] });
        assert_eq!(d, "state.b[1]: 2.0 -> 2.5");
    }
}
