//! KERNEL32 time: tick counts, the performance counter, system and local time,
//! FILETIME/SYSTEMTIME conversions, the time zone, Sleep.
//!
//! Two clocks:
//! - normally the host's ([`crate::host::Host::micros`], `system_time`);
//! - in deterministic mode the scheduler's virtual clock, driven by the instructions
//!   all threads retired plus the time skipped while every thread slept
//!   ([`crate::scheduler::virtual_time_us`]); the value handed out only moves
//!   forward, so threads never see time run backwards. The date starts at
//!   [`DETERMINISTIC_EPOCH`]. Sleep is a scheduler wait in both modes.
//!
//! Local time is UTC: the guest's time zone is "Coordinated Universal Time" with no
//! daylight saving, so GetLocalTime equals GetSystemTime.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::process::Process;
use crate::teb::set_last_error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::misc::err;

/// Retired instructions per virtual microsecond in deterministic mode (a 100 MIPS
/// machine: 1 ms per 100,000 instructions).
pub const INSNS_PER_MICRO: u64 = 100;
/// The virtual clock's date at time zero in deterministic mode: 2000-01-01 00:00 UTC,
/// as FILETIME.
pub const DETERMINISTIC_EPOCH: u64 = 125_911_584_000_000_000;
/// GetTickCount at process start: as if Windows had been up for a minute (some
/// programs treat a tick count of 0 as "never").
pub const BOOT_MILLIS: u64 = 60_000;
/// QueryPerformanceFrequency: the 8254 PIT rate Windows 9x reports.
pub const PERFORMANCE_FREQUENCY: u64 = 1_193_182;
/// FILETIME of 1970-01-01 (100 ns units since 1601-01-01).
pub const UNIX_EPOCH_FILETIME: u64 = 116_444_736_000_000_000;

/// The deterministic clock's state.
#[derive(Default)]
pub struct VirtualClock {
    /// The largest time handed out.
    now_us: AtomicU64,
}

/// Microseconds since process start on the guest's clock.
pub fn micros(cx: &Ctx) -> u64 {
    if !cx.proc.config.deterministic {
        return cx.proc.host.micros();
    }
    // One process clock for timeouts, Sleep and GetTickCount alike: the scheduler's
    // (all threads' retired instructions plus time skipped while everyone slept).
    let t = crate::scheduler::virtual_time_us(cx);
    let clock = &cx.proc.k32.clock;
    clock.now_us.fetch_max(t, Ordering::SeqCst).max(t)
}

/// [`micros`] for host-side callers between time slices (the headless runner's
/// refresh hook, the player's audio pump): in deterministic mode the clock as of the
/// last slice boundary, never behind a time a guest thread was already given.
pub fn micros_at_slice_boundary(proc: &crate::process::Process) -> u64 {
    if !proc.config.deterministic {
        return proc.host.micros();
    }
    let t = crate::scheduler::virtual_clock(proc) * 1000 / crate::scheduler::INSNS_PER_MS;
    proc.k32.clock.now_us.fetch_max(t, Ordering::SeqCst).max(t)
}

/// GetTickCount's value (also for winmm's timeGetTime).
pub fn tick_count(cx: &Ctx) -> u32 {
    (BOOT_MILLIS + micros(cx) / 1000) as u32
}

/// The current UTC time as FILETIME.
pub fn now_filetime(cx: &Ctx) -> u64 {
    if cx.proc.config.deterministic {
        return DETERMINISTIC_EPOCH + micros(cx) * 10;
    }
    filetime_from_system(cx.proc.host.system_time())
}

/// FILETIME (100 ns since 1601) of a host time; times before 1601 clamp to 0.
pub fn filetime_from_system(t: SystemTime) -> u64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => {
            UNIX_EPOCH_FILETIME.saturating_add((d.as_nanos() / 100).min(u64::MAX as u128) as u64)
        }
        Err(e) => UNIX_EPOCH_FILETIME
            .saturating_sub((e.duration().as_nanos() / 100).min(u64::MAX as u128) as u64),
    }
}

/// The host time of a FILETIME.
pub fn system_from_filetime(ft: u64) -> SystemTime {
    if ft >= UNIX_EPOCH_FILETIME {
        UNIX_EPOCH + Duration::from_nanos((ft - UNIX_EPOCH_FILETIME).saturating_mul(100))
    } else {
        UNIX_EPOCH - Duration::from_nanos((UNIX_EPOCH_FILETIME - ft).saturating_mul(100))
    }
}

/// SYSTEMTIME fields: year, month, day of week (0 = Sunday), day, hour, minute,
/// second, milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemTimeFields {
    pub year: u16,
    pub month: u16,
    pub day_of_week: u16,
    pub day: u16,
    pub hour: u16,
    pub minute: u16,
    pub second: u16,
    pub millis: u16,
}

/// Days since 1601-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    // Days from 0000-03-01 to 1601-01-01 are 584,694.
    era * 146_097 + doe - 584_694
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 584_694;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// FileTimeToSystemTime; `None` for values with the high bit set.
pub fn filetime_to_fields(ft: u64) -> Option<SystemTimeFields> {
    if ft >= 0x8000_0000_0000_0000 {
        return None;
    }
    let ms_total = ft / 10_000;
    let days = (ms_total / 86_400_000) as i64;
    let ms_day = ms_total % 86_400_000;
    let (y, m, d) = civil_from_days(days);
    Some(SystemTimeFields {
        year: y as u16,
        month: m as u16,
        // 1601-01-01 was a Monday.
        day_of_week: ((days + 1) % 7) as u16,
        day: d as u16,
        hour: (ms_day / 3_600_000) as u16,
        minute: (ms_day / 60_000 % 60) as u16,
        second: (ms_day / 1000 % 60) as u16,
        millis: (ms_day % 1000) as u16,
    })
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// SystemTimeToFileTime; `None` when a field is out of range (the day of the week
/// is ignored).
pub fn fields_to_filetime(t: &SystemTimeFields) -> Option<u64> {
    let (y, m, d) = (t.year as i64, t.month as i64, t.day as i64);
    if !(1601..=30827).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || d > days_in_month(y, m)
        || t.hour > 23
        || t.minute > 59
        || t.second > 59
        || t.millis > 999
    {
        return None;
    }
    let days = days_from_civil(y, m, d) as u64;
    let ms = days * 86_400_000
        + t.hour as u64 * 3_600_000
        + t.minute as u64 * 60_000
        + t.second as u64 * 1000
        + t.millis as u64;
    Some(ms * 10_000)
}

fn read_fields(proc: &Process, p: u32) -> ApiResult<SystemTimeFields> {
    let mut b = [0u8; 16];
    proc.mem.read_bytes(p, &mut b)?;
    let w = |k: usize| u16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
    Ok(SystemTimeFields {
        year: w(0),
        month: w(1),
        day_of_week: w(2),
        day: w(3),
        hour: w(4),
        minute: w(5),
        second: w(6),
        millis: w(7),
    })
}

fn write_fields(proc: &Process, p: u32, t: &SystemTimeFields) -> ApiResult<()> {
    let mut b = Vec::with_capacity(16);
    for v in [
        t.year,
        t.month,
        t.day_of_week,
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.millis,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    proc.mem.write_bytes(p, &b)?;
    Ok(())
}

fn read_ft(proc: &Process, p: u32) -> ApiResult<u64> {
    Ok(proc.mem.read_u64(p)?)
}

fn write_ft(proc: &Process, p: u32, v: u64) -> ApiResult<()> {
    proc.mem.write_u64(p, v)?;
    Ok(())
}

pub fn GetTickCount(cx: &mut Ctx) -> u32 {
    tick_count(cx)
}

pub fn QueryPerformanceFrequency(cx: &mut Ctx, lpFrequency: Ptr) -> ApiResult<bool> {
    write_ft(cx.proc, lpFrequency.0, PERFORMANCE_FREQUENCY)?;
    Ok(true)
}

pub fn QueryPerformanceCounter(cx: &mut Ctx, lpPerformanceCount: Ptr) -> ApiResult<bool> {
    let us = micros(cx) as u128;
    let ticks = (us * PERFORMANCE_FREQUENCY as u128 / 1_000_000) as u64;
    write_ft(cx.proc, lpPerformanceCount.0, ticks)?;
    Ok(true)
}

pub fn GetSystemTimeAsFileTime(cx: &mut Ctx, lpSystemTimeAsFileTime: Ptr) -> ApiResult<()> {
    let now = now_filetime(cx);
    write_ft(cx.proc, lpSystemTimeAsFileTime.0, now)
}

pub fn GetSystemTime(cx: &mut Ctx, lpSystemTime: Ptr) -> ApiResult<()> {
    let now = now_filetime(cx);
    let f = filetime_to_fields(now).unwrap_or(SystemTimeFields {
        year: 1601,
        month: 1,
        day_of_week: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        millis: 0,
    });
    write_fields(cx.proc, lpSystemTime.0, &f)
}

pub fn GetLocalTime(cx: &mut Ctx, lpSystemTime: Ptr) -> ApiResult<()> {
    GetSystemTime(cx, lpSystemTime)
}

pub fn FileTimeToSystemTime(cx: &mut Ctx, lpFileTime: Ptr, lpSystemTime: Ptr) -> ApiResult<bool> {
    let ft = read_ft(cx.proc, lpFileTime.0)?;
    match filetime_to_fields(ft) {
        Some(f) => {
            write_fields(cx.proc, lpSystemTime.0, &f)?;
            Ok(true)
        }
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(false)
        }
    }
}

pub fn SystemTimeToFileTime(cx: &mut Ctx, lpSystemTime: Ptr, lpFileTime: Ptr) -> ApiResult<bool> {
    let f = read_fields(cx.proc, lpSystemTime.0)?;
    match fields_to_filetime(&f) {
        Some(ft) => {
            write_ft(cx.proc, lpFileTime.0, ft)?;
            Ok(true)
        }
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(false)
        }
    }
}

/// Local time is UTC, so both conversions copy.
pub fn FileTimeToLocalFileTime(
    cx: &mut Ctx,
    lpFileTime: Ptr,
    lpLocalFileTime: Ptr,
) -> ApiResult<bool> {
    let ft = read_ft(cx.proc, lpFileTime.0)?;
    write_ft(cx.proc, lpLocalFileTime.0, ft)?;
    Ok(true)
}

pub fn LocalFileTimeToFileTime(
    cx: &mut Ctx,
    lpLocalFileTime: Ptr,
    lpFileTime: Ptr,
) -> ApiResult<bool> {
    let ft = read_ft(cx.proc, lpLocalFileTime.0)?;
    write_ft(cx.proc, lpFileTime.0, ft)?;
    Ok(true)
}

pub fn CompareFileTime(cx: &mut Ctx, lpFileTime1: Ptr, lpFileTime2: Ptr) -> ApiResult<i32> {
    let a = read_ft(cx.proc, lpFileTime1.0)?;
    let b = read_ft(cx.proc, lpFileTime2.0)?;
    Ok(match a.cmp(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

/// TIME_ZONE_INFORMATION (172 bytes) for UTC; TIME_ZONE_ID_UNKNOWN (no daylight
/// saving).
pub fn GetTimeZoneInformation(cx: &mut Ctx, lpTimeZoneInformation: Ptr) -> ApiResult<u32> {
    let mut b = vec![0u8; 172];
    let name: Vec<u8> = "Coordinated Universal Time"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    b[4..4 + name.len()].copy_from_slice(&name);
    b[88..88 + name.len()].copy_from_slice(&name);
    cx.proc.mem.write_bytes(lpTimeZoneInformation.0, &b)?;
    Ok(0)
}

pub fn FileTimeToDosDateTime(
    cx: &mut Ctx,
    lpFileTime: Ptr,
    lpFatDate: Ptr,
    lpFatTime: Ptr,
) -> ApiResult<bool> {
    let ft = read_ft(cx.proc, lpFileTime.0)?;
    let Some(f) = filetime_to_fields(ft).filter(|f| (1980..=2107).contains(&f.year)) else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    };
    let date = ((f.year - 1980) << 9) | (f.month << 5) | f.day;
    let time = (f.hour << 11) | (f.minute << 5) | (f.second / 2);
    cx.proc.mem.write_u16(lpFatDate.0, date)?;
    cx.proc.mem.write_u16(lpFatTime.0, time)?;
    Ok(true)
}

pub fn DosDateTimeToFileTime(
    cx: &mut Ctx,
    wFatDate: u16,
    wFatTime: u16,
    lpFileTime: Ptr,
) -> ApiResult<bool> {
    let f = SystemTimeFields {
        year: 1980 + (wFatDate >> 9),
        month: (wFatDate >> 5) & 0xf,
        day_of_week: 0,
        day: wFatDate & 0x1f,
        hour: wFatTime >> 11,
        minute: (wFatTime >> 5) & 0x3f,
        second: (wFatTime & 0x1f) * 2,
        millis: 0,
    };
    match fields_to_filetime(&f) {
        Some(ft) => {
            write_ft(cx.proc, lpFileTime.0, ft)?;
            Ok(true)
        }
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(false)
        }
    }
}

/// Sleeps through the scheduler: a real timed wait in OS-thread mode (woken early
/// if the process ends), a virtual-clock wait in deterministic mode.
pub fn sleep(cx: &mut Ctx, ms: u32) -> ApiResult<Outcome> {
    Ok(crate::scheduler::sleep(cx, ms))
}

pub fn Sleep(cx: &mut Ctx, dwMilliseconds: u32) -> ApiResult<Outcome> {
    sleep(cx, dwMilliseconds)
}

/// No APCs are ever queued, so an alertable sleep is an ordinary one (returns 0).
pub fn SleepEx(cx: &mut Ctx, dwMilliseconds: u32, _bAlertable: bool) -> ApiResult<Outcome> {
    sleep(cx, dwMilliseconds)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetTickCount", GetTickCount),
        stdcall("QueryPerformanceFrequency", QueryPerformanceFrequency),
        stdcall("QueryPerformanceCounter", QueryPerformanceCounter),
        stdcall("GetSystemTimeAsFileTime", GetSystemTimeAsFileTime),
        stdcall("GetSystemTime", GetSystemTime),
        stdcall("GetLocalTime", GetLocalTime),
        stdcall("FileTimeToSystemTime", FileTimeToSystemTime),
        stdcall("SystemTimeToFileTime", SystemTimeToFileTime),
        stdcall("FileTimeToLocalFileTime", FileTimeToLocalFileTime),
        stdcall("LocalFileTimeToFileTime", LocalFileTimeToFileTime),
        stdcall("CompareFileTime", CompareFileTime),
        stdcall("GetTimeZoneInformation", GetTimeZoneInformation),
        stdcall("FileTimeToDosDateTime", FileTimeToDosDateTime),
        stdcall("DosDateTimeToFileTime", DosDateTimeToFileTime),
        stdcall("Sleep", Sleep),
        stdcall("SleepEx", SleepEx),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    fn st(y: u16, mo: u16, dow: u16, d: u16, h: u16, mi: u16, s: u16, ms: u16) -> SystemTimeFields {
        SystemTimeFields {
            year: y,
            month: mo,
            day_of_week: dow,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            millis: ms,
        }
    }

    #[test]
    fn filetime_calendar_conversions() {
        // FILETIME 0 is Monday 1601-01-01.
        assert_eq!(filetime_to_fields(0), Some(st(1601, 1, 1, 1, 0, 0, 0, 0)));
        // The Unix epoch was a Thursday.
        assert_eq!(
            filetime_to_fields(UNIX_EPOCH_FILETIME),
            Some(st(1970, 1, 4, 1, 0, 0, 0, 0))
        );
        assert_eq!(
            fields_to_filetime(&st(1970, 1, 0, 1, 0, 0, 0, 0)),
            Some(UNIX_EPOCH_FILETIME)
        );
        // 2000-02-29 12:34:56.789 (a Tuesday) = Unix 951827696.789 s.
        let ft = UNIX_EPOCH_FILETIME + 951_827_696_789 * 10_000;
        assert_eq!(
            filetime_to_fields(ft),
            Some(st(2000, 2, 2, 29, 12, 34, 56, 789))
        );
        assert_eq!(
            fields_to_filetime(&st(2000, 2, 0, 29, 12, 34, 56, 789)),
            Some(ft)
        );
        assert_eq!(fields_to_filetime(&st(2001, 2, 0, 29, 0, 0, 0, 0)), None);
        assert_eq!(fields_to_filetime(&st(1600, 12, 0, 31, 0, 0, 0, 0)), None);
        assert_eq!(filetime_to_fields(0x8000_0000_0000_0000), None);
        assert_eq!(
            DETERMINISTIC_EPOCH,
            fields_to_filetime(&st(2000, 1, 0, 1, 0, 0, 0, 0)).unwrap()
        );
    }

    #[test]
    fn apis_write_documented_layouts() {
        let mut h = Harness::new();
        let p = h.scratch(0x1000);
        h.proc
            .mem
            .write_u64(p, UNIX_EPOCH_FILETIME + 10_000_000 * 86_400)
            .unwrap();
        assert!(FileTimeToSystemTime(&mut h.cx(), Ptr(p), Ptr(p + 16)).unwrap());
        let w: Vec<u16> = (0..8)
            .map(|k| h.proc.mem.read_u16(p + 16 + 2 * k).unwrap())
            .collect();
        assert_eq!(w, [1970, 1, 5, 2, 0, 0, 0, 0]);
        h.proc.mem.write_u16(p + 16 + 6, 13).unwrap();
        assert!(SystemTimeToFileTime(&mut h.cx(), Ptr(p + 16), Ptr(p + 32)).unwrap());
        assert_eq!(
            h.proc.mem.read_u64(p + 32).unwrap(),
            UNIX_EPOCH_FILETIME + 10_000_000 * 86_400 * 12
        );
        h.proc.mem.write_u16(p + 16 + 2, 13).unwrap();
        assert!(!SystemTimeToFileTime(&mut h.cx(), Ptr(p + 16), Ptr(p + 32)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(
            CompareFileTime(&mut h.cx(), Ptr(p), Ptr(p + 32)).unwrap(),
            -1
        );
        assert_eq!(GetTimeZoneInformation(&mut h.cx(), Ptr(p + 64)).unwrap(), 0);
        assert_eq!(h.u32(p + 64), 0);
        assert_eq!(h.wstr(p + 68), "Coordinated Universal Time");
        assert_eq!(h.wstr(p + 64 + 88), "Coordinated Universal Time");
        // FAT timestamps: 2004-06-15 10:20:30.
        let date: u16 = (24 << 9) | (6 << 5) | 15;
        let time: u16 = (10 << 11) | (20 << 5) | 15;
        assert!(DosDateTimeToFileTime(&mut h.cx(), date, time, Ptr(p)).unwrap());
        assert!(FileTimeToDosDateTime(&mut h.cx(), Ptr(p), Ptr(p + 8), Ptr(p + 10)).unwrap());
        assert_eq!(h.proc.mem.read_u16(p + 8).unwrap(), date);
        assert_eq!(h.proc.mem.read_u16(p + 10).unwrap(), time);
    }

    #[test]
    fn deterministic_clock_follows_retired_instructions() {
        let mut h = Harness::with_config(|c| c.deterministic = true);
        let t0 = GetTickCount(&mut h.cx());
        assert_eq!(t0, BOOT_MILLIS as u32);
        h.thread.exec.counters.insns = 2_000_000;
        assert_eq!(GetTickCount(&mut h.cx()), t0 + 20);
        // The clock never goes back, even for a thread that has run less.
        h.thread.exec.counters.insns = 0;
        assert_eq!(GetTickCount(&mut h.cx()), t0 + 20);
        let p = h.scratch(0x1000);
        QueryPerformanceFrequency(&mut h.cx(), Ptr(p)).unwrap();
        assert_eq!(h.proc.mem.read_u64(p).unwrap(), 1_193_182);
        QueryPerformanceCounter(&mut h.cx(), Ptr(p)).unwrap();
        assert_eq!(
            h.proc.mem.read_u64(p).unwrap(),
            20_000 * 1_193_182 / 1_000_000
        );
        GetSystemTime(&mut h.cx(), Ptr(p)).unwrap();
        let w: Vec<u16> = (0..8)
            .map(|k| h.proc.mem.read_u16(p + 2 * k).unwrap())
            .collect();
        // 2000-01-01 was a Saturday.
        assert_eq!(w, [2000, 1, 6, 1, 0, 0, 0, 20]);
    }
}
