//! KERNEL32 Interlocked*: host atomic read-modify-writes on guest memory, atomic with
//! respect to the guest's own LOCK-prefixed instructions on other threads.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};

/// Atomically replaces the LONG at `p` by `f(old)` (or leaves it when `None`);
/// returns the old value.
fn rmw(cx: &Ctx, p: Ptr, mut f: impl FnMut(u32) -> Option<u32>) -> ApiResult<u32> {
    let (old, _) = cx
        .proc
        .mem
        .atomic_rmw(p.0, 4, |v| f(v as u32).map(u64::from))?;
    Ok(old as u32)
}

/// Returns the incremented value (NT; Windows 95 only promised its sign).
pub fn InterlockedIncrement(cx: &mut Ctx, Addend: Ptr) -> ApiResult<u32> {
    Ok(rmw(cx, Addend, |v| Some(v.wrapping_add(1)))?.wrapping_add(1))
}

pub fn InterlockedDecrement(cx: &mut Ctx, Addend: Ptr) -> ApiResult<u32> {
    Ok(rmw(cx, Addend, |v| Some(v.wrapping_sub(1)))?.wrapping_sub(1))
}

pub fn InterlockedExchange(cx: &mut Ctx, Target: Ptr, Value: u32) -> ApiResult<u32> {
    rmw(cx, Target, |_| Some(Value))
}

pub fn InterlockedCompareExchange(
    cx: &mut Ctx,
    Destination: Ptr,
    ExChange: u32,
    Comperand: u32,
) -> ApiResult<u32> {
    rmw(cx, Destination, |v| (v == Comperand).then_some(ExChange))
}

pub fn InterlockedExchangeAdd(cx: &mut Ctx, Addend: Ptr, Value: u32) -> ApiResult<u32> {
    rmw(cx, Addend, |v| Some(v.wrapping_add(Value)))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("InterlockedIncrement", InterlockedIncrement),
        stdcall("InterlockedDecrement", InterlockedDecrement),
        stdcall("InterlockedExchange", InterlockedExchange),
        stdcall("InterlockedCompareExchange", InterlockedCompareExchange),
        stdcall("InterlockedExchangeAdd", InterlockedExchangeAdd),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;
    use crate::thread::GuestThread;

    #[test]
    fn results_are_as_documented() {
        let mut h = Harness::new();
        let x = Ptr(h.scratch(4));
        let set = |h: &Harness, v: i32| h.proc.mem.write_u32(x.0, v as u32).unwrap();
        set(&h, 5);
        assert_eq!(InterlockedIncrement(&mut h.cx(), x).unwrap(), 6);
        assert_eq!(InterlockedDecrement(&mut h.cx(), x).unwrap(), 5);
        assert_eq!(InterlockedExchange(&mut h.cx(), x, 10).unwrap(), 5);
        assert_eq!(
            InterlockedCompareExchange(&mut h.cx(), x, 20, 10).unwrap(),
            10
        );
        assert_eq!(h.u32(x.0), 20);
        assert_eq!(
            InterlockedCompareExchange(&mut h.cx(), x, 30, 10).unwrap(),
            20
        );
        assert_eq!(h.u32(x.0), 20);
        assert_eq!(
            InterlockedExchangeAdd(&mut h.cx(), x, (-25i32) as u32).unwrap(),
            20
        );
        assert_eq!(h.u32(x.0) as i32, -5);
        set(&h, -1);
        assert_eq!(InterlockedIncrement(&mut h.cx(), x).unwrap(), 0);
        set(&h, i32::MAX);
        assert_eq!(
            InterlockedIncrement(&mut h.cx(), x).unwrap() as i32,
            i32::MIN
        );
        // Misaligned operands are still atomic (split lock) and give the same results.
        let y = Ptr(h.scratch(8).wrapping_add(2));
        assert_eq!(InterlockedExchangeAdd(&mut h.cx(), y, 7).unwrap(), 0);
        assert_eq!(InterlockedIncrement(&mut h.cx(), y).unwrap(), 8);
        // An unmapped operand is a fault, not a value.
        assert!(InterlockedIncrement(&mut h.cx(), Ptr(0x10)).is_err());
    }

    #[test]
    fn increments_from_many_host_threads_are_exact() {
        const THREADS: u32 = 8;
        const ITER: u32 = 100_000;
        let h = Harness::new();
        let x = Ptr(h.scratch(4));
        std::thread::scope(|s| {
            for k in 0..THREADS {
                let teb = h.scratch(crate::teb::TEB_SIZE);
                let mut t = GuestThread::new(&h.proc, 0x100 + 4 * k, teb);
                let proc = &h.proc;
                s.spawn(move || {
                    let mut cx = Ctx {
                        proc,
                        thread: &mut t,
                    };
                    for _ in 0..ITER {
                        InterlockedIncrement(&mut cx, x).unwrap();
                    }
                });
            }
        });
        assert_eq!(h.u32(x.0), THREADS * ITER);
    }
}
