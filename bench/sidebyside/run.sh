#!/usr/bin/env bash
# run.sh: the shared workloads (../shared/bench beside the checkout) for Foya and the peers in one
# run, interleaved: for each repetition, for each scenario, each agent in turn. One line per run:
# agent, scenario, wall s, user+sys s (everything the agent started), peak RSS KB (the largest
# single process, GNU time's %M), the scripted calls verified as really executed, and the load
# average at the start of the run.
#
#   FOYA=./foya CODEX=$(command -v codex) OPENCODE=$(command -v opencode) bash bench/sidebyside/run.sh
#
# Agents left empty are skipped (FOYA, CODEX, OPENCODE). SCENARIOS (default: the five),
# REPS (default 3), SHARED (default ../shared/bench), WORKLOADS_DIR (default /tmp/foya-sidebyside);
# KEEP_FAILED=1 keeps the folder of a run whose calls did not all verify.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=$(realpath "${SHARED:-$here/../../../shared/bench}")
read -r -a scenarios <<<"${SCENARIOS:-smoke shell50 read-heavy big-output edit20}"
dir=${WORKLOADS_DIR:-/tmp/foya-sidebyside}
mkdir -p "$dir/bin"
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install time" >&2; exit 2; }
if [[ ! -x $dir/bin/fakeoai || $shared/fakeoai/main.go -nt $dir/bin/fakeoai ]]; then
  (cd "$shared/fakeoai" && go build -o "$dir/bin/fakeoai" main.go)
fi
fake=$dir/bin/fakeoai
# The shared dialects with the peers' added.
python3 - "$shared/dialects.json" "$here/dialects.json" "$dir/dialects.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
for k, v in b.items():
    a.setdefault(k, v)
json.dump(a, open(sys.argv[3], "w"), indent=1)
PY
if [[ ! -d $dir/ws-template ]]; then
  "$fake" genws -dir "$dir/ws-template" -files 200 -lines 100
  (cd "$dir/ws-template" && git init -q && git add -A &&
    git -c user.email=bench@localhost -c user.name=bench commit -qm "benchmark workspace")
fi
agents=()
for a in foya codex opencode; do
  v=${a^^}; [[ -n ${!v:-} ]] && agents+=("$a")
done
((${#agents[@]})) || { echo "give FOYA, CODEX or OPENCODE" >&2; exit 2; }

run_one() { # agent scenario
  local a=$1 s=$2 run port prompt bin v
  v=${a^^}; bin=$(realpath "${!v}")
  run=$(mktemp -d "$dir/run-$a-$s-XXXX")
  cp -r "$dir/ws-template" "$run/ws"
  mkdir -p "$run/home/.codex" "$run/home/.config/opencode"
  "$fake" serve -scenario "$shared/scenarios/$s.json" -dialects "$dir/dialects.json" -agent "$a" \
    -workdir "$run/ws" -port-file "$run/port" -state "$run/state.json" >"$run/fake.log" 2>&1 &
  local fp=$!
  for _ in $(seq 100); do [[ -s $run/port ]] && break; sleep 0.05; done
  port=$(cat "$run/port")
  local base="http://127.0.0.1:$port/v1"
  prompt=$(sed -n 's/^ *"prompt": *"\([^"]*\)".*/\1/p' "$shared/scenarios/$s.json" | head -n 1)
  prompt=${prompt:-Run the scripted workload.}
  local cmd=()
  case $a in
    foya) cmd=("$bin" exec --base-url "$base" --api-key x --model m --approval full-access
            --max-steps 1000 --workdir "$run/ws" --db "$run/foya.db" "$prompt") ;;
    codex) cmd=("$bin" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C "$run/ws"
            -m gpt-5-codex -c "model_providers.fake={name=\"fake\",base_url=\"$base\",wire_api=\"responses\",env_key=\"FAKE_KEY\"}"
            -c model_provider=fake "$prompt") ;;
    opencode)
      cat >"$run/home/.config/opencode/opencode.json" <<JSON
{"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
  "options": {"baseURL": "$base", "apiKey": "x"}, "models": {"m": {"name": "m"}}}},
 "model": "fake/m", "autoupdate": false, "share": "disabled",
 "permission": {"edit": "allow", "bash": "allow", "read": "allow", "external_directory": "allow"}}
JSON
      cmd=("$bin" run --model fake/m "$prompt") ;;
  esac
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$run/ws" && env -u OPENAI_API_KEY -u OPENAI_BASE_URL HOME="$run/home" XDG_DATA_HOME="$run/home/.local/share" \
    XDG_CONFIG_HOME="$run/home/.config" XDG_CACHE_HOME="$run/home/.cache" XDG_STATE_HOME="$run/home/.local/state" \
    CODEX_HOME="$run/home/.codex" FAKE_KEY=x OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
    OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
    /usr/bin/time -f '%e %U %S %M' -o "$run/time.txt" timeout 600 "${cmd[@]}" >"$run/out.txt" 2>"$run/err.txt" </dev/null) || true
  kill "$fp" 2>/dev/null; wait "$fp" 2>/dev/null || true
  local wall u sy rss ex tot verdict
  read -r wall u sy rss <"$run/time.txt" || true
  read -r ex tot verdict _ < <("$fake" verify -scenario "$shared/scenarios/$s.json" -state "$run/state.json" -workdir "$run/ws" 2>/dev/null || echo "? ? fail")
  printf '%-9s %-11s %7s %7.2f %9s %-10s %s\n' "$a" "$s" "$wall" "$(awk -v a="$u" -v b="$sy" 'BEGIN{print a+b}')" "$rss" "$ex/$tot-$verdict" "$load"
  if [[ $verdict == ok || -z ${KEEP_FAILED:-} ]]; then rm -rf "$run"; else echo "  kept: $run" >&2; fi
}

printf '%-9s %-11s %7s %7s %9s %-10s %s\n' agent scenario wall_s cpu_s maxrss_kb executed load1
for rep in $(seq "${REPS:-3}"); do
  for s in "${scenarios[@]}"; do
    for a in "${agents[@]}"; do run_one "$a" "$s"; done
  done
done
