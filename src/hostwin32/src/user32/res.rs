//! Resources: strings, icons and cursors, bitmaps, menus, accelerators, message boxes.

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
