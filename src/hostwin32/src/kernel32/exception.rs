//! KERNEL32 exception functions (RaiseException, RtlUnwind, ...).

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
