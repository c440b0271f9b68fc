//! Structured exception handling: guest exceptions dispatched through the FS:[0]
//! chain. (Until the dispatcher lands, every exception is reported as unhandled.)

use crate::process::Process;
use crate::thread::{GuestThread, ThreadEnd};
use std::sync::Arc;
use winterp_core::Exception;

/// Delivers `e` to the guest's handlers; `Err` ends the thread with a report.
pub fn dispatch(t: &mut GuestThread, proc: &Arc<Process>, e: Exception) -> Result<(), ThreadEnd> {
    Err(ThreadEnd::Crashed(t.exception_report(proc, &e)))
}
