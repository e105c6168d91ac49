#!/usr/bin/env bash
# The npm package cruel-engine, end to end, as CI runs it (.ci/run, step 4): build it, pack it,
# install the tarball into an empty folder as a user would, and there run the README's examples
# (node --test), check a TypeScript consumer (tsc --strict, the pinned typescript of
# package-lock.json), and run the differential against the Python engine
# (tests/test_cruel_js.py) on the installed module rather than the source file.
#
#   packages/cruel-engine/ci.sh          needs node, npm (the registry, for typescript) and .venv
#
# KEEP=1 leaves the temporary folder in place (its path is printed).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

WORK="$(mktemp -d)"
if [ "${KEEP:-}" = 1 ]; then
    echo "keeping $WORK"
else
    trap 'rm -rf "$WORK"' EXIT
fi

echo "== npm ci, build, the package's own tests (node --test, in the package)"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
npm test --silent >"$WORK/package.tap" 2>&1 || { cat "$WORK/package.tap"; exit 1; }
grep -E '^# (tests|pass|fail) ' "$WORK/package.tap"

echo "== npm pack"
TARBALL="$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -1)"
echo "tarball: $(basename "$TARBALL"), $(wc -c <"$TARBALL") bytes; contents:"
tar -tzf "$TARBALL" | sed 's/^/  /'
TS_VERSION="$(node -p "require('./package-lock.json').packages['node_modules/typescript'].version")"

echo "== install into an empty folder"
APP="$WORK/app"
mkdir "$APP"
cd "$APP"
npm init -y >/dev/null
npm pkg set type=module
npm install --no-audit --no-fund --loglevel=error "$TARBALL"
npm install --no-audit --no-fund --loglevel=error --save-dev --save-exact "typescript@$TS_VERSION"
mkdir test consumer
cp "$HERE/test/readme.test.mjs" test/
cp "$HERE/consumer/consumer.ts" "$HERE/consumer/tsconfig.json" consumer/
test -z "$(find node_modules -mindepth 1 -maxdepth 1 ! -name cruel-engine ! -name typescript ! -name .bin ! -name .package-lock.json)" \
    || { echo "cruel-engine brought dependencies:"; ls node_modules; exit 1; }

echo "== the README's examples, on the installed package"
node --test test/ >"$WORK/readme.tap" 2>&1 || { cat "$WORK/readme.tap"; exit 1; }
grep -E '^(not )?ok|^# (tests|pass|fail) ' "$WORK/readme.tap"

echo "== tsc --strict on a TypeScript consumer (typescript $TS_VERSION)"
npx --no-install tsc --strict --noEmit -p consumer/tsconfig.json
echo "consumer.ts: no errors"

echo "== the differential against the Python engine, on the installed module"
MODULE="$APP/node_modules/cruel-engine/dist/cruel.js"
test -f "$MODULE"
echo "CRUEL_JS_MODULE=$MODULE"
cd "$ROOT"
CRUEL_JS_MODULE="$MODULE" CRUEL_REQUIRE_NODE=1 .venv/bin/python -m pytest tests/test_cruel_js.py
