//! A cache of one prepared drive per process, for sweeps that run many workloads on
//! the same (device, state, seed): preparing an aged TB-class drive takes seconds,
//! cloning its FTL a fraction of that. Opt-in (`reuse_prep`), it holds the most
//! recently prepared drive only (a new key frees the old one first), and never a
//! drive with the read oracle. This is the one piece of process-wide state in the
//! core: a run's result does not depend on it (a cached drive is the same value
//! `prepare` would build again: preparation is a pure function of its key), only
//! its wall time does. The cached drive's maps are shared copy-on-write
//! (`ftl::MapArray::share`): a clone copies only the map chunks its run stores into,
//! into chunk memory that earlier runs freed (`ftl::map_array::recycle_chunks`);
//! `clear` frees both.

use crate::config::DeviceConfig;
use crate::ftl::prep::{prepare_with_area, DriveState, PrepInfo};
use crate::ftl::Ftl;
use serde_json::json;
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
    let key = format!("{}|{state:?}|{seed}|{area:?}", prep_key(cfg));
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
    crate::ftl::map_array::recycle_chunks(true);
    let (mut ftl, info) = build();
    ftl.share_maps();
    let v: Prepared = Arc::new((ftl, info));
    *guard = Some((key, v.clone()));
    drop(guard);
    (v.0.clone(), v.1.clone())
}

/// What preparing a drive reads of its config, as text: two configs with the same
/// key prepare to the same FTL in every state (`Ftl::new` and `prepare_with_area` read
/// the NAND geometry, the FTL and SLC sections, the capacity, and of the map only its
/// size, whether it is all resident and the translation blocks' spare). So devices
/// that differ only in their host link, controller, scheduler, caches or HMB size
/// share one prepared drive (seed 000's HMB Max/Half/Min, a sweep over `nand.t_read`
/// or `host.io_queues`). NAND timings are kept in the key although preparation is
/// functional: cheap to keep, and it keeps the key a plain copy of whole sections.
pub fn prep_key(cfg: &DeviceConfig) -> String {
    let place = cfg.map_placement();
    json!({
        "nand": cfg.nand,
        "ftl": cfg.ftl,
        "slc": cfg.slc,
        "capacity_bytes": cfg.capacity_bytes(),
        "map_bytes": place.map_bytes,
        "map_whole": place.whole,
        "translation_spare": cfg.map.translation_spare,
        "map_log_units": cfg.map_log_units(),
    })
    .to_string()
}

/// Drop the cached drive (frees its memory).
pub fn clear() {
    *CACHE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    crate::ftl::map_array::recycle_chunks(false);
}
