//! KERNEL32 module functions.

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
