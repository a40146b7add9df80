#!/bin/sh
# Mailroom's production entry point, the image's ENTRYPOINT (built by scripts/build-production.ts):
#   mailroom <service>   run one service (dist/<service>.js), e.g. `mailroom sender`
#   mailroom migrate     create the database if missing and apply pending migrations
# exec replaces this shell, so the service is the process that receives SIGTERM (PID 1 in a container).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

services() {
  for file in "$root"/dist/*.js; do
    name=$(basename "$file" .js)
    case "$name" in migrate | healthcheck) ;; *) printf ' %s' "$name" ;; esac
  done
}

if [ $# -ne 1 ]; then
  echo "Usage: mailroom <service> | mailroom migrate; services:$(services)" >&2
  exit 64
fi

case "$1" in
  migrate)
    # The schema engine is WebAssembly loaded as an ES module, which Node 20 keeps behind this flag.
    exec node --enable-source-maps --experimental-wasm-modules --disable-warning=ExperimentalWarning "$root/dist/migrate.js" migrate
    ;;
  healthcheck | */* | .*)
    echo "Unknown service \"$1\"; services:$(services)" >&2
    exit 64
    ;;
esac

if [ ! -f "$root/dist/$1.js" ]; then
  echo "Unknown service \"$1\"; services:$(services)" >&2
  exit 64
fi
exec node --enable-source-maps "$root/dist/$1.js"
