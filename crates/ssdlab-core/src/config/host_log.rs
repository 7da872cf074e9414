//! The workload's `host_log`: the jobs write through a log-structured store on the
//! host, which places their data in a zoned drive's zones and collects zones itself
//! (`workload/hostlog.rs`): `host_log = { streams = 8, gc_free_zones = 2 }`.

use serde::{Deserialize, Serialize};

/// A log-structured host store over a zoned drive (every job of the run writes
/// through it; the first job's table applies, the others must give the same or none).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HostLogConfig {
    /// Open zones the jobs' writes go to: job i writes to stream i mod `streams`
    /// (0, the default: one stream per job, as a store separating data by lifetime).
    #[serde(default)]
    pub streams: u32,
    /// A collection starts when fewer zones than this are empty or being reset
    /// (at least 2; default 2).
    #[serde(default = "default_gc_free_zones")]
    pub gc_free_zones: u32,
    /// A collection starts in the background when fewer zones than this are empty:
    /// the other jobs keep writing, and the one running it writes in its gaps, until
    /// the empty zones fall below `gc_free_zones` (0, the default: no background
    /// collection; else more than `gc_free_zones`).
    #[serde(default)]
    pub bg_free_zones: u32,
}

fn default_gc_free_zones() -> u32 {
    2
}
