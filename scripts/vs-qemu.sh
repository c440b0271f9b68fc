#!/usr/bin/env bash
# Whole programs side by side (issue 19): CPU-heavy C programs built twice from the
# same source in tests/guest/src (the Win32 console program tests/guest/build.sh
# made with mingw, and a static 32-bit Linux program built here with gcc -m32), run
#   native      the Linux build on this CPU,
#   qemu        the Linux build under qemu-i386 (Debian qemu-user, TCG),
#   jit=off     the Win32 build under winterp --headless --tier jit=off,
#   jit=on      the Win32 build under winterp --headless --tier jit=on,
# each --reps times, arms alternating round by round so that load on the machine
# falls on all of them alike. Every run's output must equal the program's
# tests/guest/expected/NAME.stdout (the Wine oracle): the script stops otherwise.
# Prints user-CPU seconds (minimum and median of the reps) and the ratios
#   qemu / jit=on     >= 1.0: winterp with the tier at least matches qemu-i386,
#   off / on          the tier's speedup over the interpreter,
#   jit=on / native   how far from native.
# Then 7-Zip's own benchmark (7za.exe from the corpus, `b -mmt1` unless SEVENZA_ARGS
# says otherwise) under winterp with jit off and on: its total rating, and on/off.
#
# Usage: scripts/vs-qemu.sh [--reps N] [--no-7za] [PROGRAM...]
#   PROGRAM defaults to: cpuheavy lzhuff intbench
# Environment: WINTERP (default target/release/winterp), SEVENZA_ARGS (default
#   "b -mmt1"), WINTERP_CORPUS (default ~/.cache/winterp-corpus).
# Needs: gcc-multilib (gcc -m32 -static), qemu-user (scripts/setup.sh installs both),
#   /usr/bin/time, a release build of winterp, tests/guest/bin built.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
reps=1
run_7za=yes
progs=()
while (($#)); do
    case "$1" in
        --reps) reps=$2; shift 2 ;;
        --no-7za) run_7za=no; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        -*) echo "vs-qemu: unknown option $1" >&2; exit 2 ;;
        *) progs+=("$1"); shift ;;
    esac
done
((${#progs[@]})) || progs=(cpuheavy lzhuff intbench)
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "vs-qemu: --reps wants a positive number, got $reps" >&2; exit 2; }

winterp=${WINTERP:-$root/target/release/winterp}
corpus=${WINTERP_CORPUS:-$HOME/.cache/winterp-corpus}
sevenza_args=${SEVENZA_ARGS:-b -mmt1}
for tool in gcc qemu-i386 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "vs-qemu: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done
[ -x "$winterp" ] || { echo "vs-qemu: $winterp not built (cargo build --release)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Same flags as tests/guest/build.sh apart from what only PE links take.
CFLAGS="-O2 -s -std=gnu11 -Wall -Wextra -D__USE_MINGW_ANSI_STDIO=0"
for p in "${progs[@]}"; do
    src=$root/tests/guest/src/$p.c
    [ -f "$src" ] || { echo "vs-qemu: no $src" >&2; exit 1; }
    [ -f "$root/tests/guest/bin/$p.exe" ] || { echo "vs-qemu: no tests/guest/bin/$p.exe (run tests/guest/build.sh)" >&2; exit 1; }
    gcc -m32 -static $CFLAGS "$src" -o "$work/$p"
done

# One timed run: prints user-CPU seconds; the output goes to $work/out.
timed() {
    /usr/bin/time -f %U -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
        echo "vs-qemu: failed: $*" >&2; tail -5 "$work/err" >&2; exit 1; }
    cat "$work/time"
}

arms=(native qemu jit=off jit=on)
declare -A user
for p in "${progs[@]}"; do
    expected=$root/tests/guest/expected/$p.stdout
    for ((r = 1; r <= reps; r++)); do
        for arm in "${arms[@]}"; do
            case $arm in
                native) t=$(timed "$work/$p") ;;
                qemu) t=$(timed qemu-i386 "$work/$p") ;;
                jit=*)
                    rm -rf "$work/data"; mkdir "$work/data"
                    t=$(WINTERP_DATA_DIR=$work/data timed "$winterp" --headless --tier "$arm" \
                        "$root/tests/guest/bin/$p.exe") ;;
            esac
            tr -d '\r' < "$work/out" > "$work/out.lf"
            if ! cmp -s "$work/out.lf" "$expected"; then
                echo "vs-qemu: $p under $arm printed something else than $expected:" >&2
                diff "$expected" "$work/out.lf" | head -20 >&2
                exit 1
            fi
            user[$p/$arm]+="$t "
            echo "run $r $p $arm: ${t} s user, output as expected" >&2
        done
    done
done

# min and median of a list of numbers
stat() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f", v[1], m}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo
echo "user-CPU seconds, min (median) of $reps; outputs identical to tests/guest/expected"
printf '| program | native | qemu-i386 | winterp jit=off | winterp jit=on | qemu / jit=on | off / on | jit=on / native |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for p in "${progs[@]}"; do
    declare -A mn md
    for arm in "${arms[@]}"; do
        read -r a b <<<"$(stat "${user[$p/$arm]}")"
        mn[$arm]=$a; md[$arm]=$b
    done
    printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s |\n' "$p" \
        "${mn[native]}" "${md[native]}" "${mn[qemu]}" "${md[qemu]}" \
        "${mn[jit=off]}" "${md[jit=off]}" "${mn[jit=on]}" "${md[jit=on]}" \
        "$(ratio "${md[qemu]}" "${md[jit=on]}")" "$(ratio "${md[jit=off]}" "${md[jit=on]}")" \
        "$(ratio "${md[jit=on]}" "${md[native]}")"
done

if [ $run_7za = yes ]; then
    exe=$corpus/win/ia32/7za.exe
    if [ ! -f "$exe" ]; then
        echo "vs-qemu: $exe missing (scripts/fetch-corpus.sh); 7za part skipped" >&2
        exit 0
    fi
    mkdir -p "$work/7z"; cp "$exe" "$work/7z/7za.exe"
    echo
    echo "7za $sevenza_args (7-Zip's own rating, higher is faster; user-CPU seconds)"
    declare -A tot
    for arm in jit=off jit=on; do
        rm -rf "$work/data"; mkdir "$work/data"
        # shellcheck disable=SC2086 # the arguments are words
        t=$(cd "$work/7z" && WINTERP_DATA_DIR=$work/data timed "$winterp" --headless --winver xp \
            --tier "$arm" --stats "$work/stats-$arm.json" 7za.exe $sevenza_args)
        tr -d '\r' < "$work/out" > "$work/7z-$arm.txt"
        # "Tot:  usage  r/u  rating" : the last number of the Tot: line.
        tot[$arm]=$(awk '/^Tot:/ {print $NF}' "$work/7z-$arm.txt")
        [ -n "${tot[$arm]}" ] || { echo "vs-qemu: 7za under $arm printed no Tot: line" >&2; tail "$work/7z-$arm.txt" >&2; exit 1; }
        jit=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["tiers"]["jit"]["detail"]; print("compiled %d, code_bytes_peak %d, compile_ns p50 %d p99 %d max %d" % (d["compiled"], d.get("code_bytes_peak", -1), d.get("compile_ns_p50", -1), d.get("compile_ns_p99", -1), d["compile_ns_max"]))' "$work/stats-$arm.json" 2>/dev/null || echo "no jit stats")
        echo "7za $arm: Tot rating ${tot[$arm]}, ${t} s user; jit: $jit"
    done
    echo "7za rating jit=on / jit=off: $(ratio "${tot[jit=on]}" "${tot[jit=off]}")"
fi
