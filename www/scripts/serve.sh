#!/usr/bin/env bash
# The dashboard on the sample collections, from a fresh checkout: builds
# what is missing (scripts/prepare.sh), then serves www/dist/ and the samples
# on 127.0.0.1 and prints the URL. PORT=8080 by default; Ctrl-C stops it.
set -euo pipefail
www="$(cd "$(dirname "$0")/.." && pwd)"
bash "$www/scripts/prepare.sh"
exec node "$www/scripts/serve.mjs" --host 127.0.0.1 --port "${PORT:-8080}"
