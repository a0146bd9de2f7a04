//! What the kernel says of a rank's process and threads (`/proc`): alive, asleep on a futex,
//! CPU time used; and this machine's host name.

/// The unit of the CPU times in `/proc/.../stat`.
pub(super) fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

/// This machine's host name, as the recorder writes it (`gethostname`).
pub(super) fn this_host() -> Option<String> {
    static HOST: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let mut host = [0u8; 256];
        // SAFETY: the buffer is writable for its length; NUL-terminated on success.
        (unsafe { libc::gethostname(host.as_mut_ptr().cast(), host.len() - 1) } == 0).then(|| {
            let end = host.iter().position(|&b| b == 0).unwrap_or(0);
            String::from_utf8_lossy(&host[..end]).into_owned()
        })
    })
    .clone()
}

/// The process exists and is not a zombie.
pub(super) fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(proc_state(&stat), Some('Z' | 'X')),
        // SAFETY: signal 0 only checks that the process exists (no /proc: another machine's
        // procfs layout, or none).
        Err(_) => unsafe {
            libc::kill(pid as libc::pid_t, 0) == 0 || *libc::__errno_location() == libc::EPERM
        },
    }
}

pub(super) fn thread_alive(pid: u32, tid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat"))
        .is_ok_and(|stat| !matches!(proc_state(&stat), Some('Z' | 'X')))
}

/// The fields of a `/proc/.../stat` line after the command name (which may hold spaces).
pub(super) fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rsplit_once(')')
        .map_or_else(Vec::new, |(_, rest)| rest.split_whitespace().collect())
}

pub(super) fn proc_state(stat: &str) -> Option<char> {
    stat_fields(stat).first()?.chars().next()
}

/// User plus system time of a thread, in clock ticks.
pub(super) fn cpu_ticks(pid: u32, tid: u32) -> Option<u64> {
    thread_stat(pid, tid).map(|(_, ticks)| ticks)
}

/// A thread's state (`R` running or runnable, `S` asleep, ...) and its user plus system
/// time in clock ticks.
pub(super) fn thread_stat(pid: u32, tid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
    let fields = stat_fields(&stat);
    let state = fields.first()?.chars().next()?;
    // utime and stime are fields 14 and 15 of the line, 11 and 12 after the name.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some((state, ticks))
}

/// How many times the thread gave up its CPU to wait (slept, blocked), from its `status`:
/// preemptions and `sched_yield` are not counted.
pub(super) fn voluntary_switches(pid: u32, tid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
        .trim()
        .parse()
        .ok()
}

/// The thread sleeps in `futex` (a lock, condition variable or barrier of its process).
pub(super) fn asleep_on_futex(pid: u32, tid: u32) -> bool {
    #[cfg(target_arch = "x86_64")]
    const SYS_FUTEX: &str = "202";
    #[cfg(target_arch = "aarch64")]
    const SYS_FUTEX: &str = "98";
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const SYS_FUTEX: &str = "";
    let asleep = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat"))
        .is_ok_and(|stat| matches!(proc_state(&stat), Some('S')));
    asleep
        && std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/syscall"))
            .is_ok_and(|s| !SYS_FUTEX.is_empty() && s.split_whitespace().next() == Some(SYS_FUTEX))
}
