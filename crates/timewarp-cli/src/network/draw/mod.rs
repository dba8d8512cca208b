//! The network's figures, over `draw/`'s kit: a run's links' busy
//! fractions as a heatmap (`links.rs`), its topology with each link
//! coloured so (`map.rs`), and its time series (`time_series.rs`).

pub(crate) mod links;
pub(crate) mod map;
pub(crate) mod time_series;
