//! KERNEL32 INI file functions (Get/WritePrivateProfile*, Get/WriteProfile*).

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
