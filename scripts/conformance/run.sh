#!/usr/bin/env bash
# Runs every client scenario of the MCP conformance suite against foya mcp
# (client.mjs drives it) and checks the outcome against expected-pass.txt.
# make test-conformance installs what it needs and calls it:
#
#   run.sh NODE FOYA OUT
#
# NODE is a Node.js of 22 or later (the suite needs it), FOYA the foya
# binary, OUT a folder for the suite's results and log (emptied first).
#
# The suite's test servers listen on every interface, so the suite runs in a
# network namespace of its own (a user namespace's, with only loopback up),
# where the machine allows one; elsewhere it runs in the machine's and says
# so, and under CI (CI set and not false or 0) that fails instead.
#
# A scenario in expected-pass.txt that fails among the parallel runs is run
# once more alone before the target fails: sse-retry times the client's
# reconnection against the server's retry field, and 26 scenarios starting
# at once on two cores can delay it by more than the suite allows.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 NODE FOYA OUT" >&2
  exit 2
fi
node=$1 foya=$2 out=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
case "${CI:-}" in "" | false | 0) ci="" ;; *) ci=1 ;; esac

[ -f "$suite" ] || { echo "conformance: the suite is not installed in $here (make test-conformance runs npm ci there)" >&2; exit 1; }
foya=$(cd "$(dirname "$foya")" && pwd)/$(basename "$foya")
rm -rf "$out" && mkdir -p "$out"

# The private network: unshare (util-linux) makes the namespaces, ip
# (iproute2) brings its loopback up.
isolate=()
why=""
if ! command -v unshare >/dev/null; then
  why="unshare (Debian package util-linux) is missing"
elif ! command -v ip >/dev/null; then
  why="ip (Debian package iproute2) is missing"
elif ! msg=$(unshare --user --map-root-user --net -- sh -c 'ip link set lo up' 2>&1); then
  why="unshare --user --net failed: ${msg:-no reason given}"
else
  isolate=(unshare --user --map-root-user --net -- sh -c 'ip link set lo up && exec "$@"' sh)
fi
if [ -n "$why" ]; then
  if [ -n "$ci" ]; then
    echo "conformance: no private network namespace under CI ($why): not run" >&2
    exit 1
  fi
  echo "conformance: no private network namespace here ($why): the suite's test servers listen on every interface of this machine while it runs"
fi

# The suite splits --command at spaces and hands it to a shell: quoted
# paths survive that.
command=$(printf '%q %q' "$node" "$here/client.mjs")
suite_run() {
  FOYA_BIN="$foya" "${isolate[@]}" "$node" "$suite" client --command "$command" -o "$out/results" "$@"
}

echo "conformance: @modelcontextprotocol/conformance $("$node" -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version") on Node $("$node" --version), every client scenario"
start=$SECONDS
# The suite exits non-zero when any scenario fails: the summary decides.
suite_run --suite all >"$out/summary.txt" 2>"$out/suite.log" || true
# The summary's scenario lines; its count line comes last, below.
sed -n '/=== SUITE SUMMARY ===/,$p' "$out/summary.txt" | grep -vE '^(=== SUITE SUMMARY ===|Total: |$)' || true
total=$(grep -E '^Total: ' "$out/summary.txt" || true)
if [ -z "$total" ]; then
  echo "conformance: the suite printed no count line; its output:" >&2
  cat "$out/summary.txt" "$out/suite.log" >&2
  exit 1
fi

declare -A result
while IFS= read -r line; do
  mark=${line%% *}
  rest=${line#* }
  name=${rest%%: *}
  result[$name]=$mark
done < <(grep -E '^(✓|✗) [^ ]+: ' "$out/summary.txt")

mapfile -t expected < <(grep -vE '^[[:space:]]*(#|$)' "$here/expected-pass.txt")
bad=0
for name in "${expected[@]}"; do
  case "${result[$name]:-}" in
    ✓) ;;
    "")
      echo "conformance: $name is in expected-pass.txt but the suite has no such client scenario" >&2
      bad=1
      ;;
    *)
      if suite_run --scenario "$name" >"$out/alone.txt" 2>&1; then
        echo "conformance: $name failed among the parallel runs and passed alone (see $out/suite.log)"
        result[$name]=✓
      else
        echo "conformance: $name is expected to pass and fails, alone too:" >&2
        sed -n '/^Test Results:/,$p' "$out/alone.txt" >&2
        bad=1
      fi
      ;;
  esac
done

passed=0
for name in "${!result[@]}"; do
  [ "${result[$name]}" = ✓ ] || continue
  passed=$((passed + 1))
  if ! printf '%s\n' "${expected[@]}" | grep -qxF -- "$name"; then
    echo "conformance: $name passes: add it to scripts/conformance/expected-pass.txt"
  fi
done
echo "$total"
echo "conformance: $passed of ${#result[@]} client scenarios pass, ${#expected[@]} required (scripts/conformance/expected-pass.txt); $((SECONDS - start)) s; results in $out"
if [ "$bad" -ne 0 ]; then
  echo "conformance: failed; the suite's log: $out/suite.log, each scenario's checks and client output: $out/results" >&2
  exit 1
fi
