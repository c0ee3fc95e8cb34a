# Store Orders in a container. It runs what docs/store-orders.service runs: `store-orders init`, then the
# server as the container's main process, which `docker stop` signals itself (SIGTERM): the server stops
# taking connections, answers the requests in flight, closes the database and exits 0. The command is
# held to the systemd unit's, and run and stopped as written here, by test/chaos/supervisor.test.ts.
# See docs/operating.md, "Running under a supervisor".
#
#   docker build -t store-orders .
#   docker run -d --name store-orders -p 3000:3000 -v store-orders-data:/data --stop-timeout 15 store-orders
#   docker exec store-orders node dist/cli/main.js keys create --account acme
#
# --stop-timeout 15 (Compose: stop_grace_period: 15s): Docker's own 10 s would end a stop that takes all of
# STOP_TIMEOUT_MS (10 s) with SIGKILL. Raise both together.

ARG NODE_VERSION=20

# npm ci compiles better-sqlite3 with node-gyp when no prebuilt binary fits the platform: the full Debian
# image has make, g++ and python3 for it; the image that runs the server needs none of them.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Only better-sqlite3's install script runs, as package.json's allowScripts says, whatever npm's version.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/generated ./generated
COPY --from=build /app/openapi.yaml ./openapi.yaml
COPY --from=build /app/openapi.v2.yaml ./openapi.v2.yaml
# The database lives on the volume, written by the image's unprivileged user `node`, never by root.
RUN mkdir /data && chown node:node /data && chmod 700 /data
VOLUME /data
USER node
# HOST=0.0.0.0 for the published port. /metrics is then open beyond loopback: set METRICS_TOKEN, or
# METRICS_PORT without publishing it (the server warns at start otherwise).
ENV HOST=0.0.0.0 PORT=3000 DATABASE_URL=/data/store.db LOG_FORMAT=json
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# `exec`: the shell that ran init gives its process to the server, so the signal reaches the server.
CMD ["sh", "-c", "node dist/cli/main.js init && exec node dist/main.js"]
