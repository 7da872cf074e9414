//! Real-time priority for the serving thread (`ssdlab serve --realtime`): SCHED_FIFO at
//! priority 1, the lowest real-time one, so that the server runs as soon as a deadline
//! or a request wakes it instead of waiting for a time slice behind the machine's other
//! programs (on a loaded 2-core machine, the main cause of late replies: a time slice is
//! milliseconds, a reply is due within tens of microseconds). It needs CAP_SYS_NICE or an
//! RLIMIT_RTPRIO of at least 1; without them the server says so and runs as before.
//!
//! What bounds the risk: the server sleeps between deadlines and busy-polls only the
//! last 20-300 us before each (`SpinMargin`), and Linux keeps 5 % of every second for
//! normal tasks (`sched_rt_runtime_us`, 950,000 of 1,000,000 by default). Under a load
//! that keeps it polling all the time it holds one core; fio and the others run on the
//! rest. The policy is the thread's (the one that called `serve`), restored on exit.

/// The thread's policy and priority before `enter`.
pub struct Previous {
    policy: libc::c_int,
    param: libc::sched_param,
}

/// Switch the calling thread to SCHED_FIFO 1; the previous policy, or the OS error.
pub fn enter() -> Result<Previous, std::io::Error> {
    // SAFETY: sched_getparam/sched_setscheduler on the calling thread (pid 0) with a
    // sched_param that lives across the calls.
    unsafe {
        let mut param: libc::sched_param = std::mem::zeroed();
        let policy = libc::sched_getscheduler(0);
        if policy < 0 || libc::sched_getparam(0, &mut param) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let fifo = libc::sched_param { sched_priority: 1 };
        if libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Previous { policy, param })
    }
}

/// Back to the policy `enter` found.
pub fn leave(p: Previous) {
    // SAFETY: as in `enter`.
    unsafe {
        libc::sched_setscheduler(0, p.policy, &p.param);
    }
}
