package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;

/** The port's contract over HTTP/JSON, through the simulator's REST front end. */
class GkeClusterProviderRestTest extends SimulatedGkeContract {
    @Override
    GkeClusterProvider connect(GkeSimulator simulator) {
        return GkeClusterProviders.restWithoutCredentials(simulator.restUrl());
    }
}
