//! Network off as a ten-instruction seccomp filter: `socket()` for any family but `AF_UNIX`
//! fails with `EPERM`, and so does `io_uring_setup` (io_uring can open sockets on its own).
//! Written by hand on `libc` rather than with a filter compiler because the whole program is
//! this one rule; it is built in the parent and installed in the child with one `prctl`.

use libc::{sock_filter, sock_fprog};

const BPF_LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const BPF_JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const BPF_JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const BPF_RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const OFFSET_ARG0: u32 = 16;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
/// x32 system calls on x86_64 carry this bit; they are refused outright.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const RET_ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const RET_EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;

fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The network-off program.
pub(crate) fn network_off_program() -> Vec<sock_filter> {
    vec![
        stmt(BPF_LD_W_ABS, OFFSET_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 0, 7), // foreign architecture → EPERM
        stmt(BPF_LD_W_ABS, OFFSET_NR),
        jump(BPF_JGE_K, X32_SYSCALL_BIT, 5, 0), // x32 → EPERM
        jump(BPF_JEQ_K, libc::SYS_socket as u32, 2, 0),
        jump(BPF_JEQ_K, libc::SYS_io_uring_setup as u32, 3, 0),
        stmt(BPF_RET_K, RET_ALLOW),
        stmt(BPF_LD_W_ABS, OFFSET_ARG0),
        jump(BPF_JEQ_K, libc::AF_UNIX as u32, 1, 0),
        stmt(BPF_RET_K, RET_EPERM),
        stmt(BPF_RET_K, RET_ALLOW),
    ]
}

/// Called in the child: installs `program` (needs `no_new_privs`, set here).
pub(crate) fn install(program: &[sock_filter]) -> std::io::Result<()> {
    let prog = sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut sock_filter,
    };
    // SAFETY: prctl with integer arguments and a pointer to a live, correctly sized program.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &prog as *const sock_fprog,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
