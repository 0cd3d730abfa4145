# shellcheck shell=bash
# Shared by run.sh and base-images.sh (sourced, not run): messages, and a Docker
# engine that is up. Both scripts set `set -euo pipefail` themselves.

# Where the slow-to-make inputs of the stand-in images are kept between runs: the
# debootstrap root file systems and the npm tarballs of Node.js and npm.
COMPOSE_CHECK_CACHE=${COMPOSE_CHECK_CACHE:-/var/cache/plant-store-compose-check}
# The engine's log, when this check starts the engine itself.
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/plant-store-compose-check-dockerd.log}
# Set by ensure_docker when it started dockerd here (then stop_docker stops it again).
DOCKERD_STARTED_PID=

step() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
fail() {
  printf '\ncompose check FAILED: %s\n' "$*" >&2
  exit 1
}

# Runs "$@" quietly; on failure shows its output and fails with the given message.
quietly() {
  local message=$1 output
  shift
  if ! output=$("$@" 2>&1); then
    printf '%s\n' "$output" | tail -n 40 >&2
    fail "$message"
  fi
}

# Installs the Debian packages that provide the given commands (command=package pairs)
# when a command is missing. Needs root; apt-get only runs when something is missing.
install_missing() {
  local pair missing=()
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null || missing+=("${pair#*=}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || fail "missing ${missing[*]}: run as root, or install them first"
  note "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  quietly 'apt-get update failed' timeout 300 apt-get update -qq
  quietly "apt-get install ${missing[*]} failed" \
    timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

docker_up() { timeout 10 docker info >/dev/null 2>&1; }

# Waits (bounded) for the engine to answer, or for the dockerd we started to die.
wait_for_docker() {
  local deadline=$((SECONDS + 60))
  until docker_up; do
    if [ -n "$DOCKERD_STARTED_PID" ] && ! kill -0 "$DOCKERD_STARTED_PID" 2>/dev/null; then
      return 1
    fi
    [ $SECONDS -lt $deadline ] || return 1
    sleep 1
  done
}

# dockerd in the background, as the machine may have no init system to start it:
# overlay2 first, then vfs (slower, bigger) where the kernel or file system refuses overlay2.
start_dockerd() {
  local driver
  for driver in overlay2 vfs; do
    note "starting dockerd (storage driver $driver; log: $DOCKERD_LOG)"
    dockerd --storage-driver="$driver" </dev/null >>"$DOCKERD_LOG" 2>&1 &
    DOCKERD_STARTED_PID=$!
    if wait_for_docker; then
      return 0
    fi
    kill "$DOCKERD_STARTED_PID" 2>/dev/null || true
    wait "$DOCKERD_STARTED_PID" 2>/dev/null || true
    DOCKERD_STARTED_PID=
    note "dockerd did not come up with $driver:"
    tail -n 5 "$DOCKERD_LOG" | sed 's/^/      /'
  done
  fail "dockerd did not start; see $DOCKERD_LOG"
}

# The Docker engine, docker-compose (v1, Debian's) and debootstrap, installed when
# missing; the engine started when it is not running.
ensure_docker() {
  step "Docker engine"
  install_missing dockerd=docker.io docker-compose=docker-compose debootstrap=debootstrap
  if docker_up; then
    note "running already: $(docker version --format 'engine {{.Server.Version}}' 2>/dev/null)"
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || fail "the Docker engine is not running, and only root may start it"
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    note "starting docker.service"
    timeout 120 systemctl start docker || fail "systemctl start docker failed"
    wait_for_docker || fail "the Docker engine did not answer within 60 s"
    return 0
  fi
  start_dockerd
  note "up: engine $(docker version --format '{{.Server.Version}}'), storage driver $(docker info --format '{{.Driver}}')"
}

# Stops the dockerd that ensure_docker started (not one that was running before).
stop_docker() {
  [ -n "$DOCKERD_STARTED_PID" ] || return 0
  step "Stopping the dockerd this check started"
  kill "$DOCKERD_STARTED_PID" 2>/dev/null || true
  local deadline=$((SECONDS + 60))
  while kill -0 "$DOCKERD_STARTED_PID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    sleep 1
  done
  if kill -0 "$DOCKERD_STARTED_PID" 2>/dev/null; then
    note "dockerd did not stop within 60 s; killing it"
    kill -KILL "$DOCKERD_STARTED_PID" 2>/dev/null || true
  fi
  wait "$DOCKERD_STARTED_PID" 2>/dev/null || true
  DOCKERD_STARTED_PID=
}
