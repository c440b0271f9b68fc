//! msvcrt's routines that run as guest code: memcpy, memmove, memset, memcmp,
//! strlen, strcmp, strcpy, qsort and bsearch, compiled from `guest/crt.c` into
//! `guest/crt.bin` by `guest/build.sh` (the outputs are committed).
//!
//! Why guest code: programs call these in their inner loops (cpuheavy about two
//! million strlen and memcpy calls, lzhuff 0.8 million), and a call to an HLE
//! function ends the executor's run, crosses into the host and starts a new run,
//! where as guest code the call is a few instructions that the CPU tiers compile
//! with the caller. qsort and bsearch call the program's comparator; as guest code
//! that is a plain guest call instead of a host-initiated one per comparison.
//! A bad pointer faults inside msvcrt's code, as on Windows, and guest SEH sees it.

use super::guest::SYMS;
use crate::hle::{ApiDef, GuestBlob, guest_code};

pub static CRT: GuestBlob = GuestBlob {
    name: "msvcrt guest code",
    bytes: include_bytes!("guest/crt.bin"),
};

/// Argument slots of each routine (all cdecl), as `crt.c` declares them.
const NARGS: &[(&str, u8)] = &[
    ("bsearch", 5),
    ("memcmp", 3),
    ("memcpy", 3),
    ("memmove", 3),
    ("memset", 3),
    ("qsort", 4),
    ("strcmp", 2),
    ("strcpy", 2),
    ("strlen", 1),
];

pub fn exports() -> Vec<ApiDef> {
    SYMS.iter()
        .map(|&(name, offset)| {
            let nargs = NARGS
                .iter()
                .find(|n| n.0 == name)
                .map(|n| n.1)
                .unwrap_or_else(|| panic!("guest/crt.c exports {name}, which NARGS lacks"));
            guest_code(name, &CRT, offset, nargs)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_routine_has_its_argument_count() {
        assert_eq!(super::exports().len(), super::NARGS.len());
    }
}
