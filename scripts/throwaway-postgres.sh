#!/usr/bin/env bash
# A throwaway PostgreSQL for development and tests, the same one .ci/run starts: a new cluster in a folder
# of its own, on its own port and socket folder, trusting local connections, gone with its folder.
#
#   scripts/throwaway-postgres.sh start DIR [PORT]   prints the cluster's DATABASE_URL on stdout
#   scripts/throwaway-postgres.sh stop DIR           stops it (then remove DIR)
#
# initdb and pg_ctl refuse to run as root: as root, the cluster belongs to the `postgres` user, and Debian's
# postgresql-15 is installed first if it is missing.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
command=${1:-}
dir=${2:-}
port=${3:-55432}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR [PORT] | stop DIR" >&2
  exit 2
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    if [ ! -x "$bin/initdb" ]; then
      if [ "$(id -u)" != 0 ]; then
        echo "PostgreSQL 15 is not installed: apt-get install postgresql-15 (as root)" >&2
        exit 1
      fi
      apt-get update -q >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >&2
    fi
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C -N >"$dir/initdb.log"
    # Enough connections for the tests' many servers; nothing listens beyond loopback.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >&2
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
    ;;
  *)
    echo "usage: $0 start DIR [PORT] | stop DIR" >&2
    exit 2
    ;;
esac
