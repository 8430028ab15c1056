#!/usr/bin/env bash
# Building in parts, timed against its peers in one run (alternating, so a
# noisy machine hits both alike); prints each run and the ratios of the
# medians against the targets of docs/benchmarks.md, "Merging parts".
#
#  merge: `atlas merge` of the parts against `cat` of the same part files
#         into one file, then `sync` of that file (merge fsyncs its
#         container; both copy with copy_file_range). Target: <= 1.2x.
#  dask:  examples/dask/create.py --parts 2 on a LocalCluster of 2 workers
#         (cluster start and merge included) against one `atlas create` of
#         the same files. Target: <= 0.6x.
#
#   bash benches/merge/run.sh                     # 3 runs, 8000 grid files + 4 x 128 MB
#   ATLAS_BENCH_RUNS=1 ATLAS_BENCH_GRIDS=500 ATLAS_BENCH_MB=32 bash benches/merge/run.sh
#
# Corpora (generated once under $ATLAS_BENCH_DIR): `grids`, many small
# NetCDF-4 files (benches/decode/make_netcdf.py: one float32 [90, 180]
# field each), and `big`, a few large ones (interop/python/make_corpus.py
# big: float32 [t, 721, 1440], zlib). The Dask driver runs in a venv with
# examples/dask/requirements.txt ($ATLAS_BENCH_PYTHON to use another).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${ATLAS_BENCH_RUNS:-3}"
grids="${ATLAS_BENCH_GRIDS:-8000}"
big_files="${ATLAS_BENCH_BIG_FILES:-4}"
mb="${ATLAS_BENCH_MB:-128}"
parts="${ATLAS_BENCH_PARTS:-2}"
work="${ATLAS_BENCH_DIR:-target/merge-bench}"
target="${CARGO_TARGET_DIR:-target}"

cargo build --release --quiet --features cli --bin atlas
atlas="$(realpath "$target/release/atlas")"
mkdir -p "$work"
work="$(realpath "$work")"

python="${ATLAS_BENCH_PYTHON:-}"
if [ -z "$python" ]; then
  venv="$work/dask-venv"
  stamp="$venv/.requirements.sha256"
  want=$(sha256sum examples/dask/requirements.txt | cut -d' ' -f1)
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r examples/dask/requirements.txt
    echo "$want" > "$stamp"
  fi
  python="$venv/bin/python"
fi

[ -d "$work/grids-$grids" ] || python3 benches/decode/make_netcdf.py "$work/grids-$grids" --count "$grids"
[ -d "$work/big-$big_files-$mb" ] ||
  python3 interop/python/make_corpus.py big "$work/big-$big_files-$mb" --files "$big_files" --mb "$mb"

# Wall seconds of one command (its output thrown away); fails loudly. Its
# CPU share (user + system over wall, in %) is left in $work/cpu.
seconds() {
  /usr/bin/time -o "$work/time" -f '%e %P' "$@" >/dev/null 2>"$work/stderr" ||
    { cat "$work/stderr" >&2; echo "failed: $*" >&2; exit 1; }
  cut -d' ' -f2 "$work/time" | tr -d '%' > "$work/cpu"
  cut -d' ' -f1 "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One corpus: its parts once, then `runs` alternations of each pair.
bench() {
  local label="$1" corpus="$2"
  local out="$work/out-$label" partdir="$work/parts-$label"
  rm -rf "$partdir" && mkdir -p "$partdir"
  local -a part_dirs=()
  for i in $(seq "$parts"); do
    "$atlas" create "$corpus" "$partdir/part-$i" --part "$i/$parts" -q >/dev/null
    part_dirs+=("$partdir/part-$i")
  done
  local -a part_files=("${part_dirs[@]/%//data.atlas}")
  local part_bytes
  part_bytes=$(cat "${part_files[@]}" | wc -c)
  echo "== $label: $(find "$corpus" -name '*.nc' | wc -l) files, $(du -sh "$corpus" | cut -f1) on disk;" \
    "$parts parts, $((part_bytes / 1048576)) MiB of containers"
  : > "$work/merge.t"; : > "$work/cat.t"; : > "$work/one.t"; : > "$work/one.cpu"; : > "$work/dask.t"
  for _ in $(seq "$runs"); do
    rm -rf "$out"
    t=$(seconds "$atlas" merge "${part_dirs[@]}" "$out")
    echo "$t" >> "$work/merge.t"; printf '  %-34s %7.2f s\n' "atlas merge" "$t"
    rm -rf "$out"
    t=$(seconds bash -c 'cat "${@:2}" > "$1" && sync "$1"' _ "$work/cat.out" "${part_files[@]}")
    echo "$t" >> "$work/cat.t"; printf '  %-34s %7.2f s\n' "cat + sync" "$t"
    rm -f "$work/cat.out"
    t=$(seconds "$atlas" create "$corpus" "$out" -q)
    echo "$t" >> "$work/one.t"; cat "$work/cpu" >> "$work/one.cpu"
    printf '  %-34s %7.2f s (%s%% CPU)\n' "atlas create" "$t" "$(cat "$work/cpu")"
    rm -rf "$out"
    t=$(seconds env ATLAS_BIN="$atlas" "$python" examples/dask/create.py "$corpus" "$out" \
      --parts "$parts" --workers 2 --scratch "$work/dask-scratch")
    echo "$t" >> "$work/dask.t"; printf '  %-34s %7.2f s\n' "dask/create.py, 2 workers" "$t"
    rm -rf "$out"
  done
  local m c o p d
  m=$(median < "$work/merge.t"); c=$(median < "$work/cat.t")
  o=$(median < "$work/one.t"); p=$(median < "$work/one.cpu"); d=$(median < "$work/dask.t")
  # One create keeps p% of a core busy. Two parts need its CPU time again,
  # spread over the machine's n cores, and each is half the work: at best
  # max(1/2, p / (100 n)) of one create's wall time (p / 200 on 2 cores).
  awk -v l="$label" -v m="$m" -v c="$c" -v o="$o" -v p="$p" -v d="$d" -v b="$part_bytes" -v n="$(nproc)" 'BEGIN {
    floor = p / (100 * n); if (floor < 0.5) floor = 0.5
    printf "%s: merge %.2f s (%.0f MB/s) / cat + sync %.2f s = %.2fx (target <= 1.2x)\n", l, m, b / m / 1e6, c, m / c
    printf "%s: dask, 2 workers %.2f s / one atlas create %.2f s = %.2fx (target <= 0.6x;", l, d, o, d / o
    printf " one create uses %d%% CPU, so 2 workers reach %.2fx at best)\n", p, floor
  }' | tee -a "$work/summary"
}

: > "$work/summary"
echo "== $runs run(s) each; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
bench "grids-$grids" "$work/grids-$grids"
bench "big-$big_files-x-${mb}MB" "$work/big-$big_files-$mb"
echo; cat "$work/summary"
