//! The input files a run read at start (traces, mapping files), as a
//! checkpoint records them: a resume rebuilds the model from the stored
//! command line, so it reads them again, and a file changed since would
//! continue the run's history from another input (into a wrong result or
//! a state the model cannot explain). Each file is recorded with its size
//! and a SHA-256 of its bytes (`sha256sum` shows the same), and a resume
//! checks every one before anything reads them.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::Error;

/// One input file as a checkpoint records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    /// What named it: an option and its value as the run had them
    /// (`--trace-dir tr`). A resume that gives that option another value
    /// reads another input; this one is then not checked.
    pub option: String,
    /// The file, as the run named it (relative to its working directory).
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// SHA-256 of its contents, in hex.
    pub sha256: String,
}

/// The files a run reads at start, with the option that names them: a
/// directory is given as the files read from it (a file added there that
/// the run would read shows up as one more).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFiles {
    /// The option and its value (`--trace-dir tr`).
    pub option: String,
    /// The files it makes the run read.
    pub files: Vec<PathBuf>,
}

impl InputFiles {
    /// The files `files` named by `option`.
    pub fn new(option: impl Into<String>, files: Vec<PathBuf>) -> Self {
        InputFiles { option: option.into(), files }
    }
}

impl Input {
    /// Reads `path` (named by `option`) and records its size and hash.
    pub fn of(option: &str, path: &Path) -> std::io::Result<Input> {
        let mut file = std::fs::File::open(path)?;
        let mut hash = Sha256::new();
        // In pieces: a trace may be larger than is worth holding twice.
        let mut buf = vec![0u8; 1 << 20];
        let mut bytes = 0u64;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hash.update(&buf[..n]);
            bytes += n as u64;
        }
        let sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(Input { option: option.to_string(), path: path.display().to_string(), bytes, sha256 })
    }
}

/// The fingerprints of `inputs` for a checkpoint to record. A file that
/// cannot be read is left out: the run that reads it fails on its own,
/// with its own message, before any checkpoint.
pub fn fingerprint(inputs: &[InputFiles]) -> Vec<Input> {
    inputs.iter().flat_map(|s| s.files.iter().filter_map(|f| Input::of(&s.option, f).ok())).collect()
}

/// Checks that the files `now` (those a resume from the checkpoint `ck`
/// would read) are those `recorded` there (`None`: written before
/// checkpoints recorded their inputs); returns their fingerprints, for the
/// resumed run's own checkpoints. Refused, naming the file: one recorded
/// and changed, gone, or unreadable; one that an option the resume shares
/// with the checkpoint's run now names and the run did not read (a file
/// added to a trace directory).
pub(crate) fn check(ck: &Path, recorded: Option<&[Input]>, now: &[InputFiles]) -> Result<Vec<Input>, Error> {
    let refuse = |problem: String| Error::Checkpoint {
        path: ck.display().to_string(),
        problem: format!("{problem}; restore the original file to resume from this checkpoint, or start a new run"),
    };
    let Some(recorded) = recorded else {
        return match now.iter().find_map(|s| s.files.first().map(|f| (s, f))) {
            None => Ok(Vec::new()),
            Some((s, f)) => Err(Error::Checkpoint {
                path: ck.display().to_string(),
                problem: format!(
                    "written before checkpoints recorded their input files, so whether {} ({}) is still what its \
                     run read cannot be checked; start a new run, or resume with the timewarp that wrote it",
                    f.display(),
                    s.option
                ),
            }),
        };
    };
    let mut found = Vec::new();
    for s in now {
        let before: Vec<&Input> = recorded.iter().filter(|r| r.option == s.option).collect();
        if before.is_empty() {
            // An option the resume gave another value (an engine option):
            // an input of the resumed run, not of the checkpoint's.
            found.extend(fingerprint(std::slice::from_ref(s)));
            continue;
        }
        for r in &before {
            let at = Path::new(&r.path);
            let was = format!("{} bytes, sha256 {}", r.bytes, short(&r.sha256));
            let what = format!("its input {} ({})", r.path, r.option);
            match Input::of(&r.option, at) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(refuse(format!("{what} is gone (it had {was})")))
                }
                Err(e) => return Err(refuse(format!("{what} cannot be read ({e})"))),
                Ok(n) if n.bytes != r.bytes || n.sha256 != r.sha256 => {
                    return Err(refuse(format!(
                        "{what} changed since the checkpoint was written (it had {was}, now {} bytes, sha256 {})",
                        n.bytes,
                        short(&n.sha256)
                    )))
                }
                Ok(_) => {}
            }
        }
        for f in &s.files {
            let shown = f.display().to_string();
            if !before.iter().any(|r| r.path == shown) {
                return Err(refuse(format!(
                    "{} ({}) is an input its run did not read (added since the checkpoint was written)",
                    shown, s.option
                )));
            }
        }
        // Each checked above: the same as recorded.
        found.extend(before.into_iter().cloned());
    }
    Ok(found)
}

/// The first 16 hex digits of a hash: enough to tell two files apart in a message.
fn short(hex: &str) -> &str {
    hex.get(..16).unwrap_or(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tw-inputs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_file_is_recorded_by_size_and_sha256() {
        let d = dir("sha");
        let f = d.join("a.txt");
        std::fs::write(&f, b"abc").unwrap();
        let i = Input::of("--x a.txt", &f).unwrap();
        assert_eq!(i.bytes, 3);
        // sha256("abc"), as `sha256sum` prints it.
        assert_eq!(i.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_resume_whose_inputs_differ_is_refused_naming_the_file() {
        let d = dir("check");
        let (a, b) = (d.join("rank.0.txt"), d.join("rank.1.txt"));
        std::fs::write(&a, "send 1 8 0\n").unwrap();
        std::fs::write(&b, "recv 0 0\n").unwrap();
        let ck = Path::new("ck/ckpt-1.twc");
        let opt = "--trace-dir d";
        let now = |files: Vec<PathBuf>| vec![InputFiles::new(opt, files)];
        let rec = fingerprint(&now(vec![a.clone(), b.clone()]));
        assert_eq!(rec.len(), 2);
        assert_eq!(check(ck, Some(&rec), &now(vec![a.clone(), b.clone()])).unwrap(), rec);
        // Changed (same size, other bytes).
        std::fs::write(&b, "recv 0 1\n").unwrap();
        let e = check(ck, Some(&rec), &now(vec![a.clone(), b.clone()])).unwrap_err().to_string();
        assert!(e.contains(&format!("{} ({opt}) changed", b.display())) && e.contains("start a new run"), "{e}");
        // Gone.
        std::fs::remove_file(&b).unwrap();
        let e = check(ck, Some(&rec), &now(vec![a.clone()])).unwrap_err().to_string();
        assert!(e.contains(&format!("{} ({opt}) is gone", b.display())), "{e}");
        // Added.
        let rec = fingerprint(&now(vec![a.clone()]));
        std::fs::write(&b, "recv 0 0\n").unwrap();
        let e = check(ck, Some(&rec), &now(vec![a.clone(), b.clone()])).unwrap_err().to_string();
        assert!(e.contains(&format!("{} ({opt}) is an input its run did not read", b.display())), "{e}");
        // An option the resume gave another value is not the checkpoint's input.
        let other = vec![InputFiles::new("--trace-dir e", vec![b.clone()])];
        assert_eq!(check(ck, Some(&rec), &other).unwrap(), fingerprint(&other));
        // A checkpoint that recorded nothing: only a run without inputs resumes.
        assert!(check(ck, None, &[InputFiles::new(opt, vec![])]).unwrap().is_empty());
        let e = check(ck, None, &now(vec![a.clone()])).unwrap_err().to_string();
        assert!(e.contains("written before checkpoints recorded their input files"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
