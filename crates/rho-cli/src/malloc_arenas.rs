//! glibc gives every thread that allocates its own malloc arena (up to 8 per core), and memory
//! freed in one arena is not reused by another. With tokio's worker threads building replies,
//! events and session lines on whichever thread runs the task, a long session left most of its
//! freed memory stranded: 300 replies of 50 KB grew resident memory to ~460 MiB in a debug
//! build, against ~115 MiB with two arenas (`cargo bench -p rho-cli --profile dev --bench
//! rpc_soak -- --only soak`), which still lets two threads allocate without contending.
//! A user's own `MALLOC_ARENA_MAX` wins.

/// Caps glibc's malloc arenas; call before any thread starts. Elsewhere it does nothing.
pub fn limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; it is called before other threads
        // exist, and a refused value leaves glibc's default in place.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}
