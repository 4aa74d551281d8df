//! How rho uses glibc's malloc so a long session does not keep the memory of every request.
//!
//! Each request carries the whole conversation: the agent's context, the provider's converted
//! copy and the encoded body are three or four transient copies of the transcript per turn
//! (about 60 MB at the peak of the soak below, where the session itself holds 15 MB of reply
//! text). Three settings keep those copies from staying resident once the turn is over:
//! - **Two arenas.** glibc gives every allocating thread its own arena (up to 8 per core) and
//!   memory freed in one is not reused by another; with tokio's workers building replies,
//!   events and session lines on whichever thread runs the task, the soak's debug build grew
//!   to ~460 MiB, against ~115 MiB with two arenas (which still lets two threads allocate
//!   without contending).
//! - **A fixed mmap threshold of 128 KiB.** glibc starts at 128 KiB but raises the threshold
//!   to the size of every mapped block freed (up to 32 MiB), so after the first large request
//!   the multi-megabyte bodies were carved out of the heap, where a freed one stayed resident
//!   until something happened to trim it. Fixed, every block of 128 KiB or more is mapped on
//!   its own and unmapped when freed.
//! - **`malloc_trim` after each run** ([`release_freed`], from the session's after-run hook):
//!   the transcript's copies are thousands of smaller blocks spread over the heap; trimming
//!   hands their pages back before the session reports idle.
//!
//! Measured with `cargo bench -p rho-cli --bench rpc_soak -- --only soak` (release, figures
//! read once rho is idle after the prompt): after 300 replies of 50 KB, 108-112 MiB resident
//! with two arenas alone, 43-70 MiB with trimming but glibc's moving threshold, 42-45 MiB with
//! all three; 12.6 MiB of that is the binary's own pages and about 19 MiB is the heap still in
//! use (mostly the 15 MB of reply text the conversation keeps). jemalloc 5.3 and mimalloc 2.0,
//! preloaded, ended at 364 and 240 MiB: both keep freed pages for reuse.
//!
//! A user's `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_` or `GLIBC_TUNABLES` wins.

/// The fixed mmap threshold: glibc's own starting value, without its dynamic increase.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Sets glibc's malloc parameters; call before any thread starts. Elsewhere it does nothing.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets an allocator parameter; it is called before other threads
        // exist, and a refused value leaves glibc's default in place.
        unsafe {
            if !user_set("MALLOC_ARENA_MAX", "arena_max") {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
            if !user_set("MALLOC_MMAP_THRESHOLD_", "mmap_threshold") {
                libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            }
        }
    }
}

/// Whether the user set this parameter, by its variable or in `GLIBC_TUNABLES`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn user_set(variable: &str, tunable: &str) -> bool {
    std::env::var_os(variable).is_some()
        || std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains(tunable))
}

/// Hands the memory a finished run freed back to the system (the session calls it after
/// each run loop). Elsewhere it does nothing.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own arenas to the
    // kernel; it takes the arena locks itself and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
