#!/usr/bin/env bash
# Prepares the real VS Code that the integration and e2e tests run in: code-server
# from the npm registry (VS Code 1.100.3) and Debian's Chromium to drive it.
# Idempotent and cached under .vscode-test/ (git-ignored), keyed by version, so
# only the first run on a machine pays the ~2 minutes.
# Why by hand: code-server's postinstall downloads ripgrep from GitHub, which is
# unreachable here, so we do its steps ourselves (../shared/notes/vscode-offline-testing.md).
set -euo pipefail

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.100.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.vscode-test/code-server-$CODE_SERVER_VERSION"
stamp="$dest/.prepared"

say() { printf '[prepare-vscode] %s\n' "$*" >&2; }

need_pkg() { # command, debian package
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian package $2"
    if ! apt-get install -y -qq "$2" >/dev/null 2>&1; then
      apt-get update -qq >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    fi
  fi
  if ! command -v "$1" >/dev/null 2>&1; then
    say "missing '$1'. Install it first, e.g.: sudo apt-get install -y $2"
    exit 1
  fi
}

need_pkg chromium chromium
need_pkg rg ripgrep
need_pkg bwrap bubblewrap

if [ -f "$stamp" ]; then
  exit 0
fi

say "installing code-server@$CODE_SERVER_VERSION into ${dest#$root/} (first run only, ~2 min)"
rm -rf "$dest"
mkdir -p "$dest"
cd "$dest"
printf '{"name":"turnstone-vscode-test","private":true}\n' > package.json
npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$CODE_SERVER_VERSION" >/dev/null

vs="$dest/node_modules/code-server/lib/vscode"
( cd "$vs" && npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts >/dev/null )
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"
( cd "$vs" && npm_config_yes=true npm rebuild --loglevel=error node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid >/dev/null )
[ -e "$vs/node_modules.asar" ] || ln -s node_modules "$vs/node_modules.asar"
( cd "$vs/extensions" && npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts >/dev/null )
( cd "$dest" && npm rebuild --loglevel=error argon2 >/dev/null )

test -f "$dest/node_modules/code-server/out/node/entry.js"
date -u +%FT%TZ > "$stamp"
say "ready: $dest"
