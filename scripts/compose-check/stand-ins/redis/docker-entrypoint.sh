#!/usr/bin/env bash
# The stand-in's entrypoint, after the official image's: options alone mean
# redis-server; the server runs as redis (setpriv execs: redis-server stays PID 1).
set -euo pipefail

if [ "${1:0:1}" = '-' ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = redis-server ]; then
  # The official image's build turns protected mode off (a container's port is only
  # reachable where it is published); a config file, if any, must stay the first argument.
  if [[ " $* " != *' --protected-mode '* ]]; then
    if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then
      set -- "$1" "$2" --protected-mode no "${@:3}"
    else
      set -- "$1" --protected-mode no "${@:2}"
    fi
  fi
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
