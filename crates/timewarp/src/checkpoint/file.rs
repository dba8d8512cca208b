//! The checkpoint file: a versioned header, the snapshot, a checksum.
//!
//! Layout: the magic `TWCKPT\r\n`, the format version (u32 LE), the header
//! length (u32 LE) and the header as JSON (readable with `head -c`), the
//! body in postcard (every LP record, every pending event, the statistics so
//! far), and a CRC-32 of everything before it (u32 LE). Files are written
//! to a temporary name, synced and renamed, so a crash leaves either the old
//! set of checkpoints or the new one, never half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::DIGEST_VERSION;
use crate::error::Error;
use crate::key::Key;
use crate::lp::Lp;
use crate::model::Model;
use crate::stats::Stats;

use crate::segment::{Pending, Snapshot};

use super::inputs::{self, Input, InputFiles};

/// First bytes of every checkpoint file.
const MAGIC: &[u8; 8] = b"TWCKPT\r\n";

/// The format this build writes; it reads this one and older ones it knows.
/// 2: the header records the run's input files ([`Header::inputs`]); a
/// file of format 1 has none recorded.
pub const FORMAT_VERSION: u32 = 2;

/// What a checkpoint says about itself (the JSON header of the file).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    /// File format version.
    pub format: u32,
    /// Version of the timewarp that wrote it.
    pub engine: String,
    /// Model name.
    pub model: String,
    /// The model's parameters as its front end gave them (enough to rebuild it).
    pub params: serde_json::Value,
    /// Hash of `params` (hex), to refuse a resume with other parameters.
    pub params_hash: String,
    /// The front end's command line of the run (the `timewarp` command:
    /// what followed `timewarp run`), to rebuild the model.
    #[serde(default)]
    pub command: Vec<String>,
    /// Seed of the run.
    pub seed: u64,
    /// GVT at the cut (the smallest pending key).
    pub cut: Key,
    /// End time of the run.
    pub end: f64,
    /// Number of LPs.
    pub lps: u64,
    /// Pending events at the cut.
    pub events: u64,
    /// Events committed before the cut.
    pub committed_events: u64,
    /// Mode, threads and processes of the run that wrote it (a resume may use others).
    pub sync: String,
    /// Worker threads per process of that run.
    pub threads: usize,
    /// Processes of that run.
    pub ranks: u64,
    /// [`DIGEST_VERSION`] of the run that wrote it: its LP records carry
    /// partial digests, which a resume continues only under the same
    /// definition (0: written before versions were recorded).
    #[serde(default)]
    pub digest_version: u32,
    /// The input files its run read at start, each with its size and hash,
    /// which a resume checks before reading them again (`None`: written
    /// before checkpoints recorded them, format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<Input>>,
}

/// Hash (hex) of model parameters, as the header stores it.
pub fn params_hash(params: &serde_json::Value) -> String {
    format!("{:016x}", crate::digest::hash_value(&params.to_string()))
}

/// The body as written (borrowing the snapshot): what [`write`] writes by
/// hand, and [`encode`] at once.
#[derive(Serialize)]
struct BodyOut<'a, S, Msg> {
    lps: &'a [Lp<S>],
    events: &'a [Pending<Msg>],
    stats: &'a Stats,
}

/// The body as read.
#[derive(Deserialize)]
struct BodyIn<S, Msg> {
    lps: Vec<Lp<S>>,
    events: Vec<Pending<Msg>>,
    stats: Stats,
}

/// The snapshot in the file's body encoding (to send it to other processes).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn encode<M: Model>(snap: &Snapshot<M>) -> Result<Vec<u8>, Error> {
    let mut head = postcard::to_allocvec(&snap.cut).map_err(|e| Error::Encode(format!("a snapshot: {e}")))?;
    let body = BodyOut { lps: &snap.lps, events: &snap.events, stats: &snap.stats };
    let rest = postcard::to_allocvec(&body).map_err(|e| Error::Encode(format!("a snapshot: {e}")))?;
    head.extend(rest);
    Ok(head)
}

/// The snapshot [`encode`] made.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn decode<M: Model>(bytes: &[u8]) -> Result<Snapshot<M>, Error> {
    let bad = |e: postcard::Error| Error::Internal(format!("a snapshot from rank 0 is unreadable: {e}"));
    let (cut, rest): (Key, &[u8]) = postcard::take_from_bytes(bytes).map_err(bad)?;
    let body: BodyIn<M::State, M::Msg> = postcard::from_bytes(rest).map_err(bad)?;
    Ok(Snapshot { cut, lps: body.lps, events: body.events, stats: body.stats })
}

/// Why writing the body failed: the disk (full, gone) or the encoding.
#[derive(Debug)]
enum WriteError {
    Io(std::io::Error),
    Encode(postcard::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Writes `items` as postcard writes a sequence (its length as a varint,
/// then each item), encoding many items at a time into one buffer.
fn write_seq<T: Serialize>(w: &mut impl Write, items: &[T]) -> Result<(), WriteError> {
    let mut len = [0u8; 10];
    let n = postcard::to_slice(&(items.len() as u64), &mut len).map_err(WriteError::Encode)?.len();
    w.write_all(&len[..n])?;
    let mut buf = vec![0u8; 1 << 16];
    let mut used = 0;
    for item in items {
        loop {
            match postcard::to_slice(item, &mut buf[used..]) {
                Ok(out) => {
                    used += out.len();
                    break;
                }
                Err(postcard::Error::SerializeBufferFull) if used > 0 => {
                    w.write_all(&buf[..used])?;
                    used = 0;
                }
                // One item larger than the buffer: a buffer of its own.
                Err(postcard::Error::SerializeBufferFull) => {
                    let v = postcard::to_allocvec(item).map_err(WriteError::Encode)?;
                    w.write_all(&v)?;
                    break;
                }
                Err(e) => return Err(WriteError::Encode(e)),
            }
        }
    }
    Ok(w.write_all(&buf[..used])?)
}

/// A writer that keeps a CRC-32 of what passes through.
struct Crc<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(b)?;
        self.crc.update(&b[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `snap` with `header` to `path` atomically (temporary file, sync,
/// rename); on failure the temporary file is removed and the error names
/// `path` and the system's reason (a full disk: "No space left on device").
pub(crate) fn write<M: Model>(path: &Path, header: &Header, snap: &Snapshot<M>) -> Result<(), Error> {
    write_to(path, header, snap, |f| Box::new(f))
}

/// [`write`], through `wrap` (tests: a disk that fills up).
pub(crate) fn write_to<M: Model>(
    path: &Path,
    header: &Header,
    snap: &Snapshot<M>,
    wrap: impl FnOnce(std::fs::File) -> Box<dyn Write>,
) -> Result<(), Error> {
    let fail = |what: &str, e: &dyn std::fmt::Display| Error::Checkpoint {
        path: path.display().to_string(),
        problem: format!("cannot {what}: {e}"),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let file = std::fs::File::create(&tmp).map_err(|e| fail("create the file", &e))?;
    let sync = file.try_clone();
    let written = (|| -> Result<(), WriteError> {
        // The checksum sees the buffer's large writes, not postcard's small ones.
        let mut w =
            std::io::BufWriter::with_capacity(1 << 20, Crc { inner: wrap(file), crc: crc32fast::Hasher::new() });
        let head = serde_json::to_vec(header).map_err(|e| WriteError::Io(e.into()))?;
        w.write_all(MAGIC)?;
        w.write_all(&FORMAT_VERSION.to_le_bytes())?;
        w.write_all(&(head.len() as u32).to_le_bytes())?;
        w.write_all(&head)?;
        // The body as postcard encodes `BodyOut`, a sequence at a time, in
        // chunks encoded into a buffer (much faster than byte-wise writes).
        write_seq(&mut w, &snap.lps)?;
        write_seq(&mut w, &snap.events)?;
        // Not `postcard::to_io`: it reports any write error as a full buffer.
        w.write_all(&postcard::to_allocvec(&snap.stats).map_err(WriteError::Encode)?)?;
        let Crc { inner: mut file, crc } = w.into_inner().map_err(|e| e.into_error())?;
        file.write_all(&crc.finalize().to_le_bytes())?;
        file.flush()?;
        Ok(sync?.sync_all()?)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(match e {
            WriteError::Io(e) => {
                let dir = path.parent().map_or(String::from("."), |d| d.display().to_string());
                let fix = if full(&e) {
                    format!("free space in {dir} or give another --checkpoint-dir")
                } else {
                    format!("check that {dir} is writable or give another --checkpoint-dir")
                };
                fail("write it", &format!("{e}; {fix}"))
            }
            WriteError::Encode(e) => fail("encode the model's states and events", &e),
        });
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("rename the temporary file", &e));
    }
    // The rename itself must reach the disk too.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Whether `e` says the disk is full (`ErrorKind::StorageFull` needs Rust 1.83).
fn full(e: &std::io::Error) -> bool {
    const ENOSPC: i32 = 28; // Linux, macOS and the BSDs alike
    const ERROR_DISK_FULL: i32 = 112;
    let code = if cfg!(windows) { ERROR_DISK_FULL } else { ENOSPC };
    e.raw_os_error() == Some(code)
}

/// A checkpoint file read and checked, its body not yet decoded (that needs
/// the model's types).
#[derive(Debug)]
pub struct File {
    /// Where it was read from.
    pub path: PathBuf,
    /// What it says about itself.
    pub header: Header,
    bytes: Vec<u8>,
    body: std::ops::Range<usize>,
}

impl File {
    /// Reads `path` and checks its magic, version and checksum.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("tw-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let p = dir.join("not-a-checkpoint.twc");
    /// std::fs::write(&p, b"hello").unwrap();
    /// let e = timewarp::checkpoint::File::open(&p).unwrap_err();
    /// assert!(e.to_string().contains("not a timewarp checkpoint"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn open(path: &Path) -> Result<File, Error> {
        let bad = |problem: String| Error::Checkpoint { path: path.display().to_string(), problem };
        let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad("not a timewarp checkpoint (it does not start with the checkpoint magic)".into()));
        }
        let fixed = MAGIC.len() + 8;
        if bytes.len() < fixed + 4 {
            return Err(bad(format!("truncated: {} bytes, not even a header", bytes.len())));
        }
        let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let format = u32_at(MAGIC.len());
        if format > FORMAT_VERSION {
            return Err(bad(format!(
                "written in checkpoint format {format}, newer than the format {FORMAT_VERSION} this timewarp ({}) \
                 reads; resume it with the timewarp that wrote it or a newer one",
                env!("CARGO_PKG_VERSION")
            )));
        }
        if format == 0 {
            return Err(bad("format version 0 does not exist: the file is damaged".into()));
        }
        let head_len = u32_at(MAGIC.len() + 4) as usize;
        let trailer = bytes.len() - 4;
        let stored = u32_at(trailer);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[..trailer]);
        if crc.finalize() != stored {
            return Err(bad(
                "damaged: its checksum does not match its contents (truncated or changed since it was written); \
                 use an earlier checkpoint"
                    .into(),
            ));
        }
        if fixed + head_len > trailer {
            return Err(bad("damaged: the header runs past the end of the file".into()));
        }
        let header: Header =
            serde_json::from_slice(&bytes[fixed..fixed + head_len]).map_err(|e| bad(format!("damaged header: {e}")))?;
        Ok(File { path: path.to_path_buf(), header, bytes, body: fixed + head_len..trailer })
    }

    /// Checks that `now`, the files a resume from this checkpoint reads at
    /// start, are those its run read: refused, naming the file, when one
    /// changed, is gone or was added (or, for a checkpoint that recorded
    /// none, when there are any). Call it before reading them. Returns
    /// their fingerprints, for the resumed run's [`Plan`](super::Plan).
    pub fn check_inputs(&self, now: &[InputFiles]) -> Result<Vec<Input>, Error> {
        inputs::check(&self.path, self.header.inputs.as_deref(), now)
    }

    /// Checks that this checkpoint is of `model` (and, if given, of these
    /// parameters), decodes its snapshot and checks that what it holds is
    /// consistent (a file edited and its checksum recomputed is refused).
    pub fn load<M: Model>(&self, model: &M, params: Option<&serde_json::Value>) -> Result<Snapshot<M>, Error> {
        let bad = |problem: String| Error::Checkpoint { path: self.path.display().to_string(), problem };
        let h = &self.header;
        if h.model != model.name() {
            return Err(bad(format!("a checkpoint of model {}, not of {}", h.model, model.name())));
        }
        // The header is checked as a whole, not only against the hash it
        // carries (an edited file may have a recomputed checksum).
        if params_hash(&h.params) != h.params_hash {
            return Err(bad(format!(
                "damaged: its header's params do not match their hash {} (edited?); use an earlier checkpoint",
                h.params_hash
            )));
        }
        if let Some(p) = params {
            if params_hash(p) != h.params_hash || p != &h.params {
                return Err(bad(format!(
                    "taken with other model parameters ({}) than these ({p}); a resume continues the same model: \
                     leave the model's options out",
                    h.params
                )));
            }
        }
        if h.digest_version != DIGEST_VERSION {
            return Err(bad(digest_refusal(h.digest_version)));
        }
        if h.lps != model.num_lps() as u64 {
            return Err(bad(format!("holds {} LPs but the model has {}", h.lps, model.num_lps())));
        }
        let body: BodyIn<M::State, M::Msg> = postcard::from_bytes(&self.bytes[self.body.clone()])
            .map_err(|e| bad(format!("its contents do not decode as model {}'s states and events: {e}", h.model)))?;
        if body.lps.len() as u64 != h.lps || body.events.len() as u64 != h.events {
            return Err(bad("damaged: the header and the contents disagree".into()));
        }
        let mut snap = Snapshot { cut: h.cut, lps: body.lps, events: body.events, stats: body.stats };
        snap.fits(model, model.num_lps())?;
        // The body's cut: the header's went through JSON, which may round its last bit.
        snap.cut = check(h, &snap).map_err(|what| bad(format!("damaged: {what}; use an earlier checkpoint")))?;
        Ok(snap)
    }
}

/// Why a checkpoint of digest version `theirs` cannot be resumed here.
fn digest_refusal(theirs: u32) -> String {
    let unknown = if theirs == 0 { " (unknown: written before checkpoints recorded it)" } else { "" };
    format!(
        "its LPs' partial digests are of digest version {theirs}{unknown}, not version {DIGEST_VERSION} as this \
         timewarp ({}) computes them; resuming would mix the two definitions: rerun from the start, or resume \
         with the timewarp that wrote it",
        env!("CARGO_PKG_VERSION")
    )
}

/// What is wrong with `snap` and its `header`, if anything: what a run
/// would take on trust (times, keys, LP ids, counts) checked before it
/// does, so a damaged or edited file is refused instead of misleading a
/// kernel (into an internal error, or a run without end). Returns the cut:
/// the earliest pending key.
fn check<M: Model>(h: &Header, snap: &Snapshot<M>) -> Result<Key, String> {
    let end = snap.stats.end_time;
    if !(end.is_finite() && end > 0.0) {
        return Err(format!("its run's end time {end} is not a virtual time > 0"));
    }
    if through_json(&h.end)?.to_bits() != through_json(&end)?.to_bits() {
        return Err(format!("the header's end time {} and the contents' {end} disagree", h.end));
    }
    if h.committed_events != snap.stats.committed_events {
        return Err(format!(
            "the header's {} committed events and the contents' {} disagree",
            h.committed_events, snap.stats.committed_events
        ));
    }
    if h.threads == 0 || h.ranks == 0 {
        return Err(format!("written by {} thread(s) on {} process(es)", h.threads, h.ranks));
    }
    let lps = snap.lps.len() as u64;
    let mut ties = Vec::with_capacity(snap.events.len());
    let mut first = Key::INF;
    for e in &snap.events {
        let k = e.key;
        if !(k.time.is_finite() && k.time >= 0.0 && k.time <= end) {
            return Err(format!("an event for LP {} at time {}, not in [0, {end}] (the run's end)", e.dst, k.time));
        }
        if k.tie >> 32 >= lps {
            return Err(format!("an event at time {} sent by LP {}, beyond its {lps} LPs", k.time, k.tie >> 32));
        }
        first = first.min(k);
        ties.push(k.tie);
    }
    if through_json(&first)? != through_json(&h.cut)? {
        return Err(format!("the header's cut {:?} is not its earliest pending event {first:?}", h.cut));
    }
    ties.sort_unstable();
    if let Some(w) = ties.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two pending events with the same key (LP {}, send {})", w[0] >> 32, w[0] as u32));
    }
    let mut committed = 0u64;
    for (id, lp) in snap.lps.iter().enumerate() {
        // -1: nothing committed yet.
        if !(lp.last_time == -1.0 || (lp.last_time >= 0.0 && lp.last_time <= h.cut.time)) {
            return Err(format!(
                "LP {id} committed an event at time {}, after the cut at {}",
                lp.last_time, h.cut.time
            ));
        }
        committed = committed.saturating_add(lp.committed);
    }
    if committed != snap.stats.committed_events {
        return Err(format!(
            "its LPs committed {committed} events, its statistics say {}",
            snap.stats.committed_events
        ));
    }
    Ok(first)
}

/// `x` as the header holds it: JSON may round a float's last bit, so
/// header and body values compare after the same trip.
fn through_json<T: Serialize + serde::de::DeserializeOwned>(x: &T) -> Result<T, String> {
    serde_json::to_string(x).and_then(|s| serde_json::from_str(&s)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_written_in_chunks_decode_as_postcard_sequences() {
        // Small items across several buffers, and one item larger than a buffer.
        let mut items: Vec<Vec<u32>> = (0..30_000u32).map(|i| vec![i; (i % 5) as usize]).collect();
        items.insert(12_345, (0..40_000).collect());
        let mut out = Vec::new();
        write_seq(&mut out, &items).unwrap();
        let back: Vec<Vec<u32>> = postcard::from_bytes(&out).unwrap();
        assert_eq!(back, items);
        assert_eq!(out, postcard::to_allocvec(&items).unwrap());
    }
}
