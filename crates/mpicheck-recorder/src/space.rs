//! Room for the records: the file grows with its disk space reserved, and its pages are
//! populated ahead of the writers by the helper thread, or by a writer that finds it behind
//! (see the crate docs).

use super::*;

impl Recorder {
    /// Cold path of `reserve`: grows the file if `needed` is beyond it, wakes the helper to
    /// populate further ahead, and populates the next pages itself if the helper is behind
    /// (or absent): one `madvise` for many pages costs much less than a fault per page.
    /// False if the file cannot grow.
    #[cold]
    pub(super) fn beyond_soft_limit(&self, needed: u64) -> bool {
        if self.exiting.load(Ordering::SeqCst) {
            // Late calls at exit: the space below the limit is allocated and stays so.
            return needed <= self.exit_limit.load(Ordering::SeqCst);
        }
        if needed > self.file_len.load(Ordering::Acquire) && !self.grow(needed) {
            if self.no_space.load(Ordering::Relaxed) {
                self.header_u64(offset::DROPPED)
                    .fetch_add(1, Ordering::Relaxed);
            }
            return false;
        }
        let file_len = self.file_len.load(Ordering::Acquire);
        if !self.populate_supported.load(Ordering::Relaxed) {
            self.set_soft_limit(file_len);
            return true;
        }
        if self.helper_running.load(Ordering::Relaxed) {
            self.helper_wake.fetch_add(1, Ordering::Release);
            // SAFETY: futex wake on our own word; wakes at most the one helper.
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.helper_wake.as_ptr(),
                    libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                    1,
                );
            }
        }
        let populated = self.populated.load(Ordering::Acquire);
        let limit = if needed + WRITER_CHUNK / 2 > populated {
            // Pages below `needed - WRITER_CHUNK` were written already, faulted in or not.
            let from = populated.max(needed.saturating_sub(WRITER_CHUNK) / PAGE_SIZE * PAGE_SIZE);
            let to = (needed + WRITER_CHUNK)
                .next_multiple_of(PAGE_SIZE)
                .min(file_len);
            match self.populate_range(from, to, false) {
                Some(done) if done < to => {
                    file_len // failed: fault page by page until the helper moves the limit
                }
                Some(done) => done - WRITER_CHUNK / 2,
                // The helper is populating right now, most likely these very pages: fault
                // the next ones in as they come, and look again a little further on.
                None => needed + WRITER_CHUNK / 4,
            }
        } else {
            // Come back if the writers get close to the populated end before the helper.
            populated - WRITER_CHUNK / 2
        };
        self.set_soft_limit(limit.max(needed).min(file_len));
        true
    }

    /// Moves the writers' fast-path limit, unless exit has begun: from then on every
    /// reservation takes the cold path, which checks it against `exit_limit`.
    pub(super) fn set_soft_limit(&self, limit: u64) {
        self.soft_limit.store(limit, Ordering::SeqCst);
        // The exit handler sets `exiting` before zeroing the limit: if this store came after
        // that zeroing, `exiting` is seen here and the limit is zeroed again.
        if self.exiting.load(Ordering::SeqCst) {
            self.soft_limit.store(0, Ordering::SeqCst);
        }
    }

    /// Populates the pages of `[from, to)` (page-aligned, inside the file) in chunks; returns
    /// how far it got. A writer (`wait` false) never waits for the helper's chunk: None when
    /// the helper holds the lock.
    pub(super) fn populate_range(&self, from: u64, to: u64, wait: bool) -> Option<u64> {
        let mut done = from;
        while done < to {
            let _guard = match self.populate_lock.try_lock() {
                Ok(guard) => guard,
                Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) if !wait => return None,
                Err(std::sync::TryLockError::WouldBlock) => {
                    self.populate_lock.lock().unwrap_or_else(|e| e.into_inner())
                }
            };
            if self.exiting.load(Ordering::Acquire) {
                break;
            }
            let chunk = (to - done).min(POPULATE_CHUNK);
            // SAFETY: [done, done + chunk) is inside the file (only cut at exit, after
            // `exiting` is set) and inside the mapping. Populating only faults the pages in
            // writable; it does not change their contents.
            let failed = unsafe {
                libc::madvise(
                    self.base.add(done as usize) as *mut c_void,
                    chunk as usize,
                    MADV_POPULATE_WRITE,
                )
            } != 0;
            if failed {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
                    // Kernel before 5.14: the writers fault pages in themselves.
                    self.populate_supported.store(false, Ordering::Relaxed);
                }
                break;
            }
            done += chunk;
            self.populated.fetch_max(done, Ordering::Release);
        }
        Some(done)
    }

    /// The helper thread: keeps the file grown and its pages populated ahead of the writers,
    /// sleeping on `helper_wake` in between.
    pub(super) fn helper_loop(&self) {
        let mut ahead = POPULATE_AHEAD_MIN;
        loop {
            let seen = self.helper_wake.load(Ordering::Acquire);
            if self.exiting.load(Ordering::Acquire) {
                return;
            }
            let reserved = self.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
            // Writers came within half the distance of the populated end: look further ahead.
            if reserved + ahead / 2 > self.populated.load(Ordering::Relaxed) {
                ahead = (ahead * 2).min(POPULATE_AHEAD_MAX);
            }
            self.populate_to(reserved + ahead, ahead);
            self.calibrate();
            let timeout = libc::timespec {
                tv_sec: 0,
                tv_nsec: HELPER_PERIOD_NS,
            };
            // SAFETY: futex wait on our own word with a relative timeout; returns at once if
            // a writer bumped the word since `seen` was read.
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.helper_wake.as_ptr(),
                    libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                    seen,
                    &timeout as *const libc::timespec,
                );
            }
        }
    }

    /// Grows the file to at least `target` and populates its pages up to there; then lets
    /// the writers run until they come within `ahead / 2` of the populated end.
    pub(super) fn populate_to(&self, target: u64, ahead: u64) {
        let target = target.next_multiple_of(PAGE_SIZE);
        if !self.populate_supported.load(Ordering::Relaxed)
            || (target > self.file_len.load(Ordering::Acquire) && !self.grow(target))
        {
            return;
        }
        let from = self.populated.load(Ordering::Acquire);
        let done = self
            .populate_range(from, target, true)
            .unwrap_or(from)
            .max(from);
        let file_len = self.file_len.load(Ordering::Acquire);
        let limit = if self.populate_supported.load(Ordering::Relaxed) {
            done.saturating_sub(ahead / 2).min(file_len)
        } else {
            file_len
        };
        self.set_soft_limit(limit);
    }

    /// Grows the file to at least `needed`, with its disk space allocated, so that no store
    /// into the mapping below the new length can fault for want of space. False when it
    /// cannot: at exit, or when space ran out (then for good, with the header saying so).
    #[cold]
    pub(super) fn grow(&self, needed: u64) -> bool {
        if self.no_space.load(Ordering::Relaxed) {
            return false;
        }
        let _guard = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
        if self.exiting.load(Ordering::Acquire) || self.no_space.load(Ordering::Relaxed) {
            return false;
        }
        let current = self.file_len.load(Ordering::Acquire);
        if needed <= current {
            return true;
        }
        let step = (current / 4).clamp(GROW_STEP, GROW_STEP_MAX);
        let new_len = needed.max(current + step).min(self.reserved);
        if needed > new_len || !self.allocate(current, new_len) {
            self.stop_for_no_space();
            return false;
        }
        self.file_len.store(new_len, Ordering::Release);
        true
    }

    /// Allocates the file's blocks in `[from, to)`, extending it to `to`.
    pub(super) fn allocate(&self, from: u64, to: u64) -> bool {
        let Some(fd) = self.trace_fd() else {
            return false;
        };
        // SAFETY: plain syscall on the trace's own descriptor. glibc emulates it by writing
        // where the file system cannot allocate (then it is slower, but still reserves the
        // blocks).
        let err =
            unsafe { libc::posix_fallocate(fd, from as libc::off_t, (to - from) as libc::off_t) };
        err == 0
    }

    /// The trace's descriptor, while it still names the trace file. A program that closes a
    /// descriptor it does not own (a double `close`, a loop closing every descriptor) frees
    /// the trace's number, and the next file the program opens takes it: growing or
    /// punching that file would change the program's data. `None` then, with the header
    /// saying so ([`state::FILE_CLOSED`]): the trace cannot grow, and recording stops as on
    /// a full disk.
    pub(super) fn trace_fd(&self) -> Option<libc::c_int> {
        let fd = self.file.as_raw_fd();
        // SAFETY: fstat into a zeroed struct of the right type.
        let named = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(fd, &mut st) == 0 && (st.st_dev, st.st_ino) == self.file_id
        };
        if !named {
            self.set_state_flag(state::FILE_CLOSED);
            return None;
        }
        Some(fd)
    }

    /// The trace cannot grow any more: say so in the header; every later call is dropped
    /// (and counted) instead of recorded.
    #[cold]
    pub(super) fn stop_for_no_space(&self) {
        if !self.no_space.swap(true, Ordering::AcqRel) {
            self.set_state_flag(state::NO_SPACE);
        }
    }
}
