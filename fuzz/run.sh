#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60), one after another, each
# in a single libFuzzer process (no -jobs/-workers: those fork children), on
# the committed corpus, which grows in place (minimise it again before a
# commit: see docs/reliability.md). Crashes land in fuzz/artifacts/<target>/;
# fuzz/logs/<target>.log ends with the execs, coverage and corpus size.
#
#   bash fuzz/run.sh 1800          # the 30 minutes per target issue 11 asks for
#   TARGETS="mask" bash fuzz/run.sh 600
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# The decoders are safe Rust, so targets build without a sanitizer (about
# twice the executions per second); overflow checks and debug assertions
# stay on, so arithmetic that wraps is a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# shellcheck source=fuzz/limits.sh
. fuzz/limits.sh
targets=${TARGETS:-"collection_footer segment_footer segment_rows mask block_decode open_and_read parquet_read msgpack_shard tar_shard delta_log deletion_vector"}
mkdir -p fuzz/logs
failed=""
for target in $targets; do
    max_len=$(max_len_of "$target")
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    echo "== $target: ${seconds}s" >&2
    cargo +nightly fuzz run --sanitizer none --debug-assertions "$target" \
        "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=512 \
        -max_len="$max_len" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$target/" \
        2>"fuzz/logs/$target.log" || { tail -30 "fuzz/logs/$target.log" >&2; failed="$failed $target"; }
    grep -E '^#[0-9]+ +DONE|stat::' "fuzz/logs/$target.log" >&2 || true
done
if [ -n "$failed" ]; then
    echo "crashed:$failed (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
