#!/usr/bin/env bash
# One command on a fresh Debian machine with Node 20: installs what is missing, builds, migrates, creates a
# demo workspace (its API key is printed) and runs the service (API + worker) on PORT (default 3000).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build

[ -f .env ] || {
  sed "s/^JWT_SECRET=.*/JWT_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" .env.example > .env
  echo "Wrote .env from .env.example (with a fresh JWT_SECRET)."
}
set -a
# shellcheck disable=SC1091
. ./.env
set +a

node dist/cli.js migrate >/dev/null
demo=$(node dist/cli.js workspace:create --name "Demo workspace" --balance 10 --email demo@example.com 2>/dev/null \
  || node dist/cli.js workspace:create --name "Demo workspace" --balance 10)
api_key=$(node -e 'console.log(JSON.parse(process.argv[1]).apiKey)' "$demo")
port="${PORT:-3000}"
cat <<MSG

Demo workspace: $demo
API key:        $api_key

Try it:
  curl -H "Authorization: Bearer $api_key" -F file=@../shared/audio/whisper.cpp/jfk.wav http://127.0.0.1:$port/v1/transcriptions
  curl -H "Authorization: Bearer $api_key" http://127.0.0.1:$port/v1/transcriptions
API reference: http://127.0.0.1:$port/docs   Contract: http://127.0.0.1:$port/openapi.json

MSG
exec node dist/main.js
