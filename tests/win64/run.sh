#!/usr/bin/env bash
# The win64 DLL of the packed .fmu, tested with Windows semantics under Wine (tests/run_all.sh runs
# this as its stage "win64 under wine"; it needs the .fmu that packaging/package.py made).
#
#   bash tests/win64/run.sh
#
#   1. cross-builds the test binaries of TESTS for x86_64-pc-windows-gnu with the DLL's own toolchain
#      (packaging/win64_cargo.sh), into target/win64;
#   2. makes a throwaway Wine prefix in target/win64/wineprefix and puts the test-only stand-in for
#      bcryptprimitives.dll (tests/win64/bcryptprimitives.c) into its system32;
#   3. runs each test binary under wine64 with ELASTOGAP_FMU = the packed .fmu, so that the test
#      importer (tests/support) unpacks it and loads binaries/win64/ElastoGap.dll, and
#      ELASTOGAP3_FMU = the packed FMI 3.0 .fmu (binaries/x86_64-windows/ElastoGap3.dll: its exports
#      and imports, and tests/parity.rs's FMI 3.0 script);
#   4. parity: the records tests/parity.rs wrote under Wine (FMI 2.0 and FMI 3.0) are compared with
#      a native run.
#
# Prints libtest's "test result:" lines (tests/run_all.sh adds them to its total); exits non-zero on
# the first failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
started=$SECONDS

# The Windows-relevant test targets: the importer harness (lifecycle, states, FMU state
# get/set/serialize, two instances on two threads), Model Exchange (the MSL example under an adaptive
# integrator with event location, the ME calls and states), the bad-input table of docs/, numerical
# edge cases, eight threads bit for bit, the DLL's exports and imports, output parity, the panic
# barrier of the FMI layer (in-process, with the test-only feature panic-probe), and every force law
# against its reference in both interfaces, with the heat port, FMU states and derivatives.
# Not cross-built: memcheck (valgrind), c_header (a host C compiler), the accuracy studies (the same
# arithmetic as parity, minutes more), no_allocation (links the rlib, not the DLL).
TESTS=(importer_harness model_exchange bad_input_table edge_cases threads exports parity panic_barrier force_laws friction)

say() { printf 'win64: %s\n' "$*"; }
die() {
    printf 'win64: error: %s\n' "$*" >&2
    exit 1
}

fmu=${ELASTOGAP_FMU:-$root/target/fmu/ElastoGap.fmu}
case $fmu in /*) ;; *) fmu="$root/$fmu" ;; esac
[ -f "$fmu" ] || die "no packed FMU at $fmu: run packaging/package.py first"
python3 - "$fmu" <<'EOF' || die "$fmu has no binaries/win64/ElastoGap.dll: package it with the win64 toolchain (unset ELASTOGAP_SKIP_WIN64)"
import sys, zipfile
sys.exit("binaries/win64/ElastoGap.dll" not in zipfile.ZipFile(sys.argv[1]).namelist())
EOF
fmu3=${ELASTOGAP3_FMU:-$root/target/fmu/ElastoGap3.fmu}
case $fmu3 in /*) ;; *) fmu3="$root/$fmu3" ;; esac
[ -f "$fmu3" ] || die "no packed FMI 3.0 FMU at $fmu3: run packaging/package.py first"
python3 - "$fmu3" <<'EOF' || die "$fmu3 has no binaries/x86_64-windows/ElastoGap3.dll: package it with the win64 toolchain (unset ELASTOGAP_SKIP_WIN64)"
import sys, zipfile
sys.exit("binaries/x86_64-windows/ElastoGap3.dll" not in zipfile.ZipFile(sys.argv[1]).namelist())
EOF

wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64
wineserver=$(command -v wineserver || true)
[ -n "$wineserver" ] || wineserver=/usr/lib/wine/wineserver64
[ -x "$wine" ] && [ -x "$wineserver" ] || die "wine64 not found: run 'bash packaging/setup.sh' as root (wine, wine64)"

# --- 1. test binaries -------------------------------------------------------------------------
build_started=$SECONDS
arguments=()
for test in "${TESTS[@]}"; do arguments+=(--test "$test"); done
messages=$(mktemp)
trap 'rm -f "$messages"' EXIT
# The profile (Cargo.toml) builds quickly; the DLL under test is the packed one, whatever it is.
bash packaging/win64_cargo.sh test --profile win64-tests --features panic-probe --no-run --quiet --message-format=json-render-diagnostics \
    "${arguments[@]}" >"$messages"
declare -A executable=()
while read -r name path; do
    executable[$name]=$path
done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("reason") == "compiler-artifact" and message.get("executable") and message["profile"]["test"]:
        print(message["target"]["name"], message["executable"])
' "$messages")
for test in "${TESTS[@]}"; do
    [ -n "${executable[$test]:-}" ] || die "cargo built no Windows executable for tests/$test.rs"
done
say "test binaries cross-built in $((SECONDS - build_started)) s"

# --- 2. Wine prefix ---------------------------------------------------------------------------
prefix_started=$SECONDS
export WINEPREFIX="$root/target/win64/wineprefix" WINEDEBUG=-all
# No Mono or Gecko: their installers would ask at prefix creation, and nothing here needs them.
export WINEDLLOVERRIDES="mscoree=;mshtml="
mkdir -p "$WINEPREFIX"
# A server of our own that outlives each test by a few seconds only, started with its output away
# from our pipes (a server started by the first test would hold `tee` open).
"$wineserver" -p5 </dev/null >/dev/null 2>&1 || true
system32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -d "$system32" ]; then
    "$wine" wineboot --init </dev/null >/dev/null 2>&1 || true
    [ -d "$system32" ] || die "wineboot did not create the prefix $WINEPREFIX"
    # wineboot returns while the new prefix is still being set up: wait for every Wine process
    # to end (a test started in a prefix not yet settled can exit 1 without running), then
    # start our server again.
    "$wineserver" -w </dev/null >/dev/null 2>&1 || true
    "$wineserver" -p5 </dev/null >/dev/null 2>&1 || true
fi
stub="$system32/bcryptprimitives.dll"
source_file="$root/tests/win64/bcryptprimitives.c"
if [ ! -f "$stub" ] || [ "$source_file" -nt "$stub" ]; then
    x86_64-w64-mingw32-gcc -O2 -shared -static-libgcc -o "$stub" "$source_file" -lbcrypt
fi
say "Wine prefix ready in $((SECONDS - prefix_started)) s ($("$wine" --version))"

# --- 3. the tests under Wine ------------------------------------------------------------------
windows_path() { printf 'Z:%s' "${1//\//\\}"; }
parity_records="$root/target/win64/parity-win64.txt"
parity3_records="$root/target/win64/parity3-win64.txt"
rm -f "$parity_records" "$parity3_records"
export ELASTOGAP_FMU ELASTOGAP3_FMU
ELASTOGAP_FMU=$(windows_path "$fmu")
ELASTOGAP3_FMU=$(windows_path "$fmu3")
# Runs one test binary under Wine, its output to $root/target/win64/<test>.out and to stdout.
run_under_wine() {
    local out="$root/target/win64/$1.out" status=0
    ELASTOGAP_PARITY_OUT=$(windows_path "$parity_records") \
        ELASTOGAP_PARITY3_OUT=$(windows_path "$parity3_records") \
        "$wine" "${executable[$1]}" </dev/null >"$out" 2>&1 || status=$?
    tr -d '\r' <"$out"
    return "$status"
}
for test in "${TESTS[@]}"; do
    test_started=$SECONDS
    printf '\n--- tests/%s.rs under %s\n' "$test" "$("$wine" --version)"
    status=0
    run_under_wine "$test" || status=$?
    # A binary that ends before its harness reports ran no test: Wine did not start it (which can
    # happen, silently, on a prefix just made). It gets one more start; a test that fails reports it.
    if [ "$status" -ne 0 ] && ! grep -q '^test result:' "$root/target/win64/$test.out"; then
        say "tests/$test.rs exited $status under Wine before its harness reported; starting it once more"
        status=0
        run_under_wine "$test" || status=$?
    fi
    [ "$status" -eq 0 ] || die "tests/$test.rs failed under Wine (exit $status)"
    say "tests/$test.rs under Wine: $((SECONDS - test_started)) s"
done

# --- 4. parity with the native run ------------------------------------------------------------
[ -s "$parity_records" ] || die "tests/parity.rs wrote no records under Wine"
[ -s "$parity3_records" ] || die "tests/parity.rs wrote no FMI 3.0 records under Wine"
printf '\n--- tests/parity.rs natively, compared with the records of the win64 run (FMI 2.0 and 3.0)\n'
ELASTOGAP_FMU="$fmu" ELASTOGAP_PARITY_WIN64="$parity_records" \
    ELASTOGAP3_FMU="$fmu3" ELASTOGAP_PARITY3_WIN64="$parity3_records" \
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo test --release --quiet --test parity -- call_script --nocapture 2>&1
say "done in $((SECONDS - started)) s"
