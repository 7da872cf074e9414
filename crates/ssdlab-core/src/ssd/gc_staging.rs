//! GC and SLC-fold data gathered in the controller's write buffer from the page reads
//! (`controller.gc_staging = "gather"`).
//!
//! Models: a DRAM-less controller reads every page it relocates or folds into its
//! SRAM, the memory that also buffers host writes, and holds it there until the
//! program that writes it again has ended. Before it reads the pages that fill a
//! native program stripe (`stripe_units`: a page of every plane, times the pages one
//! program writes), a die reserves that much buffer room, when it fits: SRAM is finite,
//! so GC waits for room as host writes do, and gets what the host writes waiting for
//! room leave (at the urgent floor of free blocks it takes it without asking: GC must
//! run). Each page read takes its valid units out of the die's reservation; units the
//! host overwrote while the read was under way give their room back to the
//! reservation; a stripe's units are released when its program ends; what is left of
//! a reservation when the victim is done goes back to the buffer. An idle die reading
//! ahead of its pace uses only room it holds (its time is free, the buffer is not). A
//! collection without a pace (an SLC block folded in host idle time) takes one
//! stripe's room a turn (`release_gc`), so the dies fold side by side: released at
//! once, the first die's fold would hold the whole buffer until its victim was read.
//! Where the moved units go decides how much room GC holds: written on each victim's
//! own die (`ftl.gc_destination = "victim-die"`), every collecting die fills a
//! stripe of its own at the pace its own reads allow, so a drive collecting on all
//! its dies holds a part-filled stripe per die; striped over the dies (`"striped"`),
//! every die's moves fill the one open GC stripe, and the reserved room is one pool
//! the collecting dies share (kept until the last of them finishes its victim).
//!
//! No wait closes a circle: the reads of reserved room are released whatever the GC
//! pace (their units are charged to it), so a reservation fills on die time alone; and
//! the room GC holds that only more GC reads can turn into a program (reserved units,
//! units gathered in an open stripe) counts as stranded, as host units in open stripes
//! do (`WriteBuffer::try_reserve` admits a host write that does not fit when
//! everything buffered is stranded; when that state comes about with nothing left to
//! happen, the waiting writes are looked at once more: `Ssd::recheck_buffer_waiters`).
//!
//! Who gets room first (`controller.gc_buffer_share`): with `"paced"` (default) a die
//! waits for a stripe's room only when its GC pace says it is behind, and then it is
//! served before the host writes waiting for room, and new host writes queue behind
//! it, in the buffer and in the map's update journal alike (a GC read needs room in
//! both at once, a host write takes them one after the other: served first in only
//! one, GC finds the other full every time and never moves). GC keeps its paced share
//! of the buffer, as it does of the dies and of the journal, and the buffer stays
//! bounded (the stripe must fit). With `"host-first"`
//! GC gets only what waiting host writes leave: under a host that keeps the buffer
//! full, GC falls behind until the urgent floor of free blocks, then runs alone while
//! host writes stall (seconds on an aged DRAM-less drive; docs/map-cache.md).
//!
//! Simplifies: how firmware shares SRAM between host writes and GC is not published;
//! the two policies here are the paced one the rest of the model follows and the one
//! that favours the host (GC first without bound, as `"write-buffer"` staging is, or
//! one queue in arrival order give other answers: docs/map-cache.md); translation-page
//! moves are not staged (the map's own SRAM holds them); a page's copy in the
//! controller is not read by host reads.

use super::Ssd;
use crate::config::GcStaging;

/// One die's gathering.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DieGather {
    /// Reserved units not yet given to a page read (with striped GC writes, the pool
    /// every die's reads share, kept at die 0).
    room: u32,
    /// Units moved into the die's open GC stripe (their reads done), not yet in a
    /// queued program.
    gathered: u32,
    /// The die waits for buffer room to reserve a stripe.
    waiting: bool,
}

/// The gathering state of every die (empty unless `gc_staging = "gather"`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Gather {
    /// Units one native program writes on a die (the reservation step).
    stripe_units: u32,
    dies: Vec<DieGather>,
    /// Dies waiting for room, in the order they asked.
    waiting: Vec<u32>,
    /// `gc_buffer_share = "paced"`: waiting dies are served before host writes.
    gc_first: bool,
    /// `ftl.gc_destination = "striped"`: moved units go to one open GC stripe at a
    /// time, so the reserved room is one pool for every collecting die.
    shared_room: bool,
}

impl Gather {
    pub(crate) fn new(
        on: bool,
        dies: u32,
        stripe_units: u32,
        gc_first: bool,
        shared_room: bool,
    ) -> Self {
        Gather {
            stripe_units,
            gc_first,
            shared_room,
            dies: if on {
                vec![DieGather::default(); dies as usize]
            } else {
                Vec::new()
            },
            waiting: Vec::new(),
        }
    }

    /// Must host writes queue behind GC for buffer room? (`"paced"` sharing and a die
    /// behind its pace waits for a stripe's room.)
    #[inline]
    pub(crate) fn gc_served_first(&self) -> bool {
        self.gc_first && !self.waiting.is_empty()
    }

    /// Dies waiting for buffer room to reserve a stripe.
    pub(crate) fn waiting_dies(&self) -> usize {
        self.waiting.len()
    }

    /// Room GC holds that only more GC reads can complete into a program.
    pub(crate) fn stranded_units(&self) -> u64 {
        self.dies.iter().map(|g| (g.room + g.gathered) as u64).sum()
    }

    /// Where die `die`'s reserved room is kept: its own, or the shared pool.
    #[inline]
    fn room_of(&self, die: u32) -> usize {
        if self.shared_room {
            0
        } else {
            die as usize
        }
    }

    /// Does the die hold reserved room not yet given to a read, `units` of it at least?
    #[inline]
    pub(crate) fn has_room_for(&self, die: u32, units: u32) -> bool {
        self.dies
            .get(self.room_of(die))
            .is_some_and(|g| g.room >= units)
    }

    /// Does the die hold reserved room not yet given to a read?
    #[inline]
    pub(crate) fn has_room(&self, die: u32) -> bool {
        self.has_room_for(die, 1)
    }

    /// A unit of a read of the die's victim moved into its open GC stripe.
    #[inline]
    pub(crate) fn moved(&mut self, die: u32) {
        self.dies[die as usize].gathered += 1;
    }

    /// A read of `read_units` valid units is done and `moved` of them were moved: the
    /// room of the others goes back to the die's reservation.
    #[inline]
    pub(crate) fn read_done(&mut self, die: u32, read_units: u32, moved: u32) {
        let r = self.room_of(die);
        self.dies[r].room += read_units.saturating_sub(moved);
    }

    /// A GC program of `units` was queued on the die: the gathered units it carries
    /// (their room is released when it ends).
    #[inline]
    pub(crate) fn program_queued(&mut self, die: u32, units: u32) -> u32 {
        let g = &mut self.dies[die as usize];
        let staged = g.gathered.min(units);
        g.gathered -= staged;
        staged
    }
}

impl Ssd {
    /// Room for a GC read of `units` valid units of the die's victim, from its
    /// reservation or a new one: taken when it fits in the buffer (or everything
    /// buffered is stranded), without asking at the urgent floor of free blocks
    /// (`urgent`). False if the die must wait: for room (it is woken after the host
    /// writes waiting for room, when room returns), or, an idle die reading ahead of
    /// its pace (`ahead`), until the pace allows (it takes no new room for that).
    pub(super) fn gather_reserve(
        &mut self,
        die: u32,
        units: u32,
        ahead: bool,
        urgent: bool,
    ) -> bool {
        let d = die as usize;
        let r = self.gather.room_of(die);
        if self.gather.dies[r].room < units {
            if ahead && !urgent {
                return false;
            }
            let step = self.gather.stripe_units.max(units);
            if urgent {
                // GC must run: host writes may hold the room while they wait for the
                // free blocks only GC can make.
                self.buffer.take(step as u64);
            } else if !self.try_buffer_room(step as u64) {
                if !self.gather.dies[d].waiting {
                    self.gather.dies[d].waiting = true;
                    self.gather.waiting.push(die);
                }
                return false;
            }
            self.gather.dies[r].room += step;
        }
        self.gather.dies[r].room -= units;
        true
    }

    /// The die's victim is done: the room it reserved and did not use goes back.
    pub(super) fn gather_victim_done(&mut self, die: u32) {
        if self.gc_staging != GcStaging::Gather {
            return;
        }
        let r = self.gather.room_of(die);
        if self.gather.shared_room && self.dq.iter().any(|q| q.gc.active) {
            return; // the pool is kept for the dies still collecting
        }
        let room = std::mem::take(&mut self.gather.dies[r].room);
        if room > 0 {
            self.release_buffer_room(room as u64);
        }
    }

    /// Room returned to the buffer and the host writes waiting for it were served:
    /// the dies waiting to gather try again, in the order they asked.
    pub(super) fn wake_gather_waiters(&mut self) {
        if self.gather.waiting.is_empty() {
            return;
        }
        let mut waiting = std::mem::take(&mut self.gather.waiting);
        for &die in &waiting {
            self.gather.dies[die as usize].waiting = false;
        }
        for &die in &waiting {
            if self.release_gc(die, false) {
                self.kick_die(die);
            }
        }
        // Keep the vector's capacity for next time (no allocation once warm).
        waiting.clear();
        if self.gather.waiting.is_empty() {
            self.gather.waiting = waiting;
        }
    }
}
