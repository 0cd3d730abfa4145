# syntax=docker/dockerfile:1

# The service image: built from a clean install, run as an unprivileged user,
# with production dependencies only (no embedded PostgreSQL binaries).
# The runtime: package.json's devDependencies.node names the same release (npm run lint checks).
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The lockfile names the client workspace: npm ci needs its manifest, not its sources.
COPY clients/typescript/package.json ./clients/typescript/
# No dependency needs an install script in the image: the base image is the runtime (the
# `node` devDependency stays an inert package), and the embedded PostgreSQL (optional) is not installed.
RUN npm ci --ignore-scripts --omit=optional --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx nest build \
 && npm prune --omit=dev --omit=optional --ignore-scripts

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The files belong to root and are read-only for the service's user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node runs as PID 1 and handles SIGTERM itself: it drains requests, then exits.
# The V8 flags are package.json's config.nodeOptions (npm run lint checks they agree):
# old-space growth held to twice the live heap keeps the resident size near 170 MB under load.
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=100", "dist/main.js"]
