#!/usr/bin/env bash
# End-to-end tests of the dashboard in Debian's headless Chromium: builds what
# is missing (scripts/prepare.sh), then runs www/test/*.test.mjs. Screenshots
# land in www/test/artifacts/.
set -euo pipefail
www="$(cd "$(dirname "$0")/.." && pwd)"
bash "$www/scripts/prepare.sh"
command -v chromium >/dev/null || bash "$www/../scripts/setup.sh" browser
# An Atria cache imported by `atlas import-atria`, which the dashboard must
# open: the Delta config of the Atria corpus (written by
# js/scripts/test.sh, or here), through the `atlas` binary `cargo test
# --all-features` builds.
root="$(cd "$www/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
export ATLAS_ATRIA_CORPUS="${ATLAS_ATRIA_CORPUS:-$target/atria-corpus}"
corpus="$ATLAS_ATRIA_CORPUS"
if [ ! "$corpus/expected.json" -nt "$root/tests/atria/make_corpus.py" ]; then
  bash "$root/tests/atria/make_corpus.sh" "$corpus"
fi
printf '\n== www: atlas import-atria of the Atria corpus (%ss)\n' "$SECONDS"
cargo build --quiet --manifest-path "$root/Cargo.toml" --all-features --bin atlas
export ATLAS_WWW_ATRIA="$target/www-atria"
rm -rf "$ATLAS_WWW_ATRIA"
"$target/debug/atlas" import-atria "$corpus/docs_delta" "$ATLAS_WWW_ATRIA" >/dev/null

printf '\n== www: node --test in headless Chromium (%ss)\n' "$SECONDS"
cd "$www"
node --test --test-concurrency=1 test/
printf '\n== www: done in %ss\n' "$SECONDS"
