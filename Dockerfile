# The gensvc API (and the admin CLI) as a container image.
#   docker build -t gensvc .
#   docker run -p 3000:3000 -v gensvc-data:/data gensvc          # embedded stores under /data
# docker-compose.yml runs it against EventStoreDB, MongoDB and MinIO, as two `api` processes
# and one `worker` (PROCESS_ROLE).
#
# Node 24 LTS, the version CI runs every test on (the service supports Node 22.16+ and 24).
# The embedded stores use Node's built-in node:sqlite: no native addon, nothing compiles here.

FROM node:24-bookworm AS build
WORKDIR /app
# The workspaces' manifests (and the CLI's prepare script, which npm ci runs) come first, so
# the dependency layer stays cached while only sources change.
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
COPY apps/cli/package.json apps/cli/
COPY apps/cli/scripts apps/cli/scripts
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY packages packages
COPY apps apps
COPY libs libs
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# The server loads the agent tools from the SDK package (node_modules/@gensvc/sdk links here).
COPY --from=build /app/packages/sdk/package.json packages/sdk/
COPY --from=build /app/packages/sdk/dist packages/sdk/dist
COPY --from=build /app/libs/catalogue/catalogue libs/catalogue/catalogue
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Admin CLI inside the container: node dist/apps/admin/src/main.js <command>
CMD ["node", "dist/apps/api/src/main.js"]
