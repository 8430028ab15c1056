#!/usr/bin/env bash
# A short fuzz run for CI (scripts/test.sh calls it): builds every cargo-fuzz
# target once, then runs each for FUZZ_SMOKE_SECONDS (default 10) seconds on
# its committed corpus. Fails on a crash, an input slower than 10 s or one
# that takes more than 512 MB; the input lands in
# target/fuzz-smoke/artifacts/<target>/. New inputs go to a scratch corpus
# there too, so the committed corpus stays as it is.
#
#   bash fuzz/smoke.sh
#   FUZZ_SMOKE_SECONDS=5 bash fuzz/smoke.sh
#
# The long runs are fuzz/run.sh's (docs/reliability.md, "Fuzzing"). The
# nightly toolchain and cargo-fuzz come from scripts/setup.sh fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SMOKE_SECONDS:-10}
# shellcheck source=fuzz/limits.sh
. fuzz/limits.sh
bash scripts/setup.sh fuzz

scratch=target/fuzz-smoke
rm -rf "$scratch"
mkdir -p "$scratch"
# The same build flags as fuzz/run.sh, so `fuzz run` below builds nothing.
flags=(--sanitizer none --debug-assertions)
started=$SECONDS
cargo +nightly fuzz build "${flags[@]}"
echo "fuzz smoke: built every target in $((SECONDS - started)) s" >&2

failed=""
for target in $(cargo +nightly fuzz list); do
    mkdir -p "$scratch/corpus/$target" "$scratch/artifacts/$target"
    corpora=("$scratch/corpus/$target")
    [ -d "fuzz/corpus/$target" ] && corpora+=("fuzz/corpus/$target")
    log="$scratch/$target.log"
    if cargo +nightly fuzz run "${flags[@]}" "$target" "${corpora[@]}" -- \
        -max_total_time="$seconds" -rss_limit_mb=512 -timeout=10 \
        -max_len="$(max_len_of "$target")" -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target/" 2>"$log"; then
        runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log")
        echo "fuzz smoke: $target: ${runs:-?} runs in ${seconds} s, no crash" >&2
    else
        tail -30 "$log" >&2
        failed="$failed $target"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz smoke: failed:$failed (a crashing input is in $scratch/artifacts/; replay" \
        "it with cargo +nightly fuzz run TARGET INPUT, then add it to fuzz/regressions/)" >&2
    exit 1
fi
echo "fuzz smoke: every target ran ${seconds} s without a crash ($((SECONDS - started)) s in all)" >&2
