package com.bettercompute.bootstrap.e2e;

/** The clusters API end to end on a real PostgreSQL (TEST_PG_URL, or an embedded one). */
class ClustersApiOnPostgresTest extends ClustersApiContract {
    @Override
    String database() {
        return RunningServer.postgres();
    }
}
