# Sourced by the Atria corpus scripts: `ensure_venv VENV REQUIREMENTS` makes
# a venv at VENV holding REQUIREMENTS' pinned packages, and keeps it while
# REQUIREMENTS is unchanged (a copy beside it records what it was made from).
ensure_venv() {
  local venv="$1" requirements="$2"
  local stamp="$venv/$(basename "$requirements")"
  if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
  fi
}
