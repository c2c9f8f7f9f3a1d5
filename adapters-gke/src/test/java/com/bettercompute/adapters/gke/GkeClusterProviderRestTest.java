package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.httpjson.InstantiatingHttpJsonChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The port's contract over HTTP/JSON, through the simulator's REST front end. */
class GkeClusterProviderRestTest extends SimulatedGkeContract {
    @Override
    GkeClusterProvider connect(GkeSimulator simulator) {
        try {
            return new GkeClusterProvider(ClusterManagerClient.create(ClusterManagerSettings.newHttpJsonBuilder()
                    .setEndpoint(simulator.restUrl())
                    .setCredentialsProvider(NoCredentialsProvider.create())
                    .setTransportChannelProvider(InstantiatingHttpJsonChannelProvider.newBuilder().setEndpoint(simulator.restUrl()).build())
                    .build()), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
