//! winmm: MCI and MIDI. Arrives with issue 5.

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    vec![]
}
