#!/usr/bin/env bash
# Runs every Go fuzz target in the module for FUZZTIME each (default 60s),
# one after the other: go test -fuzz takes one target per package per run,
# and the machine's cores are better spent on one fuzzer at a time. Targets
# are found by their declarations (func FuzzX(f *testing.F)), so a new one
# is picked up without editing this script. A finding fails the target;
# go test writes the failing input under the package's testdata/fuzz/, to
# be committed with the fix. FUZZ narrows the run to targets whose name
# matches a regular expression (FUZZ=Args make fuzz); FUZZPARALLEL sets
# go test's -parallel (its fuzz workers; GOMAXPROCS when unset).
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-60s}
FUZZ=${FUZZ:-.}
GO=${GO:-go}

mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' backend tests |
	sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*).*|\1 \2|' | sort -u)

passed=0 failed=0 failures=()
for t in "${targets[@]}"; do
	dir=${t% *} name=${t#* }
	[[ $name =~ $FUZZ ]] || continue
	echo "=== fuzz $name (./$dir, $FUZZTIME)"
	if GORACE=atexit_sleep_ms=0 $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" ${FUZZPARALLEL:+-parallel "$FUZZPARALLEL"} "./$dir" 2>&1 | tail -n 20; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$name (./$dir)")
	fi
done
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
