//! The Landlock ruleset for a policy, built in the parent so the child only has to make two
//! system calls (`prctl` and `landlock_restrict_self`) between `fork` and `exec`.

use landlock::{
    path_beneath_rules, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, ABI,
};

use crate::error::SandboxError;
use crate::policy::SandboxPolicy;

/// Device files every command needs to write (`2>/dev/null`, terminals).
const DEVICES: [&str; 7] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

fn setup(err: impl std::fmt::Display) -> SandboxError {
    SandboxError::Setup(err.to_string())
}

/// Read everywhere; write only in the policy's roots and the devices.
pub(crate) fn build(policy: &SandboxPolicy) -> Result<RulesetCreated, SandboxError> {
    let abi = ABI::V5;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(setup)?
        .create()
        .map_err(setup)?
        .no_new_privs(true)
        .add_rules(path_beneath_rules(["/"], read))
        .map_err(setup)?
        .add_rules(path_beneath_rules(DEVICES, all))
        .map_err(setup)?
        .add_rules(path_beneath_rules(&policy.writable_roots, all))
        .map_err(setup)
}

/// Called in the child: enforce or fail (a partially enforced ruleset still confines writes).
pub(crate) fn restrict(ruleset: RulesetCreated) -> std::io::Result<()> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset != RulesetStatus::NotEnforced => Ok(()),
        Ok(_) => Err(std::io::Error::from_raw_os_error(libc::ENOSYS)),
        Err(_) => Err(std::io::Error::last_os_error()),
    }
}
