//! Plausibility warnings: values a config accepts but no real part has, most often a
//! unit slip ("60ns" for tR). Each check compares a field with the range that the cell
//! type or the link makes possible and says what was probably meant.
//!
//! The ranges are deliberately wide (datasheet and ISSCC figures for 2D and 3D NAND of
//! each cell type, PCIe link latencies of a few hundred ns); they flag unit mistakes, not
//! aggressive designs, and never stop a run. One more check is about the model, not a
//! slip: an SLC area whose blocks add much raw NAND on top of the capacity (a real drive's
//! dynamic SLC cache lives in its native blocks; ssdlab keeps SLC blocks apart).

use super::device::{CellType, DeviceConfig, PerPageType};
use super::memory::SlcMode;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// (tR, tPROG) ranges in ns for a cell type.
fn nand_ranges(cell: CellType) -> ((u64, u64), (u64, u64)) {
    match cell {
        CellType::Slc => ((10 * US, 100 * US), (50 * US, MS)),
        CellType::Mlc => ((20 * US, 150 * US), (200 * US, 3 * MS)),
        CellType::Tlc => ((20 * US, 200 * US), (200 * US, 5 * MS)),
        CellType::Qlc => ((40 * US, 300 * US), (500 * US, 10 * MS)),
    }
}

fn show(ns: u64) -> String {
    super::units::Duration(ns).to_string()
}

fn check(out: &mut Vec<String>, field: &str, ns: u64, (lo, hi): (u64, u64), what: &str) {
    if ns < lo || ns > hi {
        let hint = if ns < lo && ns * 1000 >= lo && ns * 1000 <= hi {
            format!("; did you mean {}?", show(ns * 1000))
        } else {
            String::new()
        };
        out.push(format!(
            "{field}: {} is far outside what {what} can be ({}–{}){hint}",
            show(ns),
            show(lo),
            show(hi)
        ));
    }
}

fn each(t: &PerPageType) -> Vec<u64> {
    match t {
        PerPageType::One(d) => vec![d.ns()],
        PerPageType::PerType(v) => v.iter().map(|d| d.ns()).collect(),
    }
}

/// The SLC area's blocks are kept apart from the native blocks that hold the
/// capacity, so a large SLC area (a real drive's dynamic cache, carved from those same
/// native blocks) adds raw NAND the drive does not have. Said when the SLC area's raw
/// NAND is more than a quarter of the user capacity (the presets' 6-42 GB areas are
/// 3-13 %).
fn slc_on_top(dev: &DeviceConfig, out: &mut Vec<String>) {
    // Free-space mode borrows native blocks beyond its static part: only that part is
    // on top.
    let slc_blocks = dev.slc_static_blocks_per_die() as u64;
    let cap = dev.capacity_bytes();
    if slc_blocks == 0 || cap == 0 {
        return;
    }
    let raw = dev.raw_bytes();
    let slc_raw = raw / dev.nand.blocks_per_plane.max(1) as u64 * slc_blocks;
    if slc_raw * 4 <= cap {
        return;
    }
    let gb = |b: u64| format!("{:.0} GB", b as f64 / 1e9);
    let mode = match dev.slc.mode {
        SlcMode::Dynamic => "dynamic ",
        SlcMode::Static => "",
        SlcMode::FreeSpace => "static part of the free-space ",
    };
    out.push(format!(
        "slc.size: the {mode}SLC area ({}) takes {} of raw NAND ({slc_blocks} blocks per die) \
         ON TOP of the {} that hold the {} capacity: {} raw in all, {:.2}x the capacity. \
         In this mode ssdlab keeps SLC blocks apart from the native ones; a real drive carves \
         its dynamic SLC area from the same native blocks. To describe a real drive, use \
         slc.mode = \"free-space\" (slc.size the whole cache, slc.min_size its static part), \
         or accept the extra raw NAND knowingly (docs/config.md, 'Describing a real drive')",
        gb(dev.slc.size.bytes()),
        gb(slc_raw),
        gb(raw - slc_raw),
        gb(cap),
        gb(raw),
        raw as f64 / cap as f64,
    ));
}

impl DeviceConfig {
    /// Warnings for a validated device (empty when every value is plausible).
    pub fn warnings(&self) -> Vec<String> {
        warnings(self)
    }
}

fn warnings(dev: &DeviceConfig) -> Vec<String> {
    let mut out = Vec::new();
    let n = &dev.nand;
    let cell = format!("{:?}", n.cell).to_uppercase();
    let (t_read, t_prog) = nand_ranges(n.cell);
    for v in each(&n.t_read) {
        check(&mut out, "nand.t_read", v, t_read, &format!("{cell} tR"));
    }
    for v in each(&n.t_prog) {
        check(&mut out, "nand.t_prog", v, t_prog, &format!("{cell} tPROG"));
    }
    check(
        &mut out,
        "nand.t_erase",
        n.t_erase.ns(),
        (500 * US, 30 * MS),
        "tBERS",
    );
    if dev.slc.size.bytes() > 0 {
        let (r, p) = nand_ranges(CellType::Slc);
        check(
            &mut out,
            "slc.t_read",
            dev.slc.t_read.ns(),
            r,
            "SLC-mode tR",
        );
        check(
            &mut out,
            "slc.t_prog",
            dev.slc.t_prog.ns(),
            p,
            "SLC-mode tPROG",
        );
    }
    slc_on_top(dev, &mut out);
    let rate = n.channel_rate.0;
    if !(10.0..=4800.0).contains(&rate) {
        out.push(format!(
            "nand.channel_rate: {rate} MT/s is far outside what a NAND bus can be (10–4800 MT/s)"
        ));
    }
    // 0 leaves the link latency out (e.g. an eMMC-class device); only slips are flagged.
    let link = dev.host.pcie_latency.ns();
    if link > 0 {
        check(
            &mut out,
            "host.pcie_latency",
            link,
            (20, 10 * US),
            "a PCIe link's one-way latency",
        );
    }
    out
}
