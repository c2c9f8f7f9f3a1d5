package com.bettercompute.adapters.gke.simulator;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import io.grpc.ManagedChannelBuilder;

import java.io.IOException;

/** The real GKE client speaking to a simulator as the tests do: gRPC on loopback in plaintext, no credentials. */
final class PlaintextClusterManager {
    private PlaintextClusterManager() {
    }

    static ClusterManagerClient of(GkeSimulator simulator) throws IOException {
        return ClusterManagerClient.create(ClusterManagerSettings.newBuilder()
                .setEndpoint(simulator.grpcTarget())
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
                        .setEndpoint(simulator.grpcTarget()).setChannelConfigurator(ManagedChannelBuilder::usePlaintext).build())
                .build());
    }
}
