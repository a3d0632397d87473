#!/usr/bin/env bash
# Fuzzes the FMU's C ABI: the four targets share a budget of three times the given seconds
# (default 60, so three minutes): fmi_calls and fmi3_calls
# (the FMI 2.0 and 3.0 layers) 30 % each, deserialize_state 23 %, table_file 17 %. Each starts from
# the committed seeds copied to a temporary corpus, so that a run never changes the repository.
# Fails on any crash, panic (a failed call without a logged reason, a broken output invariant),
# timeout, leak or out-of-memory. Prints executions and coverage per target at the end.
#
#   bash fuzz/run.sh [seconds]
#
# Needs the nightly toolchain (cargo fuzz builds with sanitizers); installs cargo-fuzz if missing.
# Findings are saved under fuzz/artifacts/<target>/ (ignored by git); reproduce one with
#   cd fuzz && cargo +nightly fuzz run <target> artifacts/<target>/<file>
set -euo pipefail

seconds="${1:-60}"
# A step is bounded by the FMU and by the harness cap (see fuzz/src/lib.rs), so an input that
# runs this long hangs.
per_input_timeout=10
targets=(fmi_calls fmi3_calls deserialize_state table_file)
# Each target's share of the budget, in percent, in the order of `targets`.
shares=(30 30 23 17)
budget=$((3 * seconds))

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

if ! command -v cargo-fuzz >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo-fuzz" ]; then
    cargo install cargo-fuzz --locked
fi
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

failed=0
summary=()
for k in "${!targets[@]}"; do
    target="${targets[$k]}"
    share=$((budget * shares[k] / 100))
    [ "$share" -ge 1 ] || share=1
    corpus="$work/corpus/$target"
    mkdir -p "$corpus"
    if [ -d "corpus/$target" ]; then
        cp -r "corpus/$target/." "$corpus/"
    fi
    log="$work/$target.log"
    echo "=== fuzz target $target: ${share}s from $(find "$corpus" -type f | wc -l) seeds"
    set +e
    # -a: debug assertions and overflow checks on top of the optimized, address-sanitized build.
    cargo +nightly fuzz run -a "$target" "$corpus" -- \
        -max_total_time="$share" -timeout="$per_input_timeout" -rss_limit_mb=4096 \
        -print_final_stats=1 >"$log" 2>&1
    status=$?
    set -e
    # libFuzzer's progress lines are many; show the start, the findings and the end.
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$log" | tail -n 60
    runs="$(grep -o -E 'Done [0-9]+ runs in [0-9]+ second\(s\)' "$log" | tail -n 1 || true)"
    last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
    cov="$(grep -o -E 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[A-Za-z]*' <<<"$last" || true)"
    if [ "$status" -ne 0 ]; then
        failed=1
        # The panic's message and place, which the tail above may have scrolled past.
        cause="$(grep -m 1 -A 1 -E 'panicked at|ERROR: (AddressSanitizer|libFuzzer)' "$log" | tr '\n' ' ' || true)"
        summary+=("$target: FAILED (exit $status) ${runs:-before finishing} ${cov} ${cause}")
    else
        summary+=("$target: ok, ${runs:-no run count} ${cov}")
    fi
done

echo "=== fuzzing summary"
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
    echo "fuzzing found a problem; the failing inputs are in fuzz/artifacts/" >&2
    exit 1
fi
