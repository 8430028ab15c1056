#!/usr/bin/env bash
# Time and peak RSS of `atlas create` (ours, release build) and atlas-python
# 0.17.2's `atlas create` on the same NetCDF corpora, measured in one run,
# alternating, so a noisy machine hits both alike. Prints one line per run
# and the ratios of the medians.
#
#   bash benches/create-compare/run.sh            # 206 small files + 2 x 512 MB
#   ATLAS_BENCH_MB=128 ATLAS_BENCH_RUNS=1 bash benches/create-compare/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${ATLAS_BENCH_RUNS:-3}"
mb="${ATLAS_BENCH_MB:-512}"
files="${ATLAS_BENCH_FILES:-2}"
work="${ATLAS_BENCH_DIR:-target/create-compare}"

cargo build --release --quiet --features cli --bin atlas
ours="$PWD/target/release/atlas"
mkdir -p "$work"
[ -d "$work/main" ] || python3 interop/python/make_corpus.py main "$work/main"
[ -d "$work/big-$files-$mb" ] || python3 interop/python/make_corpus.py big "$work/big-$files-$mb" --files "$files" --mb "$mb"

# Wall seconds and peak RSS (MiB) of one command.
measure() {
  local out="$work/out"
  rm -rf "$out"
  /usr/bin/time -o "$work/time" -f '%e %M' "$@" "$out" -q >/dev/null 2>&1
  [ -f "$out/data.atlas" ] || { echo "no collection from: $*" >&2; exit 1; }
  rm -rf "$out"
  awk '{ printf "%.2f %.0f\n", $1, $2 / 1024 }' "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

bench() {
  local label="$1" corpus="$2"; shift 2
  local -a flags=("$@")
  : > "$work/ours.t"; : > "$work/ours.m"; : > "$work/py.t"; : > "$work/py.m"
  for _ in $(seq "$runs"); do
    read -r t m < <(measure atlas create "$corpus" "${flags[@]}")
    echo "$t" >> "$work/py.t"; echo "$m" >> "$work/py.m"
    printf '  %-28s atlas-python %7.2f s %6d MiB\n' "$label" "$t" "$m"
    read -r t m < <(measure "$ours" create "$corpus" "${flags[@]}")
    echo "$t" >> "$work/ours.t"; echo "$m" >> "$work/ours.m"
    printf '  %-28s ours         %7.2f s %6d MiB\n' "$label" "$t" "$m"
  done
  local ot pt om pm
  ot=$(median < "$work/ours.t"); pt=$(median < "$work/py.t")
  om=$(median < "$work/ours.m"); pm=$(median < "$work/py.m")
  awk -v l="$label" -v ot="$ot" -v pt="$pt" -v om="$om" -v pm="$pm" 'BEGIN {
    printf "%-30s ours %.2f s / %d MiB, atlas-python %.2f s / %d MiB: %.1fx faster, %.2fx the memory\n",
      l, ot, om, pt, pm, pt / ot, om / pm }' | tee -a "$work/summary"
}

: > "$work/summary"
echo "== $runs run(s) each; input: $(du -sh "$work/main" | cut -f1) small files, $(du -sh "$work/big-$files-$mb" | cut -f1) large"
bench "206 small files" "$work/main"
bench "206 small files, -j 2" "$work/main" -j 2
bench "$files x ${mb} MB" "$work/big-$files-$mb"
bench "$files x ${mb} MB, 32MiB budget" "$work/big-$files-$mb" --chunk-size 32MiB
echo; cat "$work/summary"
