#!/usr/bin/env bash
# Regenerates tests/atria/atria-caches/ (committed) with Atria's own writer
# code at the pinned commit:
#   tests/atria/make_atria_caches.sh ATRIA_GIT [OUT_DIR]
# ATRIA_GIT: a git directory (bare or not) of the atriaml/atria repository
# that has the pinned commit. Atria is not on PyPI and CI cannot fetch it,
# so the caches are committed and this is run by hand after a change.
# Needs python3 (>= 3.10) and PyPI; the venv (registry packages only,
# atria-writer-requirements.txt) and the extracted source live under target/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
atria_git="${1:?usage: make_atria_caches.sh ATRIA_GIT [OUT_DIR]}"
out="${2:-$here/atria-caches}"
# atriaml/atria, main, 2026-01-02: every commit on every branch keys samples
# the same way (docs/atria.md, "Atria's WebDataset keys").
commit=67ce25988375da3153489c666e237eb7c44a0431
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/atria-writer-venv"
# shellcheck source=tests/atria/venv.sh
. "$here/venv.sh"
ensure_venv "$venv" "$here/atria-writer-requirements.txt"
src="$target/atria-src/$commit"
if [ ! -d "$src/atria_datasets" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  git --git-dir="$atria_git" archive "$commit" atria_types atria_logger atria_datasets | tar -x -C "$src"
fi
TQDM_DISABLE=1 "$venv/bin/python" "$here/make_atria_caches.py" "$src" "$out" 2> >(grep -v ' INFO ' >&2)
