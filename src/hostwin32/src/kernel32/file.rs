//! KERNEL32 file functions.

#![allow(non_snake_case)]

use crate::hle::ApiDef;

#[derive(Default)]
pub struct FileState {}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
