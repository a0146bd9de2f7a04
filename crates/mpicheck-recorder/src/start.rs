//! The trace's life: opened at the process's first MPI call, with the helper thread started;
//! finalized at the owner's exit; left alone by a forked child.

use super::*;

pub(super) fn env_rank() -> i32 {
    [
        "MPICHECK_RANK",
        "PMI_RANK",
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok()?.parse().ok())
    .unwrap_or(-1)
}

/// The process's start time in clock ticks since boot (`/proc/self/stat` field 22), which
/// orders a rank before the children it started; 0 if unknown.
pub(super) fn process_start_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(19)?.parse().ok())
        .unwrap_or(0)
}

/// Creates this process's trace file in `dir`: a new file, never one that exists (the name
/// of an earlier process with the same pid, or anything planted there), never through a
/// symbolic link.
pub(super) fn create_trace_file(
    dir: &std::path::Path,
    pid: u32,
) -> std::io::Result<(File, PathBuf)> {
    let suffix = mpicheck_trace::TRACE_SUFFIX;
    let mut last_error = None;
    for attempt in 0..16 {
        let name = if attempt == 0 {
            format!("trace-{pid}{suffix}")
        } else {
            format!("trace-{pid}-{attempt}{suffix}")
        };
        let path = dir.join(name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .mode(0o644)
            .open(&path)
        {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last_error = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::other("no free trace name")))
}

/// `file` moved to a descriptor number the program is unlikely to name: a program that
/// closes a descriptor it does not own (a double `close`) closes a low number, one it once
/// opened itself. (From half the soft limit on, at most 1024; `file` as it was if that
/// fails.)
fn high_descriptor(file: File) -> File {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls; the new descriptor is this process's own, and owned once.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return file;
        }
        let lowest = (limit.rlim_cur / 2).clamp(3, 1024) as libc::c_int;
        match libc::fcntl(file.as_raw_fd(), libc::F_DUPFD_CLOEXEC, lowest) {
            high if high >= 0 => File::from_raw_fd(high),
            _ => file,
        }
    }
}

/// Maps the trace file `file` into the largest reservation of address space that the
/// process may have, from [`MAP_RESERVE`] down to [`MAP_RESERVE_LEAST`], quartering: a limit
/// on the address space (`ulimit -v`, common in batch jobs; or valgrind) refuses the
/// largest. The file grows inside it. Returns the mapping and its length.
fn map_reserve(file: &File) -> Option<(*mut u8, u64)> {
    let mut len = MAP_RESERVE;
    while len >= MAP_RESERVE_LEAST {
        // SAFETY: mapping our own file; the mapping is never unmapped (records may be
        // written until the very end of the process).
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_NORESERVE,
                file.as_raw_fd(),
                0,
            )
        };
        if base != libc::MAP_FAILED {
            return Some((base as *mut u8, len as u64));
        }
        len /= 4;
    }
    None
}

pub(super) fn open_trace(family: &str) -> Option<Recorder> {
    let dir = PathBuf::from(std::env::var_os("MPICHECK_OUT_DIR")?);
    if std::env::var_os("MPICHECK_REPEATS").is_some_and(|v| v == "0") {
        repeat::REPEATS_ON.store(false, Ordering::Relaxed);
    }
    let pid = std::process::id();
    let (file, path) = create_trace_file(&dir, pid)
        .map_err(|e| {
            eprintln!(
                "mpicheck: cannot create a trace in {}: {e}; this process is not recorded",
                dir.display()
            )
        })
        .ok()?;
    let file = high_descriptor(file);
    let file_id = match file.metadata() {
        Ok(meta) => (meta.dev(), meta.ino()),
        Err(e) => {
            eprintln!(
                "mpicheck: cannot read trace {}: {e}; this process is not recorded",
                path.display()
            );
            let _ = std::fs::remove_file(&path);
            return None;
        }
    };
    let Some((base, reserved)) = map_reserve(&file) else {
        eprintln!(
            "mpicheck: cannot map trace {} (not even {} MiB of address space: `ulimit -v`?); this process is not recorded",
            path.display(),
            MAP_RESERVE_LEAST >> 20
        );
        // An empty file would read as a damaged trace.
        let _ = std::fs::remove_file(&path);
        return None;
    };
    let recorder = Recorder {
        base,
        reserved,
        file_len: AtomicU64::new(0),
        soft_limit: AtomicU64::new(0),
        populated: AtomicU64::new(0),
        helper_wake: AtomicU32::new(0),
        helper_running: AtomicBool::new(false),
        exiting: AtomicBool::new(false),
        exit_limit: AtomicU64::new(0),
        no_space: AtomicBool::new(false),
        populate_lock: Mutex::new(()),
        populate_supported: AtomicBool::new(true),
        file,
        file_id,
        grow_lock: Mutex::new(()),
        calibration_lock: Mutex::new(()),
        clock: Clock::detect(),
    };
    if !recorder.grow(GROW_STEP) {
        eprintln!(
            "mpicheck: cannot reserve space for trace {} (disk full?); this process is not recorded",
            path.display()
        );
        // An empty file would read as a damaged trace.
        let _ = std::fs::remove_file(&path);
        return None;
    }
    // SAFETY: the header lies in the first page, which the growth above made writable.
    unsafe {
        let b = recorder.base;
        ptr::copy_nonoverlapping(MAGIC.as_ptr(), b.add(offset::MAGIC), 8);
        ptr::write(b.add(offset::VERSION) as *mut u32, FORMAT_VERSION);
        ptr::write(b.add(offset::HEADER_SIZE) as *mut u32, HEADER_SIZE as u32);
        ptr::write(b.add(offset::PID) as *mut u32, pid);
        ptr::write(
            b.add(offset::PARENT_PID) as *mut u32,
            libc::getppid() as u32,
        );
        ptr::write(
            b.add(offset::PROCESS_START) as *mut u64,
            process_start_ticks(),
        );
        ptr::write(b.add(offset::ENV_RANK) as *mut i32, env_rank());
        ptr::write(b.add(offset::RANK) as *mut i32, -1);
        ptr::write(b.add(offset::WORLD_SIZE) as *mut i32, -1);
        ptr::write(b.add(offset::THREAD_LEVEL) as *mut i32, -1);
        ptr::write(b.add(offset::CLOCK) as *mut u32, recorder.clock.kind());
        // The wall clock is read right after the clock pair the call times count from: the
        // analysis orders the ranks' calls by start + entry time, so a delay between the
        // two reads (a preemption while reading /proc, under load milliseconds) would skew
        // one rank against the others.
        let (ticks, ns) = recorder.clock_pair();
        let start_unix_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        ptr::write(b.add(offset::START_UNIX_NS) as *mut u64, start_unix_ns);
        ptr::write(b.add(offset::CLOCK_START) as *mut u64, ticks);
        ptr::write(b.add(offset::CLOCK_START_NS) as *mut u64, ns);
        // Slot 0 holds the start pair until the first calibration.
        ptr::write(b.add(offset::CALIBRATION) as *mut u64, ticks);
        ptr::write(b.add(offset::CALIBRATION + 8) as *mut u64, ns);
        let family = family.as_bytes();
        let n = family.len().min(offset::FAMILY_LEN - 1);
        ptr::copy_nonoverlapping(family.as_ptr(), b.add(offset::FAMILY), n);
    }
    recorder
        .header_u64(offset::RECORDS_END)
        .store(HEADER_SIZE as u64, Ordering::Release);
    Some(recorder)
}

pub(super) fn process_text() -> String {
    let exe = std::fs::read_link("/proc/self/exe")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let cmdline = std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    // The host, so that a supervisor on another machine does not judge this process by
    // pids of its own (a multi-node job started with `--launcher`).
    let mut host = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname NUL-terminates on success.
    let host = if unsafe { libc::gethostname(host.as_mut_ptr().cast(), host.len() - 1) } == 0 {
        let end = host.iter().position(|&b| b == 0).unwrap_or(0);
        String::from_utf8_lossy(&host[..end]).into_owned()
    } else {
        String::new()
    };
    format!("exe={exe}\ncmdline={cmdline}\nhost={host}\n")
}

/// Runs once, at the owner process's normal exit. Other threads, and library destructors
/// that run after this, may still record: the file keeps its length and the writers keep a
/// margin of allocated space after the last record; only the space beyond the margin is
/// released.
pub(super) extern "C" fn at_exit() {
    let Some(r) = recorder() else { return };
    if OWNER_PID.load(Ordering::Relaxed) != std::process::id() {
        return;
    }
    if let Ok(maps) = std::fs::read("/proc/self/maps") {
        r.write_text(text::PROC_MAPS, &maps);
    }
    r.calibrate();
    // Margin for late calls, allocated now while the file may still grow.
    let end = r.header_u64(offset::RECORDS_END).load(Ordering::SeqCst);
    r.grow(end + EXIT_MARGIN);
    {
        // Stop the helper from growing or populating from here on.
        let _grow = r.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
        let _populate = r.populate_lock.lock().unwrap_or_else(|e| e.into_inner());
        r.exiting.store(true, Ordering::SeqCst);
    }
    // From now every reservation takes the cold path; this load sees every reservation that
    // did not see the lowered limit (see `reserve`).
    r.soft_limit.store(0, Ordering::SeqCst);
    let end = r.header_u64(offset::RECORDS_END).load(Ordering::SeqCst);
    let file_len = r.file_len.load(Ordering::Acquire);
    let limit = (end + EXIT_MARGIN)
        .next_multiple_of(PAGE_SIZE)
        .min(file_len);
    r.exit_limit.store(limit, Ordering::SeqCst);
    // Another thread's folded poll may give its space back after the load above, moving the
    // end back below it (`give_back`), and a late call would land there, before the end at
    // exit. An empty skip record reserved now moves the end, so that such a give-back
    // fails (its space stays a skip record); late calls come after it.
    let end = match r.reserve(8) {
        Some(rec) => {
            let skip = 8 | (kind::SKIP as u64) << 32 | (record_state::COMPLETE as u64) << 48;
            // SAFETY: the 8 bytes just reserved, inside the allocated file.
            unsafe { ptr::write(rec as *mut u64, skip) };
            rec as u64 - r.base as u64 + 8
        }
        None => end,
    };
    r.header_u64(offset::EXIT_RECORDS_END)
        .store(end.min(limit), Ordering::Release);
    if limit < file_len {
        let _populate = r.populate_lock.lock().unwrap_or_else(|e| e.into_inner());
        // Nobody writes beyond `limit` any more. Where holes are not supported the space
        // simply stays allocated.
        if let Some(fd) = r.trace_fd() {
            // SAFETY: plain syscall on the trace's own descriptor (checked just before).
            unsafe {
                libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    limit as libc::off_t,
                    (file_len - limit) as libc::off_t,
                )
            };
        }
    }
    r.set_state_flag(state::EXITED);
}

/// In a child forked after recording started: the trace mapping is shared with the parent,
/// so the child must never write into it (nor finalize it at exit). A child that execs a
/// program starts afresh with the library's constructor.
pub(super) extern "C" fn in_forked_child() {
    if RECORDING.load(Ordering::Relaxed) == ON {
        RECORDING.store(OFF, Ordering::Relaxed);
        RECORDER.store(ptr::null_mut(), Ordering::Relaxed);
        END_MODE.store(END_OFF, Ordering::Relaxed);
    }
}

/// The recorder, opening the trace if this is the process's first MPI call; None when the
/// process does not record.
#[cold]
pub(super) fn start_recording() -> Option<&'static Recorder> {
    if RECORDING.load(Ordering::Acquire) != UNSTARTED {
        return recorder();
    }
    let mut prepared = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
    // Another thread may have started it while this one waited for the lock.
    if RECORDING.load(Ordering::Acquire) != UNSTARTED {
        return recorder();
    }
    let Some(prepared) = prepared.take() else {
        return None; // not prepared: the interposition library's constructor did not run
    };
    let Some(recorder) = open_trace(&prepared.family) else {
        RECORDING.store(OFF, Ordering::Release);
        return None;
    };
    let recorder: &'static Recorder = Box::leak(Box::new(recorder));
    recorder.write_text(text::PROCESS, process_text().as_bytes());
    recorder.write_text(text::SCHEMA, prepared.schema.as_bytes());
    recorder.write_text(text::CONSTANTS, prepared.constants.as_bytes());
    if let Ok(maps) = std::fs::read("/proc/self/maps") {
        recorder.write_text(text::PROC_MAPS, &maps);
    }
    recorder.calibrate();
    // The first pages synchronously, the rest by the helper.
    let reserved = recorder
        .header_u64(offset::RECORDS_END)
        .load(Ordering::Relaxed);
    recorder.populate_to(reserved + POPULATE_AHEAD_MIN, POPULATE_AHEAD_MIN);
    OWNER_PID.store(std::process::id(), Ordering::Relaxed);
    let end_mode = if recorder.clock.tsc {
        END_TSC
    } else {
        END_CALL
    };
    RECORDS_END_WORD.store(
        recorder.base.wrapping_add(offset::RECORDS_END) as *mut u64,
        Ordering::Relaxed,
    );
    END_MODE.store(end_mode, Ordering::Relaxed);
    RECORDER.store(
        recorder as *const Recorder as *mut Recorder,
        Ordering::Release,
    );
    RECORDING.store(ON, Ordering::Release);
    // SAFETY: registering a plain extern "C" function.
    unsafe { libc::atexit(at_exit) };
    start_helper(recorder);
    if let Some(on_start) = prepared.on_start {
        // SAFETY: the C library's start hook, which records through this recorder.
        unsafe { on_start() };
    }
    Some(recorder)
}

/// Starts the helper thread with every signal blocked, so that no signal meant for the
/// program is ever delivered to it.
pub(super) fn start_helper(recorder: &'static Recorder) {
    // SAFETY: plain signal mask manipulation of the calling thread, restored below; the new
    // thread inherits the full mask.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let spawned = std::thread::Builder::new()
            .name("mpicheck-trace".into())
            .stack_size(64 << 10)
            .spawn(move || recorder.helper_loop());
        if spawned.is_ok() {
            recorder.helper_running.store(true, Ordering::Relaxed);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, ptr::null_mut());
    }
}
