//! Adaptive program delay (seed 003, SK hynix, NVRAMOS 2019): per die, measure the
//! average time from a program's dispatch to the next host read arriving at that
//! die, over a window of simulated time. When reads come later than a whole tPROG,
//! programs go at once; when they come within data-in + α, a program is held so
//! that the expected read goes first (a read cannot suspend a program during its
//! data-in); in between, the die behaves as read-first (with suspend if enabled).
//! How long a program is held: data-in + α (`scheduler.hold = "data-in"`, the first
//! model) or the measured average itself (`"average"`: the seed delays the program
//! "by AVG_DELAY_TIME").
//! Simplifies: the delay is measured from the most recent program dispatch; a
//! window without any read sample keeps the previous window's average.

use crate::sim::Ns;

/// What to do with the program at the head of an idle die's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Start it now.
    Dispatch,
    /// Hold it for at most this long, waiting for a read.
    Hold(Ns),
}

#[derive(Clone, Debug)]
struct DieWindow {
    last_program_ns: Option<Ns>,
    window_start_ns: Ns,
    sum_ns: u64,
    samples: u64,
    /// Average of the last completed window (None until one has samples).
    avg_ns: Option<Ns>,
}

#[derive(Clone, Debug)]
pub struct AdaptiveDelay {
    dies: Vec<DieWindow>,
    window_ns: Ns,
    alpha_ns: Ns,
    /// Hold for the measured average (else data-in + α).
    hold_average: bool,
    pub holds: u64,
    pub hold_read_arrived: u64,
    pub hold_expired: u64,
    pub dispatch_now: u64,
    pub dispatch_default: u64,
}

impl AdaptiveDelay {
    /// Without average holds (the tests' constructor).
    #[cfg(test)]
    pub fn new(dies: u32, window_ns: Ns, alpha_ns: Ns) -> Self {
        Self::with_hold(dies, window_ns, alpha_ns, false)
    }

    /// `hold_average`: a held program waits for the measured average delay.
    pub fn with_hold(dies: u32, window_ns: Ns, alpha_ns: Ns, hold_average: bool) -> Self {
        AdaptiveDelay {
            dies: vec![
                DieWindow {
                    last_program_ns: None,
                    window_start_ns: 0,
                    sum_ns: 0,
                    samples: 0,
                    avg_ns: None,
                };
                dies as usize
            ],
            window_ns: window_ns.max(1),
            alpha_ns,
            hold_average,
            holds: 0,
            hold_read_arrived: 0,
            hold_expired: 0,
            dispatch_now: 0,
            dispatch_default: 0,
        }
    }

    fn roll(&mut self, die: u32, now: Ns) {
        let w = &mut self.dies[die as usize];
        if now >= w.window_start_ns + self.window_ns {
            if let Some(avg) = w.sum_ns.checked_div(w.samples) {
                w.avg_ns = Some(avg);
            }
            w.sum_ns = 0;
            w.samples = 0;
            w.window_start_ns = now - (now - w.window_start_ns) % self.window_ns;
        }
    }

    /// A program was dispatched on `die`.
    pub fn on_program(&mut self, die: u32, now: Ns) {
        self.roll(die, now);
        self.dies[die as usize].last_program_ns = Some(now);
    }

    /// A host read arrived at `die`.
    pub fn on_host_read(&mut self, die: u32, now: Ns) {
        self.roll(die, now);
        let w = &mut self.dies[die as usize];
        if let Some(t) = w.last_program_ns.take() {
            w.sum_ns += now - t;
            w.samples += 1;
        }
    }

    /// The average program-to-read delay in force on `die`.
    pub fn average(&self, die: u32) -> Option<Ns> {
        self.dies[die as usize].avg_ns
    }

    /// Decide for a program of `t_prog_ns` whose data-in takes `data_in_ns`.
    pub fn decide(&mut self, die: u32, now: Ns, t_prog_ns: Ns, data_in_ns: Ns) -> Decision {
        self.roll(die, now);
        match self.average(die) {
            Some(avg) if avg > t_prog_ns => {
                self.dispatch_now += 1;
                Decision::Dispatch
            }
            Some(avg) if avg < data_in_ns + self.alpha_ns => {
                self.holds += 1;
                Decision::Hold(if self.hold_average {
                    avg.max(1)
                } else {
                    data_in_ns + self.alpha_ns
                })
            }
            _ => {
                self.dispatch_default += 1;
                Decision::Dispatch
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_regimes_follow_the_measured_delay() {
        let (t_prog, din) = (1_000_000, 240_000);
        for (delay, expect) in [
            (2_000_000, Decision::Dispatch),
            (100_000, Decision::Hold(240_000 + 20_000)),
            (500_000, Decision::Dispatch),
        ] {
            let mut a = AdaptiveDelay::new(1, 10_000_000, 20_000);
            // One window of samples, each read `delay` after a program.
            let mut t = 0;
            while t < 10_000_000 {
                a.on_program(0, t);
                a.on_host_read(0, t + delay);
                t += delay + 1_000;
            }
            assert_eq!(
                a.decide(0, 10_000_000 + 5, t_prog, din),
                expect,
                "delay {delay}"
            );
            assert_eq!(a.average(0), Some(delay));
        }
    }

    #[test]
    fn hold_average_waits_for_the_measured_delay() {
        let (t_prog, din) = (1_000_000, 240_000);
        let mut a = AdaptiveDelay::with_hold(1, 10_000_000, 20_000, true);
        let mut t = 0;
        while t < 10_000_000 {
            a.on_program(0, t);
            a.on_host_read(0, t + 150_000);
            t += 151_000;
        }
        // 150 us < data-in + α: held, for the 150 us average rather than 260 us.
        assert_eq!(
            a.decide(0, 10_000_005, t_prog, din),
            Decision::Hold(150_000)
        );
    }

    #[test]
    fn no_average_before_the_first_window_means_default() {
        let mut a = AdaptiveDelay::new(2, 1_000, 0);
        a.on_program(1, 0);
        a.on_host_read(1, 10);
        assert_eq!(a.decide(1, 500, 100, 50), Decision::Dispatch);
        assert_eq!(a.dispatch_default, 1);
        // Once the window closes, the 10 ns average is below data-in: hold.
        assert_eq!(a.decide(1, 1_000, 100, 50), Decision::Hold(50));
    }
}
