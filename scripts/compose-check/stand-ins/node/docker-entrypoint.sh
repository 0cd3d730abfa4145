#!/bin/sh
# As the official image's: arguments that are not a command (`-e ...`, a script) go to node.
set -e
if [ "${1#-}" != "$1" ] || [ -z "$(command -v "$1" || true)" ] || { [ -f "$1" ] && ! [ -x "$1" ]; }; then
  set -- node "$@"
fi
exec "$@"
