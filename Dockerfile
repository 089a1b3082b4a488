# Voxsmith in a container:
#   docker build -t voxsmith .
#   docker run -p 8080:8080 -p 10200:10200 -v voxsmith:/data voxsmith
# Everything the service keeps (database, sign-in outbox, natural voices) is under the one volume, /data.

# Build stage: the toolchain, every dependency, the build (dist/, the dashboard, the SDK package), then the
# dev dependencies pruned away.
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles its addon when its prebuilt binary cannot be fetched (no GitHub access, an unusual
# platform): python3, make and g++ stay in this stage only.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# package.json wants npm 11.16 or newer (it reads allowScripts, which keeps onnxruntime-node's CUDA download
# from running); Node 20 images ship npm 10.
RUN npm install -g npm@11 --no-audit --no-fund && npm --version
WORKDIR /app
# The dependencies first, in a layer of their own that a change to the sources does not rebuild. The install
# scripts that run are the ones package.json's allowScripts allows, and nothing else.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund --ignore-scripts \
  && npm rebuild $(node -p "Object.keys(require('./package.json').allowScripts).filter((n) => require('./package.json').allowScripts[n]).join(' ')")
COPY . .
# `prepare` is what npm ci runs after installing: the service into dist/, the dashboard, the SDK package.
RUN npm run prepare \
  && npm prune --omit=dev --no-audit --no-fund \
  # onnxruntime-node ships its CPU library for every platform (~290 MB): keep this one's.
  && arch="$(node -p process.arch)" \
  && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 2 -maxdepth 2 ! -path "*/linux/$arch" -exec rm -rf {} + \
  && rm -rf node_modules/.cache

# Runtime stage: the same slim base, no compiler, no dev dependencies, no sources, tests or bench.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    WYOMING_HOST=0.0.0.0 \
    WYOMING_PORT=10200 \
    DATA_DIR=/data \
    VOICES_DIR=/data/voices \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Owned by root and read-only to the service: it writes only under /data.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/web/public/favicon.svg ./web/public/favicon.svg
COPY --from=build /app/client/pack ./client/pack
COPY --from=build /app/scripts/start.mjs /app/scripts/build.mjs /app/scripts/voxsmith.mjs ./scripts/
# `docker exec <container> voxsmith voices add en_US-lessac-medium` (or `npx voxsmith ...`).
RUN ln -s /app/scripts/voxsmith.mjs /usr/local/bin/voxsmith \
  && mkdir -p /data/voices && chown -R node:node /data
USER node
VOLUME /data
# HTTP (dashboard, API, WebSocket stream) and Wyoming (Home Assistant).
EXPOSE 8080 10200
# The slim base has no curl: Node asks /readyz itself. A first start with VOICES_INSTALL downloads first.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 (no npm in between): the service's own SIGTERM handler runs the ordered shutdown on `docker stop`.
CMD ["node", "--max-semi-space-size=1", "scripts/start.mjs"]
