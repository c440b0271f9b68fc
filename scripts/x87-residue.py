#!/usr/bin/env python3
"""Classifies the x87 transcendental residue of core/tests/diff_x87.rs against an
independent reference (mpmath at 600 bits; the trigonometric functions after the
x87's documented 66-bit-pi reduction, SDM vol. 1 8.3.8).

    X87_CASES=600 X87_DUMP=/tmp/x87.tsv cargo test --release -p winterp-core \
        --test diff_x87 -- --nocapture
    python3 scripts/x87-residue.py /tmp/x87.tsv [all]

For each mismatching case (every case with `all`) it rounds the true value to the
80-bit format under the case's rounding control and prints, per form, how many
cases are: "host not CR" (winterp's result correctly rounded, the host's not),
"WINTERP not CR", "neither CR", "sw:..." (equal values, status words differ: which
side's C1 disagrees with the true value's rounding direction), "special" (operands
not analysed: NaN, infinity, zero, out of domain); then the host's largest error
in ulps, to nearest and directed (SDM 8.3.10 bounds it by 1 and 1.5). Results with
an unmasked underflow (exponent wrapped by 2^24576) are reported as "neither CR"
and need a look by hand. Needs mpmath (pip install mpmath); a development tool,
not run by the tests.
"""
import sys, collections
from mpmath import mp, mpf, sin, cos, tan, atan2, log, expm1, log1p, floor, nint, ldexp
mp.prec = 600
PIO2_66 = mpf(0x3243f6a8885a308d3) * mpf(2)**-65

def dec(s):
    se, m = s.split(':'); se = int(se, 16); m = int(m, 16)
    sign = se >> 15; e = se & 0x7fff
    return sign, e, m

def val(s):
    sign, e, m = dec(s)
    if e == 0x7fff: return None
    v = mpf(m) * mpf(2)**((e if e else 1) - 16383 - 63)
    return -v if sign else v

def round64(v, rc):
    """correctly round mpf v to the 80-bit format under RC; returns (sign,e,m) encoded string and up flag"""
    if v == 0: return None
    neg = v < 0; a = abs(v)
    t = int(floor(mp.log(a, 2)))
    # fix t
    while mpf(2)**t > a: t -= 1
    while mpf(2)**(t+1) <= a: t += 1
    q = max(t - 63, -16445)
    x = a / mpf(2)**q
    n = int(floor(x)); frac = x - n
    if rc == 0:
        up = frac > 0.5 or (frac == 0.5 and n & 1)
    elif rc == 3: up = False
    elif rc == 1: up = neg and frac > 0
    else: up = (not neg) and frac > 0
    if up: n += 1
    # encode
    if n >> 64:
        n >>= 1; q += 1
    e = q + 63 + 16383
    if e <= 0 or n >> 63 == 0:
        # denormal
        e = 0
    se = (0x8000 if neg else 0) | e
    return '%04x:%016x' % (se, n), up

def trig_red(x):
    k = nint(x / PIO2_66)
    r = x - k * PIO2_66
    return int(k) % 4, r

TINY = mpf(2)**-250
def nudge(v, d):
    # v (1 + d 2^-500): the true value's side of v where the correction is below mp.prec
    return v * (1 + d * mpf(2)**-500)
def sin(r):
    return nudge(r, -1) if abs(r) < TINY else mp.sin(r)
def tan(r):
    return nudge(r, 1) if abs(r) < TINY else mp.tan(r)
def atan2(y, x):
    t = y / x
    if abs(t) < TINY and x > 0: return nudge(t, -1)
    return mp.atan2(y, x)
def f_sin(x):
    q, r = trig_red(x)
    return [sin(r), cos(r), -sin(r), -cos(r)][q]
def f_cos(x):
    q, r = trig_red(x)
    return [cos(r), -sin(r), -cos(r), sin(r)][q]
def f_tan(x):
    q, r = trig_red(x)
    return tan(r) if q % 2 == 0 else -1/tan(r)

def ulps(got, exact):
    g = val(got)
    if g is None or exact == 0: return None
    a = abs(exact)
    t = int(floor(mp.log(a, 2)))
    while mpf(2)**t > a: t -= 1
    while mpf(2)**(t+1) <= a: t += 1
    q = max(t - 63, -16445)
    return float((g - exact) / mpf(2)**q)

stats = collections.Counter()
rows = []
for line in open(sys.argv[1]):
    form, cw, before, host, win, ok = line.rstrip('\n').split('\t')
    if ok == '1' and len(sys.argv) < 3: continue
    cw = int(cw, 16); rc = (cw >> 10) & 3
    b = before.split(); h = host.split(); w = win.split()
    st0, st1 = b[2], b[3]
    x = val(st0); y = val(st1)
    tw = int(b[1], 16)
    # only both-finite-nonzero inputs analysed; others are "special"
    need2 = form in ('fyl2x', 'fyl2xp1', 'fpatan')
    if x is None or x == 0 or (need2 and (y is None or y == 0)) or (tw & 3) == 3 or (need2 and (tw >> 2) & 3 == 3):
        stats[(form, 'special')] += 1
        rows.append((form, 'special', line.strip()))
        continue
    try:
        if form == 'f2xm1': ex = [expm1(x * log(2))]; hi = [h[2]]; wi = [w[2]]
        elif form == 'fyl2x': ex = [y * log(x, 2)] if x > 0 else None; hi = [h[2]]; wi = [w[2]]
        elif form == 'fyl2xp1': ex = [y * log1p(x) / log(2)] if x > -1 else None; hi = [h[2]]; wi = [w[2]]
        elif form == 'fpatan': ex = [atan2(y, x)]; hi = [h[2]]; wi = [w[2]]
        elif form == 'fsin': ex = [f_sin(x)]; hi = [h[2]]; wi = [w[2]]
        elif form == 'fcos': ex = [f_cos(x)]; hi = [h[2]]; wi = [w[2]]
        elif form == 'fptan': ex = [f_tan(x)]; hi = [h[3]]; wi = [w[3]]
        elif form == 'fsincos': ex = [f_sin(x), f_cos(x)]; hi = [h[3], h[2]]; wi = [w[3], w[2]]
    except Exception as e:
        ex = None
    if ex is None or abs(x) >= 2**63 and form in ('fsin','fcos','fptan','fsincos') or form == 'f2xm1' and abs(x) > 1:
        stats[(form, 'special')] += 1
        rows.append((form, 'special', line.strip()))
        continue
    hsw = int(h[0], 16); wsw = int(w[0], 16)
    c1h = (hsw >> 9) & 1; c1w = (wsw >> 9) & 1
    cls = []
    for i, e in enumerate(ex):
        cr, up = round64(e, rc)
        hu = ulps(hi[i], e); wu = ulps(wi[i], e)
        cls.append((hi[i] == cr, wi[i] == cr, hu, wu, cr, up))
    hcr = all(c[0] for c in cls); wcr = all(c[1] for c in cls)
    up0 = cls[0][5]
    if ok == '1':
        k = 'match-' + ('cr' if wcr else 'NOTCR')
    elif hcr and wcr:
        # values equal, the difference is in the status word
        k = 'sw:' + ('host C1 wrong' if c1h != up0 else '') + ('win C1 wrong' if c1w != up0 else '') + ('other' if (hsw ^ wsw) & ~0x200 & ~0x4100 else '')
    elif wcr and not hcr:
        k = 'host not CR'
    elif hcr and not wcr:
        k = 'WINTERP not CR'
    else:
        k = 'neither CR'
    stats[(form, k)] += 1
    rows.append((form, k, line.strip(), ['h%.3f w%.3f' % (c[2] if c[2] is not None else 99, c[3] if c[3] is not None else 99) for c in cls], 'up=%d c1h=%d c1w=%d' % (up0, c1h, c1w)))

for k in sorted(stats): print(k, stats[k])

worst = {}
for r in rows:
    if r[1] == 'host not CR':
        rc = (int(r[2].split('\t')[1], 16) >> 10) & 3
        for s in r[3]:
            h = abs(float(s.split()[0][1:]))
            if h < 90:
                k = 'nearest' if rc == 0 else 'directed'
                worst[k] = max(worst.get(k, 0), h)
print('host error, largest (ulps):', {k: round(v, 3) for k, v in worst.items()})
for r in rows:
    if r[1] in ('WINTERP not CR', 'neither CR'):
        print(r[1] + ':', r[2])
