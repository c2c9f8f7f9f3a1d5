#!/bin/sh
# The long SIGKILL measurement through the API (SigkillLoop, bootstrap test sources):
#   bootstrap/sigkill-loop.sh CYCLES THREADS [DB]
# DB: none = the embedded default (embedded PostgreSQL under the run's ./data), or a --db value such as
# jdbc:h2:file:./data/better-compute (relative paths are inside the run's temporary directory).
# Prints a JSON line per cycle and the summary; exits with the number of lost writes (at most 100).
# Run from anywhere; it compiles the reactor first. The servers it starts load the classes
# from target/: do not rebuild while it runs.
set -e
cd "$(dirname "$0")/.."
mvn -B -q test-compile dependency:build-classpath -pl bootstrap -am \
    -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
exec java -cp "$PWD/bootstrap/target/test-classes:$PWD/bootstrap/target/classes:$(cat bootstrap/target/test-classpath.txt)" \
    com.bettercompute.bootstrap.e2e.SigkillLoop "$@"
