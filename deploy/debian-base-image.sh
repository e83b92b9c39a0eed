#!/usr/bin/env bash
# A Python base image made from Debian's packages, for machines that reach Debian's
# mirror and PyPI but no container registry (the image build's FROM cannot be pulled
# there). It holds what deploy/Dockerfile uses of python:3.11-slim-bookworm: Python
# 3.11, venv, CA certificates. This machine's CA bundle is copied in and pip pointed at
# it, so a TLS-inspecting proxy this machine trusts is trusted by the build too.
#
#   deploy/debian-base-image.sh [IMAGE]        (default localhost/toolcat-base:bookworm; root)
#   podman build --isolation chroot -f deploy/Dockerfile \
#     --build-arg PYTHON_IMAGE=localhost/toolcat-base:bookworm -t toolcat .
#   TOOLCAT_TEST_BASE_IMAGE=localhost/toolcat-base:bookworm pytest tests/integration/deploy
set -euo pipefail
image="${1:-localhost/toolcat-base:bookworm}"
command -v debootstrap >/dev/null && command -v podman >/dev/null || {
  echo "needs debootstrap and podman (apt-get install debootstrap podman buildah)" >&2
  exit 2
}
mirror="$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list.d/*.sources \
  /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  bookworm "$root" "${mirror:-http://deb.debian.org/debian}" >/dev/null
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | podman import --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
  - "$image" >/dev/null
echo "$image"
