//! The network model's wired dragonflies: a Dragonfly+ and the dragonflies
//! wired by CODES's connection files (kept apart from model_build.rs,
//! which builds the rest).

use std::path::PathBuf;
use timewarp_models::network::{Dragonfly, ExitRule, Topology, Wiring};

use super::model_args::NetworkArgs;

impl NetworkArgs {
    /// The connection files a run reads: --intra-connections' and
    /// --inter-connections' paths, or their base names in --connections-dir.
    pub(super) fn connection_files(&self) -> Vec<PathBuf> {
        [&self.intra_connections, &self.inter_connections]
            .into_iter()
            .flatten()
            .map(|named| match (&self.connections_dir, named.file_name()) {
                (Some(dir), Some(base)) => dir.join(base),
                _ => named.clone(),
            })
            .collect()
    }

    /// A Dragonfly+: from connection files when given, else the standard
    /// one of --leaves-per-group, --spines-per-group, --global-links, --groups.
    pub(super) fn plus(&self) -> Result<Topology, String> {
        let (l, s, p, h) = (self.leaves_per_group, self.spines_per_group, self.terminals_per_router, self.global_links);
        if l + s > 255 {
            return Err(format!("--leaves-per-group {l} + --spines-per-group {s}: at most 255 routers per group"));
        }
        if self.intra_connections.is_none() && self.inter_connections.is_none() {
            let g = self.groups.unwrap_or(s * h + 1);
            return Ok(Topology::Dragonfly(Dragonfly::plus(l, s, p, h, g)?));
        }
        self.wired_as(l + s, Some(l))
    }

    /// A dragonfly wired by --intra-connections and --inter-connections
    /// (looked for in --connections-dir when given).
    pub(super) fn wired(&self) -> Result<Topology, String> {
        self.wired_as(self.routers_per_group, None)
    }

    /// [`NetworkArgs::wired`] with `a` routers per group, `leaves` of them
    /// leaves of a Dragonfly+.
    fn wired_as(&self, a: u32, leaves: Option<u32>) -> Result<Topology, String> {
        let p = self.terminals_per_router;
        let g = self.groups.ok_or("a dragonfly wired by connection files needs --groups")?;
        let (Some(intra), Some(inter)) = (&self.intra_connections, &self.inter_connections) else {
            return Err("--intra-connections and --inter-connections go together (a group's links and the global \
                        ones): give both"
                .into());
        };
        let paths = self.connection_files();
        for ((named, opt), path) in [(intra, "intra"), (inter, "inter")].into_iter().zip(&paths) {
            if !path.is_file() {
                let beside = if path != named { format!(" nor at {}", named.display()) } else { String::new() };
                return Err(format!(
                    "--{opt}-connections: no file at {}{beside}: give the folder that holds it with --connections-dir",
                    path.display()
                ));
            }
        }
        let rule = if self.connections_model == "dragonfly-dally" { ExitRule::Dally } else { ExitRule::Custom };
        let w = match leaves {
            Some(l) => Wiring::read_plus(&paths[0], &paths[1], a, g, l)?,
            None => Wiring::read(&paths[0], &paths[1], a, g, rule)?,
        };
        Ok(Topology::Dragonfly(Dragonfly::wired(a, p, g, w)))
    }
}
