#!/bin/bash
# SPDX-License-Identifier: MIT
# pg_cluster.sh: a throwaway PostgreSQL cluster for the tests of the PostgreSQL results store.
#   pg_cluster.sh start DIR   initdb into DIR/data as an unprivileged user (nobody when run as
#                             root), listening on a unix socket in DIR and on 127.0.0.1 only (a
#                             free port), a superuser "libbench" with a random password; prints
#                             the URL (also in DIR/url) for LIBBENCH_TEST_PG_URL
#   pg_cluster.sh stop DIR    stops it and removes DIR
# Exit 77 (with the reason) when the server binaries are not installed.
set -u
cmd=${1:-} dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
    echo "usage: pg_cluster.sh start|stop DIR" >&2
    exit 2
fi
bin=""
for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && bin=$d
done
if [ -z "$bin" ]; then
    echo "skipped: no PostgreSQL server binaries (initdb, pg_ctl: apt-get install postgresql)" >&2
    exit 77
fi
as_user() { # runs "$@" as the cluster's owner
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- "$@"
    else
        "$@"
    fi
}
case "$cmd" in
start)
    mkdir -p "$dir" || exit 1
    dir=$(cd "$dir" && pwd)
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir"
    chmod 0700 "$dir"
    as_user test -w "$dir" || {
        echo "error: $dir cannot be reached by the cluster's user (nobody): its parents must be searchable (chmod o+x)" >&2
        exit 1
    }
    password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    printf '%s\n' "$password" >"$dir/pw"
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir/pw"
    as_user "$bin/initdb" -D "$dir/data" -U libbench --pwfile="$dir/pw" --auth-local=trust \
        --auth-host=scram-sha-256 --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
        echo "error: initdb failed: $(tail -n 1 "$dir/initdb.log")" >&2
        exit 1
    }
    rm -f "$dir/pw"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=60" \
        start >/dev/null || {
        echo "error: the server did not start: $(tail -n 1 "$dir/server.log")" >&2
        exit 1
    }
    url="postgresql://libbench:$password@127.0.0.1:$port/postgres"
    printf '%s\n' "$url" >"$dir/url"
    printf '%s\n' "$port" >"$dir/port"
    echo "$url"
    ;;
stop)
    [ -d "$dir/data" ] && as_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
    ;;
*)
    echo "usage: pg_cluster.sh start|stop DIR" >&2
    exit 2
    ;;
esac
