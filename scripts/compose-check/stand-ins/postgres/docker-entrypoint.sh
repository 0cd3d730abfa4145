#!/usr/bin/env bash
# The stand-in's entrypoint, after the official image's: on an empty data directory,
# initdb with the POSTGRES_* variables, then a temporary server on the Unix socket only
# (no TCP) creates POSTGRES_DB and runs /docker-entrypoint-initdb.d; then PostgreSQL
# runs in the foreground as `postgres`, listening on every interface, with password
# (scram-sha-256) authentication for connections from other hosts.
set -Eeuo pipefail

# `docker run image -c foo=bar` means postgres with those options.
if [ "${1:0:1}" = '-' ]; then
  set -- postgres "$@"
fi
if [ "$1" != postgres ]; then
  exec "$@"
fi

# As root: make the data directory the server's (a fresh volume belongs to root), then
# start again as postgres. setpriv execs, so postgres stays PID 1 and gets the signals.
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_USER:=postgres}"
  : "${POSTGRES_DB:=$POSTGRES_USER}"
  : "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    echo 'error: the database is uninitialized and POSTGRES_PASSWORD is not set' >&2
    exit 1
  fi
  # POSTGRES_INITDB_ARGS is a list of options, split on spaces, as in the official image.
  # shellcheck disable=SC2086
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") ${POSTGRES_INITDB_ARGS:-}
  else
    initdb --username="$POSTGRES_USER" ${POSTGRES_INITDB_ARGS:-}
  fi
  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"

  # The temporary server: reachable through the Unix socket only, while it is set up.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [ "$POSTGRES_DB" != postgres ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
  fi
  for file in /docker-entrypoint-initdb.d/*; do
    case "$file" in
      *.sh)
        echo "running $file"
        # shellcheck source=/dev/null
        . "$file"
        ;;
      *.sql) echo "running $file" && "${psql[@]}" --dbname "$POSTGRES_DB" -f "$file" ;;
      *) if [ -e "$file" ]; then echo "ignoring $file"; fi ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
