#!/usr/bin/env bash
# One command on a fresh Debian machine with Node 20: installs what is missing, builds, migrates, pulls the
# default whisper.cpp model when its source is reachable, prints which recogniser and diarizer serve each tier,
# creates a demo workspace (its API key is printed) and runs the service (API + worker) on PORT (default 3000).
#   scripts/quickstart.sh --models-only   only the model step and the tier table (needs a built dist/; reads .env when present)
set -euo pipefail
cd "$(dirname "$0")/.."

# The Whisper model the quick start pulls: multilingual, 141 MiB, the standard tier's default (models:list shows
# the others). The pull gives up after MODELS_CONNECT_TIMEOUT_MS (5 s by default) when the source cannot be
# reached, so a machine without internet never hangs here: it stays on PocketSphinx and says so in one line.
QUICKSTART_WHISPER_MODEL="${QUICKSTART_WHISPER_MODEL:-base}"

load_env() {
  set -a
  # shellcheck disable=SC1091
  . ./.env
  set +a
}

pull_default_model_and_show_tiers() {
  local err pulled reason
  err=$(mktemp)
  echo "Pulling whisper.cpp model '$QUICKSTART_WHISPER_MODEL' into ${MODELS_DIR:-./var/models} (node dist/cli.js models:pull)..."
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
  echo "Recogniser and diarizer per tier (node dist/cli.js engine:tiers):"
  node dist/cli.js engine:tiers
}

if [ "${1:-}" = "--models-only" ]; then
  [ ! -f .env ] || load_env
  pull_default_model_and_show_tiers
  exit 0
fi

bash scripts/install-system-deps.sh
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build

[ -f .env ] || {
  sed "s/^JWT_SECRET=.*/JWT_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" .env.example > .env
  echo "Wrote .env from .env.example (with a fresh JWT_SECRET)."
}
load_env

node dist/cli.js migrate >/dev/null
pull_default_model_and_show_tiers
# The demo user signs in to the dashboard (/app) with a fresh password; on a second run the email exists, so
# the new workspace has no user and the existing demo user gets the new password.
password=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 16)
if ! demo=$(printf '%s' "$password" | node dist/cli.js workspace:create --name "Demo workspace" --balance 10 \
  --email demo@example.com --password-stdin 2>/dev/null); then
  demo=$(node dist/cli.js workspace:create --name "Demo workspace" --balance 10)
  printf '%s' "$password" | node dist/cli.js user:set-password --email demo@example.com >/dev/null
fi
api_key=$(node -e 'console.log(JSON.parse(process.argv[1]).apiKey)' "$demo")
port="${PORT:-3000}"
cat <<MSG

Demo workspace: $demo
API key:        $api_key

Try it:
  curl -H "Authorization: Bearer $api_key" -F file=@test/fixtures/audio/whisper.cpp/jfk.wav http://127.0.0.1:$port/v1/transcriptions
  curl -H "Authorization: Bearer $api_key" http://127.0.0.1:$port/v1/transcriptions
API reference: http://127.0.0.1:$port/docs   Contract: http://127.0.0.1:$port/openapi.json
Dashboard:     http://127.0.0.1:$port/app   (demo@example.com / $password)

MSG
exec node dist/main.js
