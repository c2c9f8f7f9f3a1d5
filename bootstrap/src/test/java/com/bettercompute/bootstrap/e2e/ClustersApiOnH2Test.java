package com.bettercompute.bootstrap.e2e;

/** The clusters API end to end on the embedded default's database, H2. */
class ClustersApiOnH2Test extends ClustersApiContract {
    @Override
    String database() {
        return RunningServer.h2();
    }
}
