#!/usr/bin/env bash
# The whole test suite (the README's second command). Stops at the first failure.
#
#   1. packaging/setup.sh          machine and .venv
#   2. packaging/package.py        build, package and validate target/fmu/ElastoGap.fmu (FMI 2.0) and
#                                  target/fmu/ElastoGap3.fmu (FMI 3.0); the tests need both
#   3. cargo fmt --check
#   4. cargo clippy --all-targets -- -D warnings   also with --features fmi3, and the FMI 3.0 library alone
#   5. cargo test --release        with ELASTOGAP_FMU and ELASTOGAP3_FMU = the packaged FMUs (test binaries
#                                  without LTO), and
#                                  the test-only feature panic-probe for tests/panic_barrier.rs
#      cargo test --release --features fmi3 --test fmi3_layer --test no_allocation_fmi3   the FMI 3.0 layer in-process
#   6. tests/win64/run.sh          win64 under wine: Windows builds of the tests against the .fmu's DLL
#   7. pytest -q tests/python      if that folder exists: FMPy, fmi-sim, fmusim, fmusim-c, OMSimulator and fmucontainer
#                                  runs of the FMUs
#
# The last line printed is the total over the Rust (native and under Wine) and Python tests:
# "N passed, N failed".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS

stage() { printf '\n=== %s (at %d s)\n' "$*" "$((SECONDS - started))"; }

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

stage "set-up"
bash packaging/setup.sh

stage "package the FMUs"
.venv/bin/python packaging/package.py
export ELASTOGAP_FMU="$root/target/fmu/ElastoGap.fmu"
export ELASTOGAP3_FMU="$root/target/fmu/ElastoGap3.fmu"
for fmu in "$ELASTOGAP_FMU" "$ELASTOGAP3_FMU"; do
    [ -f "$fmu" ] || { echo "run_all: $fmu was not made" >&2; exit 1; }
done

stage "cargo fmt --check"
cargo fmt --all --check

stage "cargo clippy --all-targets -- -D warnings (FMI 2.0, both layers, FMI 3.0 alone)"
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --features fmi3 -- -D warnings
cargo clippy --lib --no-default-features --features fmi3 -- -D warnings

stage "cargo test --release --features panic-probe (ELASTOGAP_FMU=$ELASTOGAP_FMU, ELASTOGAP3_FMU=$ELASTOGAP3_FMU)"
# The FMU under test is the packaged one, built by package.py with the release profile as it ships.
# The test binaries themselves need no LTO nor a single codegen unit, which cost minutes on 2 cores
# (each test binary's LTO link, cbindgen and syn in one unit); packaging/demo.sh builds its master the
# same way, so the two share their build.
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo test --release --features panic-probe 2>&1 | tee "$log_dir/cargo-test.log"

stage "cargo test --release --features fmi3 --test fmi3_layer --test no_allocation_fmi3"
# The FMI 3.0 layer in-process needs the library built with the fmi3 feature (required-features);
# a build of its own, as the one above must export exactly the FMI 2.0 functions (tests/exports.rs).
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo test --release --features fmi3 --test fmi3_layer --test no_allocation_fmi3 2>&1 | tee -a "$log_dir/cargo-test.log"

stage "win64 under wine (tests/win64/run.sh)"
bash tests/win64/run.sh 2>&1 | tee "$log_dir/win64.log"

python_tests=no
if [ -d tests/python ]; then
    stage "pytest -q tests/python"
    set +e
    .venv/bin/python -m pytest -q tests/python 2>&1 | tee "$log_dir/pytest.log"
    status=${PIPESTATUS[0]}
    set -e
    case $status in
        0) python_tests=yes ;;
        5) echo "run_all: no Python tests collected in tests/python" ;;
        *) exit "$status" ;;
    esac
fi

# Totals: cargo (and each Windows test binary under Wine) prints "test result: ok. N passed;
# N failed; N ignored; ..." per test binary, pytest a closing "N passed, N skipped in 1.2s".
count() { # count WORD FILE...: sum of the numbers in front of WORD in the files
    local word=$1
    shift
    cat "$@" | { grep -oE "[0-9]+ $word" || true; } | awk '{ n += $1 } END { print n + 0 }'
}
rust_lines="$log_dir/rust-results.log"
grep -hE '^test result: ' "$log_dir/cargo-test.log" "$log_dir/win64.log" >"$rust_lines" || true
win64_lines="$log_dir/win64-results.log"
grep -hE '^test result: ' "$log_dir/win64.log" >"$win64_lines" || true
python_lines="$log_dir/python-results.log"
: >"$python_lines"
if [ "$python_tests" = yes ]; then
    tail -n 1 "$log_dir/pytest.log" >"$python_lines"
fi
passed=$(count passed "$rust_lines" "$python_lines")
failed=$(count failed "$rust_lines" "$python_lines")
skipped=$(($(count ignored "$rust_lines") + $(count skipped "$python_lines")))

printf '\nrun_all: all stages passed in %d s (Rust: %s passed, %s of them win64 under Wine; Python: %s passed)\n' \
    "$((SECONDS - started))" "$(count passed "$rust_lines")" "$(count passed "$win64_lines")" \
    "$(count passed "$python_lines")"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
