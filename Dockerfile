# The control plane: console, admin API and agent port (server.ts; the agent port on one worker
# process per core, agent-worker.ts), on Node 22.
#
#   docker build -t registry.example.com/fleet/registry:0.1.0 .
#   docker run -p 3000:3000 -p 8443:8443 -v fleet-data:/app/data registry.example.com/fleet/registry:0.1.0
#
# SQLite lives in /app/data (mount a volume); set DATABASE_URL=postgresql://... for PostgreSQL (HA).

FROM node:22-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 compiles from source when no prebuilt binary is reachable.
RUN apt-get update && apt-get install -y --no-install-recommends build-essential python3 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc* ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 AGENT_PORT=8443 DATA_DIR=/app/data
# The code stays root's (the app cannot rewrite itself); it writes only its data dir and Next's
# cache. Kubernetes (deploy/kubernetes) runs it with a read-only root filesystem and emptyDirs
# there and on /tmp, as uid 65532.
COPY --from=build /src /app
RUN mkdir -p /app/data /app/.next/cache && chown 65532:65532 /app/data /app/.next/cache
USER 65532:65532
EXPOSE 3000 8443
# server.ts, compiled by `npm run build` (scripts/build-server.mjs), migrates, bootstraps and serves
# both ports. The Node flags are those of runtime/server-node-flags.mjs (it says why).
CMD ["node", "--heap-growing-percent=25", "--max-semi-space-size=8", ".next/fleet/server.mjs"]
