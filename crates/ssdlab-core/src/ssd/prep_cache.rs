//! A cache of one prepared drive per process, for sweeps that run many workloads on
//! the same (device, state, seed): preparing an aged TB-class drive takes seconds,
//! cloning its FTL a fraction of that. Opt-in (`reuse_prep`), it holds the most
//! recently prepared drive only (a new key frees the old one first), and never a
//! drive with the read oracle. This is the one piece of process-wide state in the
//! core: a run's result does not depend on it (a cached drive is the same value
//! `prepare` would build again: preparation is a pure function of its key), only
//! its wall time does. While a drive is cached, the map arrays of finished runs are
//! recycled for the next clone (`ftl::recycle_map_arrays`); `clear` frees both.

use crate::config::DeviceConfig;
use crate::ftl::prep::{prepare_with_area, DriveState, PrepInfo};
use crate::ftl::Ftl;
use std::sync::{Arc, Mutex};

type Prepared = Arc<(Ftl, PrepInfo)>;

static CACHE: Mutex<Option<(String, Prepared)>> = Mutex::new(None);

/// The FTL of `cfg` prepared in `state`, built or (with `reuse`) cloned from the cache.
pub(crate) fn prepared(
    cfg: &DeviceConfig,
    state: DriveState,
    seed: u64,
    area: std::ops::Range<u64>,
    verify: bool,
    reuse: bool,
) -> (Ftl, PrepInfo) {
    let build = || {
        let mut ftl = Ftl::new(cfg, verify);
        let info = prepare_with_area(&mut ftl, cfg, state, seed, area.clone());
        (ftl, info)
    };
    if !reuse || verify {
        return build();
    }
    let key = format!(
        "{}|{state:?}|{seed}|{area:?}",
        serde_json::to_string(cfg).expect("config serialises")
    );
    // Held while preparing: a second run of the same key waits and then clones.
    let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, v)) = guard.as_ref() {
        if *k == key {
            let v = v.clone();
            drop(guard);
            return (v.0.clone(), v.1.clone());
        }
    }
    *guard = None; // free the previous drive before building the next
    crate::ftl::recycle_map_arrays(true);
    let v: Prepared = Arc::new(build());
    *guard = Some((key, v.clone()));
    drop(guard);
    (v.0.clone(), v.1.clone())
}

/// Drop the cached drive (frees its memory).
pub fn clear() {
    *CACHE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    crate::ftl::recycle_map_arrays(false);
}
