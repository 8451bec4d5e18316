#!/usr/bin/env bash
# Foya's grep against ripgrep on a generated 50,000-file tree (the target:
# within 3x of ripgrep). The tree (about 250 MB) is made once in
# $FOYA_GREP_TREE (default /tmp/foya-grep-tree) and kept for later runs;
# delete it when done. Usage: bench/grep.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
export FOYA_GREP_TREE=${FOYA_GREP_TREE:-/tmp/foya-grep-tree}
command -v rg >/dev/null || { echo "ripgrep is missing: apt-get install ripgrep" >&2; exit 1; }
echo "tree: $FOYA_GREP_TREE ($(rg --version | head -1))"
# Both benchmarks in one process, alternating, so load on the machine hits
# both alike; the first run builds the tree.
go test -run '^$' -bench '^BenchmarkGrep(Ripgrep)?$' -benchtime "${runs}x" -count 3 ./backend/tools/files/ |
  grep '^Benchmark'
