# Sourced by scripts/quickstart.sh and .ci/run (from the repository root): makes `node` Node 24 LTS for this
# shell and everything it starts (npm scripts, jest and its children, the service), installing it when the
# machine's node is older. The binary comes from the npm registry's official Node package (the same build as
# nodejs.org's), unpacked into .tools/node-24; nothing else is downloaded.
NODE_24_VERSION=24.9.0

use_node_24() {
  local have tools arch package unpack
  have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$have" -ge 24 ]; then
    return 0
  fi
  tools="$PWD/.tools/node-24"
  if [ "$("$tools/bin/node" --version 2>/dev/null)" != "v$NODE_24_VERSION" ]; then
    case "$(uname -m)" in
      x86_64) arch=x64 ;;
      aarch64) arch=arm64 ;;
      *) echo "No Node $NODE_24_VERSION package for $(uname -m): install Node 24 yourself" >&2; return 1 ;;
    esac
    package="node-linux-$arch@$NODE_24_VERSION"
    echo "The machine's node is $(node --version 2>/dev/null || echo missing); installing Node $NODE_24_VERSION ($package from the npm registry) into .tools/node-24"
    unpack=$(mktemp -d)
    # npm pack checks the tarball against the registry's integrity hash.
    (cd "$unpack" && npm pack --silent "$package" >/dev/null)
    rm -rf "$tools" && mkdir -p "$tools"
    tar xzf "$unpack"/*.tgz -C "$tools" --strip-components=1
    rm -rf "$unpack"
  fi
  export PATH="$tools/bin:$PATH"
  NODE_24_FROM_TOOLS="$tools/bin"
  hash -r
  echo "Using Node $(node --version) from .tools/node-24 (the machine's is older)"
}
