//! Read-only folders inside a writable root. Landlock only grants rights to whole trees, so it
//! cannot keep `.git/hooks` read-only inside a writable project; a private mount namespace
//! can: the child enters a new user and mount namespace and bind-mounts each such folder
//! read-only over itself. Everything is prepared in the parent; the child only makes system
//! calls on ready buffers. Where user namespaces are disabled the child goes on without them
//! (Landlock still confines writes to the roots) and [`MountPlan::probe`] reports it.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The prepared namespace setup.
#[derive(Debug, Clone)]
pub(crate) struct MountPlan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Each read-only folder and the flags its mount must keep (locked in a user namespace).
    paths: Vec<(CString, libc::c_ulong)>,
}

fn locked_flags(path: &Path) -> Option<libc::c_ulong> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the zeroed struct for a valid C string path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Some(
        pairs
            .iter()
            .filter(|(st_flag, _)| st.f_flag & st_flag != 0)
            .fold(0, |acc, (_, ms)| acc | ms),
    )
}

impl MountPlan {
    /// A plan for the existing folders among `read_only` that lie inside a writable root
    /// (the others are read-only already); `None` when there are none.
    pub(crate) fn new(read_only: &[PathBuf], writable: &[PathBuf]) -> Option<Self> {
        let paths: Vec<(CString, libc::c_ulong)> = read_only
            .iter()
            .filter(|p| p.is_dir() && writable.iter().any(|w| p.starts_with(w)))
            .filter_map(|p| {
                let flags = locked_flags(p)?;
                Some((CString::new(p.as_os_str().as_bytes()).ok()?, flags))
            })
            .collect();
        if paths.is_empty() {
            return None;
        }
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Some(Self {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            paths,
        })
    }

    /// Called in the child. Returns false when user namespaces are not available.
    pub(crate) fn apply(&self) -> std::io::Result<bool> {
        // SAFETY: plain system calls on buffers prepared before fork.
        unsafe {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                return Ok(false);
            }
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            for (path, flags) in &self.paths {
                check(libc::mount(
                    path.as_ptr(),
                    path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
                check(libc::mount(
                    std::ptr::null(),
                    path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags,
                    std::ptr::null(),
                ))?;
            }
        }
        Ok(true)
    }
}

fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// # Safety
/// Only system calls; safe between fork and exec.
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    libc::close(fd);
    if n == data.len() as isize {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
