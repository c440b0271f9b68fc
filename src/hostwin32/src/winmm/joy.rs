//! winmm: joy. Arrives with issue 5.

use crate::hle::ApiDef;

#[derive(Default)]
pub struct State {}

pub fn exports() -> Vec<ApiDef> {
    vec![]
}
