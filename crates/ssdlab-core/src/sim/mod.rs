//! Discrete-event kernel: integer-nanosecond time, one event queue, seeded RNG.
//!
//! Models: a single ordered queue keyed by (time, sequence) so that events at the
//! same instant always run in the order they were scheduled, which makes every run
//! deterministic for a given config and seed.
//! Simplifies: no cancellation; a stale event is recognised by its owner through a
//! generation counter carried in the payload and skipped when popped.

mod queue;
mod rng;

pub use queue::{Event, EventQueue};
pub use rng::Rng;

/// Simulated time in nanoseconds.
pub type Ns = u64;

/// Duration in nanoseconds of moving `bytes` over a link whose cost per byte is
/// `fs_per_byte` femtoseconds, rounded up to the next nanosecond.
#[inline]
pub fn xfer_ns(bytes: u64, fs_per_byte: u64) -> Ns {
    (bytes * fs_per_byte).div_ceil(1_000_000)
}

/// Femtoseconds per byte for a link moving `bytes_per_s` bytes each second.
pub fn fs_per_byte(bytes_per_s: f64) -> u64 {
    (1e15 / bytes_per_s).round() as u64
}
