# The service image: built from a clean install, run as an unprivileged user,
# with production dependencies only (no embedded PostgreSQL binaries).
# The runtime: package.json's devDependencies.node names the same release (npm run lint checks).
ARG NODE_VERSION=24.21.0

# npm's settings for the installs below, for builds behind a registry mirror or a
# TLS-inspecting proxy: the registry's URL, and the PEM text of certificate authorities
# to trust besides the public ones. Empty (the default): the public registry.
# docker-compose.yml passes them from the environment (`docker build --build-arg`
# otherwise). Only the build stages see them (their history records them; the service
# image does not): put no credentials in them.
FROM node:${NODE_VERSION}-bookworm-slim AS npm
ARG NPM_CONFIG_REGISTRY=
ARG NPM_CA_PEM=
ENV NPM_CONFIG_REGISTRY=${NPM_CONFIG_REGISTRY} \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NODE_EXTRA_CA_CERTS=/usr/local/share/npm-ca.pem
RUN printf '%s\n' "$NPM_CA_PEM" > "$NODE_EXTRA_CA_CERTS"
WORKDIR /app
COPY package.json package-lock.json ./
# The lockfile names the workspaces (the client, the schematics): npm ci needs their manifests, not their sources.
COPY clients/typescript/package.json ./clients/typescript/
COPY schematics/package.json ./schematics/

# The service's dependencies: installed apart (rather than pruned from the build's), so
# that no step after the install needs the registry, and a change of the sources
# leaves this layer cached. No dependency needs an install script in the image: the base
# image is the runtime (the `node` devDependency stays an inert package), and the
# embedded PostgreSQL (optional) is not installed.
FROM npm AS dependencies
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund

# The build bundles with esbuild, whose binary is an optional dependency left out with the
# embedded PostgreSQL: its own installer fetches the one for this platform.
FROM npm AS build
RUN npm ci --omit=optional --ignore-scripts --no-audit --no-fund \
 && node node_modules/esbuild/install.js
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
# Nest's CLI reads the collection nest-cli.json names on every command, `nest build` included.
COPY schematics ./schematics
COPY scripts/bundle.js ./scripts/
COPY src ./src
RUN npm run build:service

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=dependencies --chown=root:root /app/package.json ./package.json
COPY --from=dependencies --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The files belong to root and are read-only for the service's user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node runs as PID 1 and handles SIGTERM itself: it drains requests, then exits.
# No Node.js flags here: memory settings belong to where the memory limit is set
# (NODE_OPTIONS in docker-compose.yml and the Kubernetes manifests; npm run lint checks).
CMD ["node", "dist/main.js"]
