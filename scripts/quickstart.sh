#!/usr/bin/env bash
# One command on a fresh Debian machine: installs what is missing (Node 24 too, when the machine's node is
# older), builds, migrates, pulls the default whisper.cpp model when its source is reachable, prints which
# engine and model serve each tier (in the frame too), creates a demo workspace, prints its API key and password last (in a
# frame, again once the service is up) and runs the service (API + worker) on PORT (default: .env's, else 3000).
# The service and the CLI read .env themselves; a variable set on the command line wins over it
# (`PORT=3300 bash scripts/quickstart.sh`).
#   scripts/quickstart.sh --models-only   only the model step and the tier table (needs a built dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/use-node-24.sh
. scripts/use-node-24.sh

# The Whisper model the quick start pulls: multilingual, 141 MiB, the standard tier's default (models:list shows
# the others). The pull gives up after MODELS_CONNECT_TIMEOUT_MS (5 s by default) when the source cannot be
# reached, so a machine without internet never hangs here: it stays on PocketSphinx and says so in one line.
QUICKSTART_WHISPER_MODEL="${QUICKSTART_WHISPER_MODEL:-base}"

pull_default_model_and_show_tiers() {
  local err pulled reason
  err=$(mktemp)
  echo "Pulling whisper.cpp model '$QUICKSTART_WHISPER_MODEL' into MODELS_DIR (default ./var/models) (node dist/cli.js models:pull)..."
  if pulled=$(node dist/cli.js models:pull "$QUICKSTART_WHISPER_MODEL" 2>"$err"); then
    node -e 'const r = JSON.parse(process.argv[1]); console.log(`whisper.cpp model ${r.pulled}: ${r.path}${r.alreadyInstalled ? " (already installed)" : ""}`)' "$pulled"
    # A model is only used with whisper.cpp built (from source, offline; does nothing when already built).
    bash scripts/build-whisper-cpp.sh
  else
    # models:pull prints its failure as one JSON line {"error", "code"} last on stderr.
    reason=$(node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").pop() || ""; try { console.log(JSON.parse(l).error) } catch { console.log(l || "models:pull failed") }' "$err")
    echo "whisper.cpp model not pulled ($reason): tiers stay on PocketSphinx"
  fi
  rm -f "$err"
  echo "Engine and model per tier (node dist/cli.js engine:tiers --table):"
  tiers_table=$(node dist/cli.js engine:tiers --table)
  printf '%s\n' "$tiers_table"
}

if [ "${1:-}" = "--models-only" ]; then
  use_node_24
  pull_default_model_and_show_tiers
  exit 0
fi

bash scripts/install-system-deps.sh
use_node_24
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build

[ -f .env ] || {
  sed "s/^JWT_SECRET=.*/JWT_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" .env.example > .env
  echo "Wrote .env from .env.example (with a fresh JWT_SECRET)."
}

node dist/cli.js migrate >/dev/null
pull_default_model_and_show_tiers
# The demo user signs in to the dashboard (/app) with a fresh password. The demo workspace is made once: a second
# run finds it by the user's email, sets the new password and prints a new key of that same workspace.
password=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 16)
demo=$(printf '%s' "$password" | node dist/cli.js demo:ensure --email demo@example.com --name "Demo workspace" \
  --balance 10 --key-name "Quick start" --password-stdin)
api_key=$(node -e 'console.log(JSON.parse(process.argv[1]).apiKey)' "$demo")
# The port the service will listen on: the caller's PORT, else .env's (the service reads it the same way).
port="${PORT:-$(sed -n 's/^PORT=//p' .env | tail -n 1)}"
port="${port:-3000}"

# When the quick start runs on its own Node 24 (the shell's node is older), the one line that gives the user's
# shell the same Node: the typed client, tsx and `npx stt-contract` want it too.
node_path_line=""
if [ -n "${NODE_24_FROM_TOOLS:-}" ]; then
  node_path_line="    export PATH=\"$NODE_24_FROM_TOOLS:\$PATH\"   # Node 24 for this shell too (yours is older)
"
fi

# The frame shows the tier table's rows (not its "why:" notes, printed above once): which engine and model
# answer each `model` an upload names.
tiers_rows=$(printf '%s\n' "$tiers_table" | sed '/^why:/,$d' | sed 's/^/    /')

credentials() {
  cat <<MSG
+------------------------------------------------------------------------------------------------------+
  Demo workspace: $demo
  API key:        $api_key   (named "Quick start" in the dashboard)
  Dashboard:      http://127.0.0.1:$port/app   sign in as demo@example.com / $password
  API reference:  http://127.0.0.1:$port/docs   Contract: http://127.0.0.1:$port/openapi.json

  Tiers (an upload's model; GET /v1/tiers and the dashboard's Model field say the same):
$tiers_rows

  Try it (the README's snippets read these variables):
${node_path_line}    export KEY=$api_key STT_API_KEY=$api_key STT_BASE_URL=http://127.0.0.1:$port
    curl -H "Authorization: Bearer \$KEY" -F file=@test/fixtures/audio/whisper.cpp/jfk.wav \$STT_BASE_URL/v1/transcriptions
    curl -H "Authorization: Bearer \$KEY" \$STT_BASE_URL/v1/transcriptions
  Stop with Ctrl-C; start again with: node dist/main.js   (it reads .env; PORT=3300 node dist/main.js wins over it)
+------------------------------------------------------------------------------------------------------+
MSG
}

echo
credentials
echo
echo "Starting the service on port $port..."
# The service's start-up lines come first; once it listens, the same frame again, so the key stays in view.
node dist/main.js &
service=$!
trap 'kill -TERM "$service" 2>/dev/null || true' INT TERM
until curl -fs -o /dev/null "http://127.0.0.1:$port/v1/health" 2>/dev/null; do
  kill -0 "$service" 2>/dev/null || { wait "$service"; exit $?; }
  sleep 0.5
done
echo
credentials
status=0
wait "$service" || status=$?
# Ctrl-C interrupts the wait (the trap asked the service to drain): let it finish.
if kill -0 "$service" 2>/dev/null; then wait "$service" || status=$?; fi
exit "$status"
