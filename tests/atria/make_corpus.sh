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
stamp="$venv/requirements.txt"
if ! cmp -s "$here/requirements.txt" "$stamp" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$stamp"
fi
rm -rf "$out"
mkdir -p "$out"
"$venv/bin/python" "$here/make_corpus.py" "$out"
"$venv/bin/python" "$here/make_parquet.py" "$out/parquet"
