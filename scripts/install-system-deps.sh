#!/usr/bin/env bash
# Installs and starts what the service needs from Debian's archive: PostgreSQL, Redis, ffmpeg, PocketSphinx
# (English model), sox, bzip2, and the toolchain to build whisper.cpp; and what the tests run the service
# behind: nginx and redis-sentinel. Safe to run again; does only what is missing.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# chromium: the dashboard's browser tests (test/browser) and `npm run screenshots` drive it with playwright-core.
# bzip2: `models:pull pyannote-segmentation-3-0` unpacks a .tar.bz2 with tar, which runs bzip2 (slim images lack it).
# nginx, redis-sentinel: the load-balanced suite and the Sentinel failover test start their own instances (temporary
# directories, free loopback ports, stopped at the end); the packages' own services are not used by them.
packages=(postgresql redis-server ffmpeg pocketsphinx pocketsphinx-en-us sox cmake g++ make chromium bzip2
  nginx redis-sentinel)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian starts a package's service on install where it can (systemd): an nginx on port 80 and a sentinel
  # watching the shared Redis are not wanted here; the tests start their own.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    for service in nginx redis-sentinel; do
      if [[ " ${missing[*]} " == *" $service "* ]]; then as_root systemctl disable --now "$service" >/dev/null 2>&1 || true; fi
    done
  fi
fi

# prometheus: only its promtool, for `npm run lint:prometheus` (deploy/prometheus rules checked and unit-tested).
# Without recommends (node exporter and the like); its own service is not wanted either.
if ! command -v promtool >/dev/null 2>&1; then
  echo "Installing: prometheus (for promtool)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi

# PostgreSQL: start the cluster if it is not answering.
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
# A fresh Debian cluster asks for a password over TCP; this development setup trusts loopback connections.
if ! psql -h 127.0.0.1 -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null 2>&1; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  echo "Trusting loopback connections in $hba (development machine)"
  as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload
fi

# Redis: start it if it is not answering (no persistence: queues are rebuilt from PostgreSQL).
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
echo "PostgreSQL, Redis, ffmpeg and PocketSphinx are ready."
