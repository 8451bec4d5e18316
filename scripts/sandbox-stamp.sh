#!/usr/bin/env bash
# sandbox-stamp.sh prints the stamp that names the build of foya and its
# sandbox helper (sandbox.HelperStamp): a digest of the helper's sources
# (the sandbox and fspath packages, cmd/foya-sandbox), go.sum and the Go
# toolchain, so that one tree always builds the same stamp and a helper of
# another build is never used. The Makefile and scripts/release-version.sh
# link it into both binaries. GO names the go command (default go).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shopt -s nullglob
files=(backend/sandbox/*.go backend/fspath/*.go cmd/foya-sandbox/*.go)
mapfile -t files < <(printf '%s\n' "${files[@]}" | LC_ALL=C sort)
{ cat "${files[@]}" go.sum; "${GO:-go}" version; } | sha256sum | cut -c1-32
