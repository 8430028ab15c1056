#!/usr/bin/env bash
# End-to-end tests of the dashboard in Debian's headless Chromium: builds what
# is missing (scripts/prepare.sh), then runs www/test/*.test.mjs. Screenshots
# land in www/test/artifacts/.
set -euo pipefail
www="$(cd "$(dirname "$0")/.." && pwd)"
bash "$www/scripts/prepare.sh"
command -v chromium >/dev/null || bash "$www/../scripts/setup.sh" browser
printf '\n== www: node --test in headless Chromium (%ss)\n' "$SECONDS"
cd "$www"
node --test --test-concurrency=1 test/
printf '\n== www: done in %ss\n' "$SECONDS"
