#!/usr/bin/env bash
# Tests of the Dask and Ray recipes (examples/test_recipes.py).
#
# Needs the atlas CLI with `create --part` and `merge`, from $ATLAS_BIN or
# else target/debug/atlas (cargo build --features cli). Builds one thing:
# the wheel of examples/wheel (maturin, dev profile), for the test that runs
# the Dask recipe on the binary `pip install` put on PATH.
# Makes the venv target/engines-venv on first use and reinstalls into it only
# when a requirements file changed. PYTHON picks the interpreter (python3).
set -euo pipefail
cd "$(dirname "$0")/.."

atlas_bin="${ATLAS_BIN:-target/debug/atlas}"
case "$atlas_bin" in /*) ;; */*) atlas_bin="$PWD/$atlas_bin" ;; esac
if ! "$atlas_bin" merge --help >/dev/null 2>&1; then
  echo "examples/run_tests.sh: no atlas with merge at $atlas_bin;" \
    "run 'cargo build --features cli' or set ATLAS_BIN" >&2
  exit 1
fi
export ATLAS_BIN="$atlas_bin"

venv=target/engines-venv
stamp="$venv/.requirements.sha256"
want=$(cat examples/requirements-test.txt examples/dask/requirements.txt examples/ray/requirements.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== installing examples/requirements-test.txt into $venv"
  start=$SECONDS
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir -r examples/requirements-test.txt
  echo "$want" > "$stamp"
  echo "== installed in $((SECONDS - start))s"
fi

# The binary as a wheel (examples/wheel), pip-installed under a prefix of
# its own: atlas-python, in the venv, installs another `atlas`.
echo "== the atlas wheel: maturin build of examples/wheel, pip install --prefix target/atlas-wheel"
start=$SECONDS
rm -rf target/wheels target/atlas-wheel
(cd examples/wheel && "../../$venv/bin/maturin" build --quiet --out ../../target/wheels \
  --compatibility linux --auditwheel skip)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
  --prefix target/atlas-wheel target/wheels/atlas_wasm_cli-*.whl
export ATLAS_WHEEL_PREFIX="$PWD/target/atlas-wheel"
echo "== wheel built and installed in $((SECONDS - start))s"

echo "== Dask and Ray recipes (atlas: $ATLAS_BIN)"
start=$SECONDS
"$venv/bin/python" examples/test_recipes.py
echo "== recipes tested in $((SECONDS - start))s"
