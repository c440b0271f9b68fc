//! Kernel objects and the process handle table. Each DLL module defines its own
//! object types (files, events, threads, heaps, ...) by implementing
//! [`KernelObject`]; the table only hands out handles and reference counts.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Something a HANDLE can refer to.
pub trait KernelObject: Any + Send + Sync {
    /// Short type name for reports and `--trace-api` ("File", "Event", ...).
    fn type_name(&self) -> &'static str;
    /// The object's wait behaviour if WaitForSingleObject and friends accept it.
    fn as_waitable(&self) -> Option<&dyn crate::scheduler::Waitable> {
        None
    }
}

/// Pseudo-handles as Windows defines them.
pub const CURRENT_PROCESS: u32 = 0xffff_ffff;
pub const CURRENT_THREAD: u32 = 0xffff_fffe;
pub const INVALID_HANDLE_VALUE: u32 = 0xffff_ffff;

pub struct HandleTable {
    next: u32,
    map: HashMap<u32, Arc<dyn KernelObject>>,
}

impl Default for HandleTable {
    fn default() -> Self {
        // Handles are multiples of 4 as on Windows NT; start away from 0 and the
        // small values programs treat specially.
        HandleTable {
            next: 0x40,
            map: HashMap::new(),
        }
    }
}

impl HandleTable {
    pub fn insert(&mut self, obj: Arc<dyn KernelObject>) -> u32 {
        let h = self.next;
        self.next += 4;
        self.map.insert(h, obj);
        h
    }

    /// Inserts at a fixed handle value (standard handles).
    pub fn insert_at(&mut self, h: u32, obj: Arc<dyn KernelObject>) {
        self.map.insert(h, obj);
    }

    pub fn get(&self, h: u32) -> Option<Arc<dyn KernelObject>> {
        self.map.get(&h).cloned()
    }

    /// The object behind `h` if it has type `T`.
    pub fn get_as<T: KernelObject>(&self, h: u32) -> Option<Arc<T>> {
        let o: Arc<dyn Any + Send + Sync> = self.map.get(&h)?.clone();
        o.downcast::<T>().ok()
    }

    pub fn close(&mut self, h: u32) -> bool {
        self.map.remove(&h).is_some()
    }

    /// Every open handle, in order.
    pub fn handles(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.map.keys().copied().collect();
        v.sort_unstable();
        v
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The process-wide handle table.
pub type Handles = Mutex<HandleTable>;
