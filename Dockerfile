# syntax=docker/dockerfile:1
# One production image for every Mailroom service; its command picks the service:
#   docker build -t mailroom .
#   docker run --rm --env-file .env mailroom migrate
#   docker run --env-file .env -p 3000:3000 mailroom gateway     (or sender, inbound-smtp, …)
# The tree it runs is built by scripts/build-production.ts, the same script
# test/deploy/production.test.ts builds and starts every service from.
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The pnpm of package.json's packageManager field.
RUN npm install -g pnpm@10.34.9
# Packages are fetched from the lockfile alone, so this layer is reused until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
# The full install (dev dependencies too) generates the Prisma client and brings esbuild.
RUN pnpm install --frozen-lockfile --offline
RUN pnpm build:production /app

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    OPS_PORT=9090
WORKDIR /app
# Owned by root and not writable by the service's user.
COPY --from=build /app /app
# `node` (uid 1000) of the base image; numeric so Kubernetes can check runAsNonRoot.
USER 1000:1000
# API_PORT, TRACKING_PORT, SMTP_PORT, OPS_PORT.
EXPOSE 3000 3001 2525 9090
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/dist/healthcheck.js"]
ENTRYPOINT ["/app/bin/mailroom"]
CMD ["gateway"]
