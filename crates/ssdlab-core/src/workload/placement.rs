//! A job's choice of placement ID per write, with fio's semantics (fio 3.3x,
//! `dataplacement.c`): the job's list is the drive's Reclaim Unit Handle Status
//! entries that `plids` index (all of them without `plids`); `roundrobin` takes them
//! in turn per write, `random` one at random per write, `scheme` the first
//! [start, end) range of `dp_scheme` holding the write's offset (its third column is
//! the DSPEC itself; placement ID 0 outside every range). Reads and trims carry none.

use crate::config::fdp::{FdpConfig, FdpJob, PlidSelect};
use crate::sim::Rng;

#[derive(Clone, Debug)]
pub struct PidSelect {
    pids: Vec<u32>,
    select: PlidSelect,
    scheme: Vec<(u64, u64, u32)>,
    next: usize,
    rng: Rng,
}

impl PidSelect {
    /// Job `job` of a run with seed `seed` on a drive with FDP section `dev`.
    pub fn new(j: &FdpJob, dev: &FdpConfig, seed: u64, job: u32) -> PidSelect {
        let status = dev.status_pids();
        let pids = if j.plids.is_empty() {
            status
        } else {
            j.plids.iter().map(|&i| status[i as usize]).collect()
        };
        PidSelect {
            pids,
            select: j.select,
            scheme: j.scheme.clone(),
            next: 0,
            // A stream of its own: the job's offsets do not change with its placement.
            rng: Rng::derive(seed, 0xF0_0000 + job as u64),
        }
    }

    /// The placement ID (DSPEC) of the next write, at byte `offset`.
    #[inline]
    pub fn next(&mut self, offset: u64) -> u32 {
        match self.select {
            PlidSelect::Roundrobin => {
                if self.next >= self.pids.len() {
                    self.next = 0;
                }
                let p = self.pids[self.next];
                self.next += 1;
                p
            }
            PlidSelect::Random => self.pids[self.rng.below(self.pids.len() as u64) as usize],
            PlidSelect::Scheme => self
                .scheme
                .iter()
                .find(|&&(s, e, _)| offset >= s && offset < e)
                .map_or(0, |&(_, _, p)| p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(handles: u32, groups: u32) -> FdpConfig {
        FdpConfig {
            handles,
            reclaim_groups: groups,
            ..FdpConfig::default()
        }
    }

    #[test]
    fn roundrobin_cycles_the_indexed_status_entries() {
        let j = FdpJob {
            plids: vec![2, 0],
            ..FdpJob::default()
        };
        let mut s = PidSelect::new(&j, &dev(4, 1), 1, 0);
        let got: Vec<u32> = (0..5).map(|_| s.next(0)).collect();
        assert_eq!(got, vec![2, 0, 2, 0, 2]);
        // Two groups: RGIF = 1, group 1's handle h is 0x8000 | h, listed after group 0's.
        let mut s = PidSelect::new(&FdpJob::default(), &dev(2, 2), 1, 0);
        let got: Vec<u32> = (0..4).map(|_| s.next(0)).collect();
        assert_eq!(got, vec![0, 1, 0x8000, 0x8001]);
    }

    #[test]
    fn random_draws_only_the_jobs_ids_and_all_of_them() {
        let j = FdpJob {
            plids: vec![1, 3],
            select: PlidSelect::Random,
            ..FdpJob::default()
        };
        let mut s = PidSelect::new(&j, &dev(4, 1), 7, 0);
        let mut seen = [0u32; 4];
        for _ in 0..1000 {
            seen[s.next(0) as usize] += 1;
        }
        assert_eq!((seen[0], seen[2]), (0, 0));
        assert!(seen[1] > 400 && seen[3] > 400, "{seen:?}");
    }

    #[test]
    fn scheme_maps_offset_ranges_first_match_else_zero() {
        let j = FdpJob {
            select: PlidSelect::Scheme,
            scheme: vec![(0, 100, 3), (50, 200, 1)],
            ..FdpJob::default()
        };
        let mut s = PidSelect::new(&j, &dev(4, 1), 1, 0);
        assert_eq!(
            [s.next(0), s.next(99), s.next(100), s.next(199), s.next(200)],
            [3, 3, 1, 1, 0]
        );
    }
}
