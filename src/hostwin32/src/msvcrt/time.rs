//! <time.h>: time, clock, gmtime/localtime/mktime, strftime, asctime/ctime, _ftime,
//! difftime. Time comes from KERNEL32 (GetSystemTimeAsFileTime, GetTickCount,
//! GetTimeZoneInformation), so deterministic runs see KERNEL32's virtual clock.

#![allow(non_snake_case)]

use super::gmem::{read_cstr, write_cstr};
use super::state::{self, crt, k32};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, cdecl, data};
use crate::process::Process;
use std::sync::Arc;

/// 100 ns intervals between 1601-01-01 and 1970-01-01.
const EPOCH_DIFF: u64 = 116_444_736_000_000_000;

/// `struct tm` (nine ints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tm {
    pub sec: i32,
    pub min: i32,
    pub hour: i32,
    pub mday: i32,
    pub mon: i32,
    pub year: i32,
    pub wday: i32,
    pub yday: i32,
    pub isdst: i32,
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Broken-down UTC time of a Unix time.
pub fn gm(t: i64) -> Tm {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    let yday = days - days_from_civil(y, 1, 1);
    Tm {
        sec: (secs % 60) as i32,
        min: (secs / 60 % 60) as i32,
        hour: (secs / 3600) as i32,
        mday: d as i32,
        mon: (m - 1) as i32,
        year: (y - 1900) as i32,
        wday: (days + 4).rem_euclid(7) as i32,
        yday: yday as i32,
        isdst: 0,
    }
}

/// Unix time of a broken-down time taken as UTC, normalising out-of-range fields.
pub fn timegm(tm: &Tm) -> i64 {
    let mon = tm.mon as i64;
    let y = 1900 + tm.year as i64 + mon.div_euclid(12);
    let m = mon.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1) + tm.mday as i64 - 1;
    days * 86_400 + tm.hour as i64 * 3600 + tm.min as i64 * 60 + tm.sec as i64
}

fn read_tm(cx: &Ctx, p: u32) -> ApiResult<Tm> {
    let m = &cx.proc.mem;
    let f = |k: u32| m.read_u32(p + 4 * k).map(|v| v as i32);
    Ok(Tm {
        sec: f(0)?,
        min: f(1)?,
        hour: f(2)?,
        mday: f(3)?,
        mon: f(4)?,
        year: f(5)?,
        wday: f(6)?,
        yday: f(7)?,
        isdst: f(8)?,
    })
}

fn write_tm(cx: &Ctx, p: u32, tm: &Tm) -> ApiResult<()> {
    let v = [
        tm.sec, tm.min, tm.hour, tm.mday, tm.mon, tm.year, tm.wday, tm.yday, tm.isdst,
    ];
    for (k, x) in v.iter().enumerate() {
        cx.proc.mem.write_u32(p + 4 * k as u32, *x as u32)?;
    }
    Ok(())
}

/// Seconds since 1970 from KERNEL32's clock.
fn now(cx: &mut Ctx) -> ApiResult<i64> {
    let ft = state::scratch(cx)?;
    k32(cx, "GetSystemTimeAsFileTime", &[ft])?;
    let v = cx.proc.mem.read_u64(ft)?;
    Ok((v as i64 - EPOCH_DIFF as i64).div_euclid(10_000_000))
}

fn now_ms(cx: &mut Ctx) -> ApiResult<(i64, u16)> {
    let ft = state::scratch(cx)?;
    k32(cx, "GetSystemTimeAsFileTime", &[ft])?;
    let v = cx.proc.mem.read_u64(ft)? as i64 - EPOCH_DIFF as i64;
    Ok((
        v.div_euclid(10_000_000),
        (v.rem_euclid(10_000_000) / 10_000) as u16,
    ))
}

/// Minutes west of UTC and whether daylight time is in effect now.
fn bias(cx: &mut Ctx) -> ApiResult<(i32, bool)> {
    let tzi = state::scratch(cx)?;
    let r = k32(cx, "GetTimeZoneInformation", &[tzi])?;
    let b = cx.proc.mem.read_u32(tzi)? as i32;
    let std_bias = cx.proc.mem.read_u32(tzi + 84)? as i32;
    let dst_bias = cx.proc.mem.read_u32(tzi + 168)? as i32;
    // TIME_ZONE_ID_DAYLIGHT = 2.
    Ok(if r == 2 {
        (b + dst_bias, true)
    } else {
        (b + if r == 1 { std_bias } else { 0 }, false)
    })
}

fn time(cx: &mut Ctx, timer: Ptr) -> ApiResult<u32> {
    let t = now(cx)? as u32;
    if !timer.is_null() {
        cx.proc.mem.write_u32(timer.0, t)?;
    }
    Ok(t)
}

fn _time64(cx: &mut Ctx, timer: Ptr) -> ApiResult<u64> {
    let t = now(cx)? as u64;
    if !timer.is_null() {
        cx.proc.mem.write_u64(timer.0, t)?;
    }
    Ok(t)
}

/// clock(): milliseconds (CLOCKS_PER_SEC 1000) since the runtime started.
fn clock(cx: &mut Ctx) -> ApiResult<u32> {
    let t = k32(cx, "GetTickCount", &[])?;
    let c = crt(cx.proc);
    let mut st = c.lock();
    let start = *st.clock_start.get_or_insert(t);
    Ok(t.wrapping_sub(start))
}

/// Records clock()'s start (called at start-up).
pub fn start_clock(cx: &mut Ctx) -> ApiResult<()> {
    let t = k32(cx, "GetTickCount", &[])?;
    crt(cx.proc).lock().clock_start.get_or_insert(t);
    Ok(())
}

fn tm_out(cx: &mut Ctx, tm: Tm) -> ApiResult<u32> {
    let p = state::thread_data(cx)?.block + state::TM;
    write_tm(cx, p, &tm)?;
    Ok(p)
}

fn gmtime(cx: &mut Ctx, timer: Ptr) -> ApiResult<u32> {
    let t = cx.proc.mem.read_u32(timer.0)? as i32 as i64;
    if t < 0 {
        return Ok(0);
    }
    tm_out(cx, gm(t))
}

fn localtime(cx: &mut Ctx, timer: Ptr) -> ApiResult<u32> {
    let t = cx.proc.mem.read_u32(timer.0)? as i32 as i64;
    if t < 0 {
        return Ok(0);
    }
    let (b, dst) = bias(cx)?;
    let mut tm = gm(t - 60 * b as i64);
    tm.isdst = dst as i32;
    tm_out(cx, tm)
}

fn mktime(cx: &mut Ctx, timeptr: Ptr) -> ApiResult<u32> {
    let tm = read_tm(cx, timeptr.0)?;
    let (b, dst) = bias(cx)?;
    let t = timegm(&tm) + 60 * b as i64;
    if !(0..=i32::MAX as i64).contains(&t) {
        return Ok(u32::MAX);
    }
    let mut norm = gm(t - 60 * b as i64);
    norm.isdst = dst as i32;
    write_tm(cx, timeptr.0, &norm)?;
    Ok(t as u32)
}

fn _mkgmtime(cx: &mut Ctx, timeptr: Ptr) -> ApiResult<u32> {
    let tm = read_tm(cx, timeptr.0)?;
    let t = timegm(&tm);
    if !(0..=i32::MAX as i64).contains(&t) {
        return Ok(u32::MAX);
    }
    write_tm(cx, timeptr.0, &gm(t))?;
    Ok(t as u32)
}

fn difftime(_cx: &mut Ctx, t1: i32, t0: i32) -> f64 {
    t1 as f64 - t0 as f64
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const DAYS_LONG: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const MONTHS_LONG: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn pick<'a>(t: &[&'a str], k: i32) -> &'a str {
    t.get(k as usize).copied().unwrap_or("?")
}

/// `asctime` text: "Wed Jan 02 02:03:55 1980\n".
pub fn asctime_text(tm: &Tm) -> String {
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} {}\n",
        pick(&DAYS, tm.wday),
        pick(&MONTHS, tm.mon),
        tm.mday,
        tm.hour,
        tm.min,
        tm.sec,
        1900 + tm.year
    )
}

fn asctime(cx: &mut Ctx, timeptr: Ptr) -> ApiResult<u32> {
    let tm = read_tm(cx, timeptr.0)?;
    let p = state::thread_data(cx)?.block + state::ASCTIME;
    write_cstr(&cx.proc.mem, p, asctime_text(&tm).as_bytes())?;
    Ok(p)
}

fn ctime(cx: &mut Ctx, timer: Ptr) -> ApiResult<u32> {
    let tmp = localtime(cx, timer)?;
    if tmp == 0 {
        return Ok(0);
    }
    asctime(cx, Ptr(tmp))
}

/// strftime in the C locale; `None` if a conversion is not supported.
pub fn strftime_text(fmt: &[u8], tm: &Tm, tzname: &str) -> Result<Vec<u8>, String> {
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c as char);
            continue;
        }
        // '#' changes the form of some conversions (leading zeros dropped).
        let alt = fmt.get(i) == Some(&b'#');
        if alt {
            i += 1;
        }
        let Some(&k) = fmt.get(i) else {
            break;
        };
        i += 1;
        let num = |v: i32, w: usize| {
            if alt {
                v.to_string()
            } else {
                format!("{v:0w$}")
            }
        };
        let h12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
        match k {
            b'a' => out += pick(&DAYS, tm.wday),
            b'A' => out += pick(&DAYS_LONG, tm.wday),
            b'b' | b'h' => out += pick(&MONTHS, tm.mon),
            b'B' => out += pick(&MONTHS_LONG, tm.mon),
            b'c' => {
                if alt {
                    out += &format!(
                        "{}, {} {:02}, {} {:02}:{:02}:{:02}",
                        pick(&DAYS_LONG, tm.wday),
                        pick(&MONTHS_LONG, tm.mon),
                        tm.mday,
                        1900 + tm.year,
                        tm.hour,
                        tm.min,
                        tm.sec
                    )
                } else {
                    out += &format!(
                        "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
                        tm.mon + 1,
                        tm.mday,
                        tm.year.rem_euclid(100),
                        tm.hour,
                        tm.min,
                        tm.sec
                    )
                }
            }
            b'd' => out += &num(tm.mday, 2),
            b'H' => out += &num(tm.hour, 2),
            b'I' => out += &num(h12, 2),
            b'j' => out += &num(tm.yday + 1, 3),
            b'm' => out += &num(tm.mon + 1, 2),
            b'M' => out += &num(tm.min, 2),
            b'p' => out += if tm.hour < 12 { "AM" } else { "PM" },
            b'S' => out += &num(tm.sec, 2),
            b'U' => out += &num((tm.yday + 7 - tm.wday) / 7, 2),
            b'w' => out += &tm.wday.to_string(),
            b'W' => out += &num((tm.yday + 7 - (tm.wday + 6) % 7) / 7, 2),
            b'x' => {
                out += &format!(
                    "{:02}/{:02}/{:02}",
                    tm.mon + 1,
                    tm.mday,
                    tm.year.rem_euclid(100)
                )
            }
            b'X' => out += &format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec),
            b'y' => out += &num(tm.year.rem_euclid(100), 2),
            b'Y' => out += &(1900 + tm.year).to_string(),
            b'z' | b'Z' => out += tzname,
            b'%' => out.push('%'),
            other => return Err(format!("strftime conversion %{}", other as char)),
        }
    }
    Ok(out.into_bytes())
}

fn strftime(cx: &mut Ctx, s: Ptr, maxsize: u32, format: CStrPtr, timeptr: Ptr) -> ApiResult<u32> {
    let fmt = read_cstr(&cx.proc.mem, format.0, 4096)?;
    let tm = read_tm(cx, timeptr.0)?;
    let text = strftime_text(&fmt, &tm, "").map_err(crate::hle::ApiError::UnimplementedCase)?;
    if text.len() >= maxsize as usize {
        return Ok(0);
    }
    write_cstr(&cx.proc.mem, s.0, &text)?;
    Ok(text.len() as u32)
}

/// `_ftime(struct _timeb *)`: time, millitm, timezone, dstflag.
fn _ftime(cx: &mut Ctx, timeptr: Ptr) -> ApiResult<()> {
    let (t, ms) = now_ms(cx)?;
    let (b, dst) = bias(cx)?;
    let m = &cx.proc.mem;
    m.write_u32(timeptr.0, t as u32)?;
    m.write_u16(timeptr.0 + 4, ms)?;
    m.write_u16(timeptr.0 + 6, b as u16)?;
    m.write_u16(timeptr.0 + 8, dst as u16)?;
    Ok(())
}

fn local_now(cx: &mut Ctx) -> ApiResult<Tm> {
    let t = now(cx)?;
    let (b, _) = bias(cx)?;
    Ok(gm(t - 60 * b as i64))
}

fn _strdate(cx: &mut Ctx, buf: Ptr) -> ApiResult<u32> {
    let tm = local_now(cx)?;
    let s = format!(
        "{:02}/{:02}/{:02}",
        tm.mon + 1,
        tm.mday,
        tm.year.rem_euclid(100)
    );
    write_cstr(&cx.proc.mem, buf.0, s.as_bytes())?;
    Ok(buf.0)
}

fn _strtime(cx: &mut Ctx, buf: Ptr) -> ApiResult<u32> {
    let tm = local_now(cx)?;
    let s = format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec);
    write_cstr(&cx.proc.mem, buf.0, s.as_bytes())?;
    Ok(buf.0)
}

fn _tzset(cx: &mut Ctx) -> ApiResult<()> {
    let (b, _) = bias(cx)?;
    let a = cx.proc.resolve_hle("msvcrt.dll", "_timezone")?;
    cx.proc.mem.write_u32(a, (b * 60) as u32)?;
    Ok(())
}

fn init_tzname(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    // Two empty names until _tzset; the runtime's defaults without TZ.
    let s = state::intern(proc, b"")?;
    proc.mem.write_u32(a, s)?;
    proc.mem.write_u32(a + 4, s)?;
    Ok(())
}

fn no_init(_: &Arc<Process>, _: u32) -> ApiResult<()> {
    Ok(())
}

fn __p__timezone(cx: &mut Ctx) -> ApiResult<u32> {
    cx.proc.resolve_hle("msvcrt.dll", "_timezone")
}

fn __p__daylight(cx: &mut Ctx) -> ApiResult<u32> {
    cx.proc.resolve_hle("msvcrt.dll", "_daylight")
}

fn __p__tzname(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "_tzname", init_tzname)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        data("_timezone", 4, no_init),
        data("_daylight", 4, no_init),
        data("_tzname", 8, init_tzname),
        cdecl("time", time),
        cdecl("_time32", time),
        cdecl("_time64", _time64),
        cdecl("clock", clock),
        cdecl("gmtime", gmtime),
        cdecl("localtime", localtime),
        cdecl("mktime", mktime),
        cdecl("_mkgmtime", _mkgmtime),
        cdecl("difftime", difftime),
        cdecl("asctime", asctime),
        cdecl("ctime", ctime),
        cdecl("strftime", strftime),
        cdecl("_ftime", _ftime),
        cdecl("_strdate", _strdate),
        cdecl("_strtime", _strtime),
        cdecl("_tzset", _tzset),
        cdecl("__p__timezone", __p__timezone),
        cdecl("__p__daylight", __p__daylight),
        cdecl("__p__tzname", __p__tzname),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_leap(y: i64) -> bool {
        (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
    }

    // Calendar facts: 1970-01-01 was a Thursday; 2000-02-29 existed; Unix time
    // 1234567890 is 2009-02-13 23:31:30 UTC, a Friday.
    #[test]
    fn calendar() {
        let t = gm(0);
        assert_eq!((t.year, t.mon, t.mday, t.wday, t.yday), (70, 0, 1, 4, 0));
        let t = gm(1_234_567_890);
        assert_eq!(
            (t.year, t.mon, t.mday, t.hour, t.min, t.sec, t.wday, t.yday),
            (109, 1, 13, 23, 31, 30, 5, 43)
        );
        assert_eq!(timegm(&t), 1_234_567_890);
        let leap = Tm {
            year: 100,
            mon: 1,
            mday: 29,
            ..Default::default()
        };
        assert_eq!(gm(timegm(&leap)).mday, 29);
        assert!(is_leap(2000) && !is_leap(1900));
        // Normalisation: month 12 of 1999 is January 2000.
        let n = Tm {
            year: 99,
            mon: 12,
            mday: 1,
            ..Default::default()
        };
        assert_eq!(gm(timegm(&n)).year, 100);
    }

    #[test]
    fn text_forms() {
        let t = gm(1_234_567_890);
        assert_eq!(asctime_text(&t), "Fri Feb 13 23:31:30 2009\n");
        assert_eq!(
            strftime_text(b"%Y-%m-%d %H:%M:%S %a %b %j %p %I %%", &t, "").unwrap(),
            b"2009-02-13 23:31:30 Fri Feb 044 PM 11 %"
        );
        assert_eq!(
            strftime_text(b"%x %X", &t, "").unwrap(),
            b"02/13/09 23:31:30"
        );
        assert!(strftime_text(b"%Q", &t, "").is_err());
    }
}
