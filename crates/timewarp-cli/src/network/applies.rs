//! Which of the network model's options apply to a configuration: the
//! report shows the configuration without the others (no `dims` on a
//! dragonfly, no `radix` on a torus, no `halo-bytes` under synthetic
//! traffic). The statistics file keeps them all: it reproduces the run.

use serde_json::{Map, Value};

/// Whether network option `option` (its long name) applies to the
/// configuration `model` (a statistics file's `config.model`). An option
/// this table does not know applies.
pub(crate) fn network_option_applies(option: &str, model: &Map<String, Value>) -> bool {
    let s = |k: &str| model.get(k).and_then(Value::as_str).unwrap_or_default();
    let (topology, workload) = (s("topology"), s("workload"));
    let synthetic = matches!(workload, "" | "synthetic");
    let generated = matches!(workload, "allreduce" | "halo3d" | "alltoall");
    match option {
        "dims" => matches!(topology, "torus" | "mesh"),
        "nodes" => matches!(topology, "hypercube" | "fattree"),
        "radix" | "levels" | "top-uplinks" | "level-bandwidth" | "level-latency" | "level-buffer-packets" => {
            topology == "fattree"
        }
        // A Dragonfly+ is a dragonfly of leaves and spines: it has every
        // dragonfly option but the flat group's size and UGAL-G's.
        "routers-per-group" | "ugal-g-period" => topology == "dragonfly",
        "terminals-per-router" => matches!(topology, "dragonfly" | "dragonfly-plus" | "slimfly"),
        "global-links"
        | "groups"
        | "global-link-latency"
        | "local-bandwidth"
        | "local-latency"
        | "local-buffer-packets"
        | "global-bandwidth"
        | "global-buffer-packets"
        | "ugal-threshold" => matches!(topology, "dragonfly" | "dragonfly-plus"),
        "leaves-per-group" | "spines-per-group" => topology == "dragonfly-plus",
        // Delta also on CODES's wired dragonflies (Dally's scoring, custom's minimal-bias).
        "route-scoring" => {
            topology == "dragonfly-plus" || (topology == "dragonfly" && !s("intra-connections").is_empty())
        }
        "shift" => synthetic && s("traffic") == "shift",
        "hotspot-nodes" | "hotspot-fraction" => synthetic && s("traffic") == "hotspot",
        "permutation-seed" => synthetic && s("traffic") == "permutation",
        "burst-length" => synthetic && s("arrivals") == "bursty",
        "traffic" | "arrivals" | "load" | "interarrival" | "messages" => synthetic,
        "iterations" | "compute-ns" | "ranks" => generated,
        "halo-bytes" => workload == "halo3d",
        "trace-dir" => matches!(workload, "trace" | "dumpi"),
        "dumpi-time" | "compute-scale" => workload == "dumpi",
        "rank-mapping" => !synthetic,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::network_option_applies as applies;
    use serde_json::json;

    #[test]
    fn topology_and_workload_options_apply_to_their_own_only() {
        let m = |v: serde_json::Value| v.as_object().unwrap().clone();
        let dragonfly = m(json!({"topology": "dragonfly", "workload": "synthetic", "traffic": "uniform"}));
        assert!(!applies("dims", &dragonfly) && !applies("radix", &dragonfly) && !applies("shift", &dragonfly));
        assert!(applies("routers-per-group", &dragonfly) && applies("load", &dragonfly));
        assert!(applies("link-latency", &dragonfly), "an option of every topology");
        let torus = m(json!({"topology": "torus", "workload": "dumpi", "traffic": "shift"}));
        assert!(applies("dims", &torus) && !applies("groups", &torus) && !applies("nodes", &torus));
        assert!(applies("dumpi-time", &torus) && !applies("load", &torus) && !applies("shift", &torus));
        assert!(!applies("halo-bytes", &torus) && applies("rank-mapping", &torus));
    }

    /// A Dragonfly+ shows the dragonfly options it has (they were hidden
    /// behind `topology == "dragonfly"`), and its own; a dragonfly not those.
    #[test]
    fn dragonfly_plus_shows_its_dragonfly_options() {
        let m = |v: serde_json::Value| v.as_object().unwrap().clone();
        let plus = m(json!({"topology": "dragonfly-plus", "workload": "synthetic"}));
        for o in ["ugal-threshold", "global-links", "groups", "terminals-per-router", "global-link-latency"] {
            assert!(applies(o, &plus), "{o}");
        }
        assert!(applies("leaves-per-group", &plus) && applies("route-scoring", &plus));
        assert!(!applies("routers-per-group", &plus) && !applies("ugal-g-period", &plus));
        let dragonfly = m(json!({"topology": "dragonfly", "workload": "synthetic"}));
        assert!(!applies("route-scoring", &dragonfly) && !applies("spines-per-group", &dragonfly));
        let slimfly = m(json!({"topology": "slimfly", "workload": "synthetic"}));
        assert!(applies("terminals-per-router", &slimfly) && !applies("groups", &slimfly));
    }
}
