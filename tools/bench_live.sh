#!/usr/bin/env bash
# One load-test run of a tree's embedded server (`make run`'s: one Daphne, SQLite, in-memory
# channels) with DEBUG off: bench_live.sh TREE PORT [loadtest options, e.g. --start-ply 150].
# TREE needs its own .venv (`make -C TREE .venv/.installed-dev`); its db.sqlite3 is replaced.
# 500 games at 2-5 s for 60 s, loopback only; docs/load.md runs it in pairs against an older tree.
set -eu
tree=$(cd "$1" && pwd); port=$2; shift 2
py=$tree/.venv/bin/python
cd "$tree"
export DEBUG=false SECRET_KEY=load-test-only HTTPS=false ALLOWED_HOSTS=127.0.0.1,localhost
unset DATABASE_URL REDIS_URL
rm -f db.sqlite3 db.sqlite3-wal db.sqlite3-shm
"$py" manage.py migrate --noinput >/dev/null
"$py" manage.py createcachetable >/dev/null 2>&1 || true  # trees older than its migration
"$py" manage.py collectstatic --noinput >/dev/null
"$py" manage.py runserver --noreload --websocket_handshake_timeout 30 "127.0.0.1:$port" \
  >"/tmp/bench-live-$port.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.5; done
echo "tree $(git -C "$tree" rev-parse --short HEAD), $(uptime)"
"$py" manage.py loadtest --url "http://127.0.0.1:$port" --games 500 --think 2-5 --seconds 60 \
  --seat-first --players db --seed 7 --via socket --pid "$server" "$@"
