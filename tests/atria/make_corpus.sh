#!/usr/bin/env bash
# Writes the Atria test corpus with the real Python writers, pinned in
# requirements.txt, into a venv under target/:
#   tests/atria/make_corpus.sh OUT_DIR
# Needs python3 (>= 3.9) and PyPI. The venv is reused while requirements.txt
# is unchanged.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: make_corpus.sh OUT_DIR}"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/atria-venv"
# shellcheck source=tests/atria/venv.sh
. "$here/venv.sh"
ensure_venv "$venv" "$here/requirements.txt"
rm -rf "$out"
mkdir -p "$out"
"$venv/bin/python" "$here/make_corpus.py" "$out"
"$venv/bin/python" "$here/make_parquet.py" "$out/parquet"
