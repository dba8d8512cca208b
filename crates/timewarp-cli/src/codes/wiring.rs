//! The connection files of a CODES `dragonfly_custom` or `dragonfly_dally`
//! configuration: `intra-group-connections` and `inter-group-connections`
//! become --intra-connections and --inter-connections. CODES opens the
//! paths from the folder it runs in; when a named file is not there, the
//! same base name is looked for beside the configuration file
//! (--connections-dir, which the command line may replace).

use std::path::Path;

use super::Map;
use timewarp::text::printable;

/// Adds the connection files' options; whether the network is wired by
/// them (both keys present; never for CODES's 1-D `dragonfly`, which does
/// not read them). One key without the other is refused.
pub(super) fn connections(m: &mut Map<'_>, model: &str, dir: &Path) -> Result<bool, String> {
    let keys = ["intra-group-connections", "inter-group-connections"];
    if model == "dragonfly" {
        for key in keys {
            m.ignore(key, "CODES's dragonfly model does not read connection files (dragonfly_custom, _dally do)");
        }
        return Ok(false);
    }
    let (intra, inter) = (m.get(keys[0]), m.get(keys[1]));
    let (Some(intra), Some(inter)) = (intra, inter) else {
        if let Some(e) = intra.or(inter) {
            return Err(format!(
                "{}: {} names one connection file; CODES's {model} reads both intra-group-connections and \
                 inter-group-connections: add the other",
                m.place(e),
                printable(&e.key)
            ));
        }
        return Ok(false);
    };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let mut beside = false;
    for (e, long) in [(intra, "intra-connections"), (inter, "inter-connections")] {
        let named = Path::new(&e.values[0]);
        let why = if named.is_file() {
            "read from there".to_string()
        } else {
            beside = true;
            let base = named.file_name().map_or(String::new(), |b| b.to_string_lossy().into_owned());
            format!("not there: {} beside the configuration (--connections-dir)", dir.join(base).display())
        };
        m.set(&e.key.clone(), Some(e), long, e.values[0].clone(), "taken", &why);
    }
    if beside {
        m.out.options.push(("connections-dir".into(), dir.display().to_string(), m.conf.file.clone()));
    }
    let rule = model.replace('_', "-");
    m.row("", String::new(), "", format!("--connections-model {rule} (how a packet picks its group's exit)"));
    m.out.options.push(("connections-model".into(), rule, m.conf.file.clone()));
    Ok(true)
}
