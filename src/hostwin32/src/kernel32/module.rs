//! KERNEL32 module functions.

#![allow(non_snake_case)]

use crate::hle::ApiDef;

#[derive(Default)]
pub struct ModuleState {}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
