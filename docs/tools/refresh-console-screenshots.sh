#!/bin/sh
# Refreshes the console's screenshots in docs/console/ (the test run alone writes them under bootstrap/target/console/).
# usage: docs/tools/refresh-console-screenshots.sh   (from anywhere in the repository; needs Debian's chromium and chromium-driver)
set -eu
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
mvn -B -pl bootstrap -am verify -Dtest=ConsoleInBrowserEndToEndTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dconsole.screenshots="$ROOT/docs/console"
git status --short docs/console
