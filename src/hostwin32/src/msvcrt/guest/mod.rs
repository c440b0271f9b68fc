//! Built by `build.sh` from `crt.c`: see `super::guest_code`.
include!("crt_syms.rs");
