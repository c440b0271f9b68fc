//! <math.h>, the `_CI*` intrinsic helpers (arguments on the x87 stack), `_ftol`,
//! and the integer helpers (abs, div, ...). Domain errors set errno EDOM and
//! return the x87 indefinite NaN; overflow sets ERANGE, as msvcrt does.

#![allow(non_snake_case)]

use super::state::{errno, set_errno};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, cdecl};

/// The x87 "real indefinite" msvcrt returns for domain errors (prints as -1.#IND).
const IND: f64 = f64::from_bits(0xfff8_0000_0000_0000);

/// Applies msvcrt's error reporting to a result.
fn check(cx: &mut Ctx, args_finite: bool, r: f64, domain: bool) -> ApiResult<f64> {
    if domain {
        set_errno(cx, errno::EDOM)?;
        return Ok(IND);
    }
    if args_finite && r.is_infinite() {
        set_errno(cx, errno::ERANGE)?;
    }
    Ok(r)
}

fn sin(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.sin(), x.is_infinite())
}
fn cos(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.cos(), x.is_infinite())
}
fn tan(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.tan(), x.is_infinite())
}
fn asin(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.asin(), x.abs() > 1.0)
}
fn acos(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.acos(), x.abs() > 1.0)
}
fn atan(_cx: &mut Ctx, x: f64) -> f64 {
    x.atan()
}
fn atan2(cx: &mut Ctx, y: f64, x: f64) -> ApiResult<f64> {
    check(cx, true, y.atan2(x), false)
}
fn sinh(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, x.is_finite(), x.sinh(), false)
}
fn cosh(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, x.is_finite(), x.cosh(), false)
}
fn tanh(_cx: &mut Ctx, x: f64) -> f64 {
    x.tanh()
}
fn exp(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    let r = x.exp();
    if x.is_finite() && r == 0.0 && x != f64::NEG_INFINITY {
        set_errno(cx, errno::ERANGE)?;
    }
    check(cx, x.is_finite(), r, false)
}
fn log(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    if x == 0.0 {
        set_errno(cx, errno::ERANGE)?;
        return Ok(f64::NEG_INFINITY);
    }
    check(cx, false, x.ln(), x < 0.0)
}
fn log10(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    if x == 0.0 {
        set_errno(cx, errno::ERANGE)?;
        return Ok(f64::NEG_INFINITY);
    }
    check(cx, false, x.log10(), x < 0.0)
}
fn pow(cx: &mut Ctx, x: f64, y: f64) -> ApiResult<f64> {
    let domain = x < 0.0 && y.is_finite() && y.fract() != 0.0;
    if x == 0.0 && y < 0.0 {
        set_errno(cx, errno::ERANGE)?;
        return Ok(
            f64::INFINITY.copysign(if y.fract() == 0.0 && (y as i64) % 2 != 0 {
                x
            } else {
                1.0
            }),
        );
    }
    check(cx, x.is_finite() && y.is_finite(), x.powf(y), domain)
}
fn sqrt(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    check(cx, true, x.sqrt(), x < 0.0)
}
fn fabs(_cx: &mut Ctx, x: f64) -> f64 {
    x.abs()
}
fn floor(_cx: &mut Ctx, x: f64) -> f64 {
    x.floor()
}
fn ceil(_cx: &mut Ctx, x: f64) -> f64 {
    x.ceil()
}
fn fmod(cx: &mut Ctx, x: f64, y: f64) -> ApiResult<f64> {
    check(cx, false, x % y, y == 0.0 || x.is_infinite())
}
fn modf(cx: &mut Ctx, x: f64, intptr: Ptr) -> ApiResult<f64> {
    let i = x.trunc();
    cx.proc.mem.write_u64(intptr.0, i.to_bits())?;
    Ok(if x.is_infinite() {
        0.0f64.copysign(x)
    } else {
        x - i
    })
}

/// frexp's mantissa in [0.5, 1) and exponent.
pub fn frexp_parts(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e2) = frexp_parts(x * 2f64.powi(64));
        return (m, e2 - 64);
    }
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e - 1022)
}

fn frexp(cx: &mut Ctx, x: f64, expptr: Ptr) -> ApiResult<f64> {
    let (m, e) = frexp_parts(x);
    cx.proc.mem.write_u32(expptr.0, e as u32)?;
    Ok(m)
}

pub fn ldexp_f(x: f64, e: i32) -> f64 {
    // Two steps so 2^e itself never overflows or underflows on the way.
    let e = e.clamp(-2200, 2200);
    let half = e / 2;
    x * 2f64.powi(half) * 2f64.powi(e - half)
}

fn ldexp(cx: &mut Ctx, x: f64, e: i32) -> ApiResult<f64> {
    check(cx, x.is_finite(), ldexp_f(x, e), false)
}
fn _hypot(cx: &mut Ctx, x: f64, y: f64) -> ApiResult<f64> {
    check(cx, x.is_finite() && y.is_finite(), x.hypot(y), false)
}
fn _cabs(cx: &mut Ctx, x: f64, y: f64) -> ApiResult<f64> {
    _hypot(cx, x, y)
}
fn _logb(_cx: &mut Ctx, x: f64) -> f64 {
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if !x.is_finite() {
        return x.abs();
    }
    (frexp_parts(x).1 - 1) as f64
}
fn _scalb(cx: &mut Ctx, x: f64, e: i32) -> ApiResult<f64> {
    ldexp(cx, x, e)
}
fn _copysign(_cx: &mut Ctx, x: f64, y: f64) -> f64 {
    x.copysign(y)
}
fn _chgsign(_cx: &mut Ctx, x: f64) -> f64 {
    -x
}
fn _finite(_cx: &mut Ctx, x: f64) -> i32 {
    x.is_finite() as i32
}
fn _isnan(_cx: &mut Ctx, x: f64) -> i32 {
    x.is_nan() as i32
}
fn _nextafter(_cx: &mut Ctx, x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let b = x.to_bits();
    let up = (y > x) == (x > 0.0);
    f64::from_bits(if up { b + 1 } else { b - 1 })
}

/// `_fpclass` bits from float.h.
fn _fpclass(_cx: &mut Ctx, x: f64) -> u32 {
    let neg = x.is_sign_negative();
    let bits = x.to_bits();
    if x.is_nan() {
        return if bits & (1 << 51) != 0 { 0x2 } else { 0x1 };
    }
    match (x.classify(), neg) {
        (std::num::FpCategory::Infinite, true) => 0x4,
        (std::num::FpCategory::Normal, true) => 0x8,
        (std::num::FpCategory::Subnormal, true) => 0x10,
        (std::num::FpCategory::Zero, true) => 0x20,
        (std::num::FpCategory::Zero, false) => 0x40,
        (std::num::FpCategory::Subnormal, false) => 0x80,
        (std::num::FpCategory::Normal, false) => 0x100,
        _ => 0x200,
    }
}

// ---- _CI* helpers: arguments on the x87 stack -------------------------------------------

/// Pops ST(0).
fn pop(cx: &mut Ctx) -> f64 {
    let fpu = &mut cx.thread.cpu.fpu;
    let v = fpu.sti(0);
    fpu.pop();
    v
}

/// Pops ST(0) = y and ST(1) = x (the compiler pushes x first).
fn pop2(cx: &mut Ctx) -> (f64, f64) {
    let y = pop(cx);
    let x = pop(cx);
    (x, y)
}

macro_rules! ci1 {
    ($name:ident, $f:ident) => {
        fn $name(cx: &mut Ctx) -> ApiResult<f64> {
            let x = pop(cx);
            $f(cx, x)
        }
    };
}

fn atan_r(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    Ok(atan(cx, x))
}
fn tanh_r(cx: &mut Ctx, x: f64) -> ApiResult<f64> {
    Ok(tanh(cx, x))
}

ci1!(_CIsin, sin);
ci1!(_CIcos, cos);
ci1!(_CItan, tan);
ci1!(_CIasin, asin);
ci1!(_CIacos, acos);
ci1!(_CIatan, atan_r);
ci1!(_CIsinh, sinh);
ci1!(_CIcosh, cosh);
ci1!(_CItanh, tanh_r);
ci1!(_CIexp, exp);
ci1!(_CIlog, log);
ci1!(_CIlog10, log10);
ci1!(_CIsqrt, sqrt);

fn _CIpow(cx: &mut Ctx) -> ApiResult<f64> {
    let (x, y) = pop2(cx);
    pow(cx, x, y)
}
fn _CIatan2(cx: &mut Ctx) -> ApiResult<f64> {
    let (y, x) = pop2(cx);
    atan2(cx, y, x)
}
fn _CIfmod(cx: &mut Ctx) -> ApiResult<f64> {
    let (x, y) = pop2(cx);
    fmod(cx, x, y)
}

/// `_ftol`: ST(0) truncated to a 64-bit integer in EDX:EAX, popped.
fn _ftol(cx: &mut Ctx) -> u64 {
    let v = pop(cx);
    if v.is_nan() || v.abs() >= 9_223_372_036_854_775_808.0 {
        // The x87 integer indefinite.
        return 0x8000_0000_0000_0000;
    }
    v.trunc() as i64 as u64
}

// ---- integers ---------------------------------------------------------------------------

fn abs(_cx: &mut Ctx, n: i32) -> i32 {
    n.wrapping_abs()
}

fn _abs64(_cx: &mut Ctx, n: u64) -> u64 {
    (n as i64).wrapping_abs() as u64
}

/// `div`/`ldiv` return an 8-byte struct in EDX:EAX (quot in EAX).
fn div(_cx: &mut Ctx, numer: i32, denom: i32) -> ApiResult<Outcome> {
    if denom == 0 {
        return Err(crate::hle::ApiError::UnimplementedCase(
            "div by zero (the integer divide exception from inside msvcrt)".into(),
        ));
    }
    let q = numer.wrapping_div(denom);
    let r = numer.wrapping_rem(denom);
    Ok(Outcome::Return((q as u32 as u64) | (r as u32 as u64) << 32))
}

fn _rotl(_cx: &mut Ctx, v: u32, n: u32) -> u32 {
    v.rotate_left(n & 31)
}

fn _rotr(_cx: &mut Ctx, v: u32, n: u32) -> u32 {
    v.rotate_right(n & 31)
}

fn _lrotl(_cx: &mut Ctx, v: u32, n: u32) -> u32 {
    v.rotate_left(n & 31)
}

fn _lrotr(_cx: &mut Ctx, v: u32, n: u32) -> u32 {
    v.rotate_right(n & 31)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("sin", sin),
        cdecl("cos", cos),
        cdecl("tan", tan),
        cdecl("asin", asin),
        cdecl("acos", acos),
        cdecl("atan", atan),
        cdecl("atan2", atan2),
        cdecl("sinh", sinh),
        cdecl("cosh", cosh),
        cdecl("tanh", tanh),
        cdecl("exp", exp),
        cdecl("log", log),
        cdecl("log10", log10),
        cdecl("pow", pow),
        cdecl("sqrt", sqrt),
        cdecl("fabs", fabs),
        cdecl("floor", floor),
        cdecl("ceil", ceil),
        cdecl("fmod", fmod),
        cdecl("modf", modf),
        cdecl("frexp", frexp),
        cdecl("ldexp", ldexp),
        cdecl("_hypot", _hypot),
        cdecl("_cabs", _cabs),
        cdecl("_logb", _logb),
        cdecl("_scalb", _scalb),
        cdecl("_copysign", _copysign),
        cdecl("_chgsign", _chgsign),
        cdecl("_finite", _finite),
        cdecl("_isnan", _isnan),
        cdecl("_nextafter", _nextafter),
        cdecl("_fpclass", _fpclass),
        cdecl("_CIsin", _CIsin),
        cdecl("_CIcos", _CIcos),
        cdecl("_CItan", _CItan),
        cdecl("_CIasin", _CIasin),
        cdecl("_CIacos", _CIacos),
        cdecl("_CIatan", _CIatan),
        cdecl("_CIatan2", _CIatan2),
        cdecl("_CIsinh", _CIsinh),
        cdecl("_CIcosh", _CIcosh),
        cdecl("_CItanh", _CItanh),
        cdecl("_CIexp", _CIexp),
        cdecl("_CIlog", _CIlog),
        cdecl("_CIlog10", _CIlog10),
        cdecl("_CIpow", _CIpow),
        cdecl("_CIsqrt", _CIsqrt),
        cdecl("_CIfmod", _CIfmod),
        cdecl("_ftol", _ftol),
        cdecl("abs", abs),
        cdecl("labs", abs),
        cdecl("_abs64", _abs64),
        cdecl("div", div),
        cdecl("ldiv", div),
        cdecl("_rotl", _rotl),
        cdecl("_rotr", _rotr),
        cdecl("_lrotl", _lrotl),
        cdecl("_lrotr", _lrotr),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // C standard definitions of frexp/ldexp.
    #[test]
    fn frexp_ldexp() {
        assert_eq!(frexp_parts(8.0), (0.5, 4));
        assert_eq!(frexp_parts(-3.0), (-0.75, 2));
        assert_eq!(frexp_parts(0.0), (0.0, 0));
        let (m, e) = frexp_parts(f64::from_bits(1));
        assert_eq!((m, e), (0.5, -1073));
        assert_eq!(ldexp_f(0.5, -1073), f64::from_bits(1));
        assert_eq!(ldexp_f(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp_f(0.75, 2), 3.0);
    }
}
