package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;

/** The port's contract over gRPC, the transport the product uses. */
class GkeClusterProviderGrpcTest extends SimulatedGkeContract {
    @Override
    GkeClusterProvider connect(GkeSimulator simulator) {
        return GkeClusterProviders.grpc(new Endpoint(simulator.grpcTarget(), Transport.PLAINTEXT, null));
    }
}
