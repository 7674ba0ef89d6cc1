ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS build
# The service's image: `podman build -t plant-store .` (or docker build). NODE_IMAGE may name a mirror of the
# official image. Behind a TLS-intercepting proxy, pass its CA as a build secret, which leaves nothing in the
# image: --secret id=npm_ca,src=/path/to/ca.pem. Operating it: docs/deployment.md.
WORKDIR /app
COPY . .
# No install scripts: `prepare` would build before the install is whole, and the embedded MongoDB of the
# development install would download a server the image never runs.
RUN --mount=type=secret,id=npm_ca,required=false --mount=type=cache,target=/root/.npm,sharing=locked \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund \
 && npm run build \
 && find dist packages/fast-path/dist \( -name '*.map' -o -name '*.d.ts' \) -delete

# The production dependencies alone, with the workspace package the service bundles (@plant-store/fast-path)
# as a folder of its own rather than a link into the sources.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages/fast-path/package.json packages/fast-path/
RUN --mount=type=secret,id=npm_ca,required=false --mount=type=cache,target=/root/.npm,sharing=locked \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace=packages/fast-path --include-workspace-root \
 && rm node_modules/@plant-store/fast-path
COPY --from=build /app/packages/fast-path/package.json node_modules/@plant-store/fast-path/
COPY --from=build /app/packages/fast-path/dist node_modules/@plant-store/fast-path/dist
# TypeScript arrives as a peer of @trpc/server, for its types only; type declarations, source maps and
# documents are not read at run time either.
RUN rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build /app/package.json ./
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
# The official image's unprivileged user; nothing in /app is writable by it, and the service writes no file.
USER node
EXPOSE 3000
# Node as PID 1 is fine: the service handles SIGTERM and SIGINT itself and exits 0 when done.
CMD ["node", "dist/server/main.js"]
