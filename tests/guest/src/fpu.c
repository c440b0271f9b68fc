/*
 * fpu: floating-point formatting, parsing, maths and conversions.
 *
 * printf/sprintf here are msvcrt.dll's (the build sets
 * __USE_MINGW_ANSI_STDIO=0). Most lines print the same under glibc, so the
 * same source built natively with gcc -m32 must reproduce them exactly.
 * Two tags mark the lines where msvcrt differs:
 *   "[e3] " msvcrt writes at least three exponent digits (1e+005 where C99
 *           libraries write 1e+05); no field width pads these lines, so the
 *           native line with two-digit exponents widened is the expected one.
 *   "[win] " msvcrt-only forms (1.#INF, 1.#QNAN, -1.#IND, three-digit
 *           exponents inside padded fields, 17 significant digits then
 *           zeros, halfway cases rounded away from zero, %p, %I64d,
 *           _snprintf); the native build does not print these lines.
 * Values come from volatile variables so that gcc cannot fold the maths at
 * compile time: the guest's x87 code and msvcrt's functions do the work.
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif
#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#define __mingw_printf printf
#endif

static volatile double zero = 0.0, one = 1.0, two = 2.0, three = 3.0, ten = 10.0;
static volatile double tenth = 0.1, pi_ish = 3.14159265358979, big = 1e300, denorm_min = 4.9406564584124654e-324;
static volatile double neg_zero = -0.0, large_int = 9007199254740993.0, huge22 = 1e22;

static void line(const char *tag, const char *fmt, const char *label, double v)
{
    char buf[512];
    int n = sprintf(buf, fmt, v);
    /* The length is left out where msvcrt's extra exponent digit would change it. */
    if (!strcmp(tag, "[e3] "))
        printf("%s%s %s = [%s]\n", tag, fmt, label, buf);
    else
        printf("%s%s %s = [%s] (%d)\n", tag, fmt, label, buf, n);
}

static void bits(const char *label, double v)
{
    unsigned int w[2];
    memcpy(w, &v, 8);
    printf("bits of %s = %08x%08x\n", label, w[1], w[0]);
}

static void formatting(void)
{
    double third = one / three;

    printf("== printf %%f ==\n");
    line("", "%f", "0.1", tenth);
    line("", "%.3f", "1/3", third);
    line("", "%.10f", "1/3", third);
    line("", "%10.4f|", "pi", pi_ish);
    line("", "%-10.2f|", "-2.5", -2.5 * one);
    line("", "%+.3f", "2", two);
    line("", "% .3f", "2", two);
    line("", "%010.3f", "-pi", -pi_ish);
    line("", "%#.0f", "3", three);
    line("", "%.0f", "3.7", 3.7 * one);
    line("", "%.1f", "0.05", 0.05 * one);
    line("", "%f", "-0.0", neg_zero);
    line("", "%.2f", "1e15", 1e15 * one);
    line("", "%.0f", "2^53+1 (rounds to 2^53)", large_int);
    line("", "%.0f", "1e22", huge22);
    line("", "%.3f", "1/3 * 1e6", third * 1e6);
    line("", "%f", "1e-7", 1e-7 * one);
    line("", "%5.1f|", "99.96", 99.96 * one);
    line("", "%.3f", "(float)0.1", (float)tenth);
    printf("%s\n", "*-width:");
    {
        char buf[64];
        int n = sprintf(buf, "%*.*f|%-*.1f|", 9, 2, pi_ish, 7, two);
        printf("%%*.*f|%%-*.1f| (9, 2, pi, 7, 2) = [%s] (%d)\n", buf, n);
    }
#ifdef _WIN32
    /* msvcrt converts to at most 17 significant digits and pads with zeros. */
    line("[win] ", "%.20f", "0.1", tenth);
    line("[win] ", "%.0f", "1e23", 1e23 * one);
    /* msvcrt rounds the decimal digits half away from zero, even for exact binary halves. */
    line("[win] ", "%.2f", "0.125", 0.125 * one);
    line("[win] ", "%.0f", "2.5", 2.5 * one);
    line("[win] ", "%.0f", "-0.5", -0.5 * one);
    line("[win] ", "%.1f", "0.25", 0.25 * one);
#endif

    printf("== printf %%e ==\n");
    line("[e3] ", "%e", "0.1", tenth);
    line("[e3] ", "%.3e", "1/3", third);
    line("[e3] ", "%E", "12345.678", 12345.678 * one);
    line("[e3] ", "%.0e", "5e10", 5e10 * one);
    line("[e3] ", "%e", "0", zero);
    line("[e3] ", "%e", "-0.0", neg_zero);
    line("[e3] ", "%+.2e", "1e-5", 1e-5 * one);
    line("[e3] ", "%#.0e", "2", two);
    line("", "%e", "1e300", big);
    line("", "%.3e", "min denormal", denorm_min);
    line("", "%.10e", "DBL_MAX", DBL_MAX * one);
    line("", "%e", "DBL_MIN", DBL_MIN * one);
#ifdef _WIN32
    line("[win] ", "%15.3e|", "1234.56", 1234.56 * one);
    line("[win] ", "%-14.2e|", "-0.5", -0.5 * one);
    line("[win] ", "%+013.3E", "1e-5", 1e-5 * one);
#endif

    printf("== printf %%g ==\n");
    line("", "%g", "0.1", tenth);
    line("", "%g", "1/3", third);
    line("", "%g", "100000", 100000 * one);
    line("[e3] ", "%g", "1000000", 1000000 * one);
    line("[e3] ", "%g", "123456789", 123456789 * one);
    line("", "%g", "0.0001", 0.0001 * one);
    line("[e3] ", "%g", "0.00001", 0.00001 * one);
    line("", "%.10g", "1/3", third);
    line("", "%.17g", "0.1", tenth);
    line("", "%.15g", "0.1", tenth);
    line("", "%#g", "1.5", 1.5 * one);
    line("", "%#.3g", "2", two);
    line("[e3] ", "%G", "0.0000000001", 1e-10 * one);
    line("", "%g", "-0.0", neg_zero);
    line("[e3] ", "%.0g", "123", 123 * one);
    line("", "%.1g", "0.26", 0.26 * one);
    line("", "%g", "1e300", big);
    line("", "%g", "min denormal", denorm_min);
    line("", "%12g|", "3.5", 3.5 * one);
    line("", "%-12g|", "-3.5", -3.5 * one);

    printf("== printf %%a ==\n");
    line("", "%.1a", "1", one);
    line("", "%.3a", "0.1", tenth);
    line("", "%.3A", "0.1", tenth);
    line("", "%.13a", "-2", -two);
    line("", "%.13a", "0.1", tenth);
    line("", "%.2a", "0", zero);
    line("", "%.4a", "1e300", big);
    line("", "%20.3a|", "1", one);
    line("", "%-+14.2a|", "3", three);

#ifdef _WIN32
    {
        double inf = one / zero, ind = zero / zero, qnan = -(zero / zero);
        printf("[win] == infinities and NaNs ==\n");
        line("[win] ", "%f", "1/0", inf);
        line("[win] ", "%f", "-1/0", -inf);
        line("[win] ", "%e", "1/0", inf);
        line("[win] ", "%g", "1/0", inf);
        line("[win] ", "%f", "0/0", ind);
        line("[win] ", "%e", "0/0", ind);
        line("[win] ", "%g", "0/0", ind);
        line("[win] ", "%f", "-(0/0)", qnan);
        line("[win] ", "%e", "-(0/0)", qnan);
        line("[win] ", "%g", "-(0/0)", qnan);
        line("[win] ", "%010.2f", "1/0", inf);
        line("[win] ", "%010.2f", "0/0", ind);
        line("[win] ", "%010.2f", "-(0/0)", qnan);
    }
#endif
    {
        double inf = one / zero, ind = zero / zero;
        printf("== special values, portably ==\n");
        bits("1/0", inf);
        bits("-1/0", -inf);
        bits("0/0 (the x87 default NaN)", ind);
        bits("-(0/0)", -ind);
        bits("-0.0", neg_zero);
        bits("min denormal", denorm_min);
        printf("isnan(0/0) %d, isinf(1/0) %d, 0/0 == 0/0 %d, -0.0 == 0.0 %d\n", isnan(ind) != 0, isinf(inf) != 0,
               ind == ind, neg_zero == zero);
    }
}

static void maths(void)
{
    double x = one, h = 0.5 * one;
    double ip, fr;
    int e;

    printf("== math functions ==\n");
    printf("sin(1) = %.12f\n", sin(x));
    printf("cos(1) = %.12f\n", cos(x));
    printf("tan(1) = %.12f\n", tan(x));
    printf("sin(-pi/6) = %.12f\n", sin(-pi_ish / 6));
    printf("sqrt(2) = %.12f\n", sqrt(two));
    printf("sqrt(1e-300) = %.6g\n", sqrt(1e-300 * one));
    printf("pow(2, 0.5) = %.12f\n", pow(two, h));
    printf("pow(2, 10) = %.12f\n", pow(two, ten));
    printf("pow(10, -2) = %.12f\n", pow(ten, -two));
    printf("pow(-8, 3) = %.12f\n", pow(-8 * one, three));
    printf("pow(1.0001, 10000) = %.10f\n", pow(1.0001 * one, 10000 * one));
    printf("exp(1) = %.12f\n", exp(x));
    printf("exp(-1) = %.12f\n", exp(-x));
    printf("exp(10) = %.6f\n", exp(ten));
    printf("log(10) = %.12f\n", log(ten));
    printf("log(0.5) = %.12f\n", log(h));
    printf("log10(2) = %.12f\n", log10(two));
    printf("log10(1000) = %.12f\n", log10(1000 * one));
    printf("atan(1) * 4 = %.12f\n", atan(x) * 4);
    printf("atan2(1, -1) = %.12f\n", atan2(x, -x));
    printf("atan2(-1, -1) = %.12f\n", atan2(-x, -x));
    printf("asin(0.5) = %.12f\n", asin(h));
    printf("acos(-1) = %.12f\n", acos(-x));
    printf("sinh(1) = %.12f, cosh(1) = %.12f, tanh(1) = %.12f\n", sinh(x), cosh(x), tanh(x));
    printf("floor(-2.5) = %.1f, floor(2.5) = %.1f, ceil(-2.5) = %.1f, ceil(2.5) = %.1f\n", floor(-2.5 * x),
           floor(2.5 * x), ceil(-2.5 * x), ceil(2.5 * x));
    printf("fmod(10.5, 3) = %.3f, fmod(-10.5, 3) = %.3f, fmod(1e15 + 0.5, 7) = %.3f\n", fmod(10.5 * x, three),
           fmod(-10.5 * x, three), fmod(1e15 * x + 0.5, 7 * x));
    printf("fabs(-7.25) = %.3f\n", fabs(-7.25 * x));
    fr = modf(3.75 * x, &ip);
    printf("modf(3.75) = %.3f and %.3f\n", fr, ip);
    fr = modf(-3.75 * x, &ip);
    printf("modf(-3.75) = %.3f and %.3f\n", fr, ip);
    fr = frexp(48 * x, &e);
    printf("frexp(48) = %.4f * 2^%d\n", fr, e);
    printf("ldexp(0.75, 6) = %.1f\n", ldexp(0.75 * x, 6));
    printf("sqrt(-1) is a NaN: %d\n", isnan(sqrt(-x)) != 0);
    printf("log(0) is -infinity: %d\n", isinf(log(zero)) != 0 && log(zero) < 0);
}

static void parsing(void)
{
    char *end;
    double d;
    const char *s;
    double a, b;
    int n;

    printf("== strtod, atof, sscanf ==\n");
    d = strtod("0.1", &end);
    bits("strtod(\"0.1\")", d);
    printf("[e3] strtod(\"1e-5\") = %g\n", strtod("1e-5", NULL));
    s = "  -12.5e3xyz";
    d = strtod(s, &end);
    printf("strtod(\"  -12.5e3xyz\") = %.1f, stopped at offset %d\n", d, (int)(end - s));
    s = "abc";
    d = strtod(s, &end);
    printf("strtod(\"abc\") = %.1f, no conversion: %s\n", d, end == s ? "yes" : "no");
    printf("strtod(\".5\") = %.2f, strtod(\"5.\") = %.2f, strtod(\"-0\") is negative zero: %s\n", strtod(".5", NULL),
           strtod("5.", NULL), signbit(strtod("-0", NULL)) ? "yes" : "no");
    errno = 0;
    d = strtod("1e400", &end);
    printf("strtod(\"1e400\") = HUGE_VAL: %s, errno %d\n", d == HUGE_VAL ? "yes" : "no", errno);
    errno = 0;
    d = strtod("-1e400", &end);
    printf("strtod(\"-1e400\") = -HUGE_VAL: %s, errno %d\n", d == -HUGE_VAL ? "yes" : "no", errno);
    errno = 0;
    d = strtod("1e-400", &end);
    printf("strtod(\"1e-400\") = %g, errno %d\n", d, errno);
    d = strtod("3.14159265358979323846264338327950288", NULL);
    bits("strtod(pi to 36 digits)", d);
    d = strtod("4.9406564584124654e-324", NULL);
    bits("strtod(\"4.9406564584124654e-324\")", d);
    d = strtod("1.7976931348623157e308", NULL);
    bits("strtod(\"1.7976931348623157e308\")", d);
    d = strtod("123456789012345678", NULL);
    bits("strtod(\"123456789012345678\")", d);
    printf("atof(\"3.25abc\") = %.2f, atof(\"  1e2\") = %.1f, atof(\"-.125\") = %.3f\n", atof("3.25abc"),
           atof("  1e2"), atof("-.125"));
    n = sscanf("1.5 -2.25e1", "%lf %lf", &a, &b);
    printf("sscanf(\"1.5 -2.25e1\", \"%%lf %%lf\") = %d: %.2f %.2f\n", n, a, b);
}

static void sprintf_buffers(void)
{
    char buf[128];
    int n;

    printf("== sprintf into buffers ==\n");
    n = sprintf(buf, "%s|%5d|%-5d|%05d|%x|%X|%o|%c|%%|%+d|% d", "str", 42, 42, -42, 255, 255, 8, 'Z', 7, 7);
    printf("[%s] (%d)\n", buf, n);
    n = sprintf(buf, "%#x|%#o|%.0d|%5.3s|%*d|%-*d|%hd|%lu|%ld", 255, 8, 0, "abcdef", -5, 42, 4, 7, (short)70000,
                4294967295ul, -2147483647l - 1);
    printf("[%s] (%d)\n", buf, n);
    n = sprintf(buf, "%5.1f|%-8.3g|%08.2f|%.3s", 2.71 * one, 12.345678 * one, -3.14159 * one, "xyzw");
    printf("[%s] (%d)\n", buf, n);
    n = sprintf(buf, "%s", "");
    printf("empty: [%s] (%d)\n", buf, n);
#ifdef _WIN32
    n = sprintf(buf, "%p", (void *)0x1234);
    printf("[win] %%p of 0x1234 = [%s] (%d)\n", buf, n);
    n = sprintf(buf, "%I64d|%I64x", -8589934591LL, 0x123456789abcdefLL);
    printf("[win] %%I64d|%%I64x = [%s] (%d)\n", buf, n);
    memset(buf, '#', sizeof buf);
    n = _snprintf(buf, 8, "%s", "muchlonger");
    printf("[win] _snprintf(8, \"muchlonger\") = %d, buffer [%.9s]\n", n, buf);
    memset(buf, '#', sizeof buf);
    n = _snprintf(buf, 8, "%s", "justfits");
    printf("[win] _snprintf(8, \"justfits\") = %d, buffer [%.9s]\n", n, buf);
    n = _snprintf(buf, 8, "%s", "short");
    printf("[win] _snprintf(8, \"short\") = %d, buffer [%s]\n", n, buf);
#endif
}

static void conversions(void)
{
    volatile double v;
    long long ll;
    unsigned u;
    int i;

    printf("== float to integer ==\n");
    v = 2.7;
    printf("(int)2.7 = %d, ", (int)v);
    v = -2.7;
    printf("(int)-2.7 = %d, ", (int)v);
    v = 2.5;
    printf("(int)2.5 = %d, ", (int)v);
    v = -0.999;
    printf("(int)-0.999 = %d\n", (int)v);
    v = 3e9;
    u = (unsigned)v;
    printf("(unsigned)3e9 = %u\n", u);
    v = 1e18;
    ll = (long long)v;
    printf("(long long)1e18 = 0x%08x%08x\n", (unsigned)(ll >> 32), (unsigned)ll);
    v = -1e18;
    ll = (long long)v;
    printf("(long long)-1e18 = 0x%08x%08x\n", (unsigned)(ll >> 32), (unsigned)ll);
    v = 40000.7;
    i = (int)v;
    printf("(short)(int)40000.7 = %d\n", (short)i);
    /* Out of range: the x87's FIST stores the integer indefinite, 0x80000000. */
    v = 1e10;
    printf("(int)1e10 on the x87 = %d\n", (int)v);
    v = 2.5;
    printf("rint(2.5) = %.1f, rint(3.5) = %.1f, rint(-2.5) = %.1f\n", rint(v), rint(v + 1), rint(-v));
    printf("lrint(2.5) = %ld, lrint(3.5) = %ld, lrint(-3.5) = %ld\n", lrint(v), lrint(v + 1), lrint(-v - 1));
    printf("round(2.5) = %.1f, round(-2.5) = %.1f, trunc(-2.7) = %.1f\n", round(v), round(-v), trunc(-v - 0.2));
    fesetround(FE_DOWNWARD);
    printf("FE_DOWNWARD: fegetround matches %d, lrint(2.7) = %ld, lrint(-2.2) = %ld, rint(-0.5) = %.1f\n",
           fegetround() == FE_DOWNWARD, lrint(v + 0.2), lrint(-v + 0.3), rint(-0.5 * one));
    fesetround(FE_UPWARD);
    printf("FE_UPWARD: lrint(2.2) = %ld, lrint(-2.7) = %ld\n", lrint(v - 0.3), lrint(-v - 0.2));
    fesetround(FE_TOWARDZERO);
    printf("FE_TOWARDZERO: lrint(2.7) = %ld, lrint(-2.7) = %ld\n", lrint(v + 0.2), lrint(-v - 0.2));
    fesetround(FE_TONEAREST);
    printf("FE_TONEAREST: lrint(2.5) = %ld, (int)2.7 still truncates: %d\n", lrint(v), (int)(v + 0.2));
    printf("(float)1/3 = %.9g, (double)(float)0.1 = %.17g\n", (double)(float)(one / three), (double)(float)tenth);
}

static void mingw_printf(void)
{
    /* mingw's own printf is guest code (gdtoa): exact digits, C99 exponents. */
    printf("== mingw's printf (guest code) ==\n");
    fflush(stdout);
    __mingw_printf("%.25f|%e|%.0f|%g|%.17g\n", tenth, 1e-5 * one, 1e23 * one, 1e100 * one, one / three);
    __mingw_printf("%10.3f|%-12.4e|%+.3g|%a\n", pi_ish, 12345.678 * one, 0.000123456 * one, 0.0 * one);
    fflush(stdout);
}

int main(void)
{
    formatting();
    maths();
    parsing();
    sprintf_buffers();
    conversions();
    mingw_printf();
    return 0;
}
