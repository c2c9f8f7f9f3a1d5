package com.bettercompute.adapters.gke.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.fakes.MutableClock;
import com.google.api.gax.rpc.InvalidArgumentException;
import com.google.cloud.container.v1.ClusterManagerClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The simulator counts the gRPC calls it receives, by method and faulted ones included: what a load run reads. */
class GrpcCallsTest {
    private static final String PARENT = "projects/p1/locations/us-central1-a";

    @Test
    void each_call_is_counted_under_its_method_faulted_ones_included() throws IOException {
        try (GkeSimulator simulator = GkeSimulator.start(new MutableClock(), Duration.ZERO, 0, 0);
             ClusterManagerClient client = PlaintextClusterManager.of(simulator)) {
            assertThat(simulator.grpcCalls()).isEmpty();
            client.listClusters(PARENT);
            client.listClusters(PARENT);
            client.getServerConfig(PARENT);
            simulator.failNextCalls("GetServerConfig", 1, "INVALID_ARGUMENT", "refused");
            assertThatThrownBy(() -> client.getServerConfig(PARENT)).isInstanceOf(InvalidArgumentException.class);

            assertThat(simulator.grpcCalls()).isEqualTo(Map.of("ListClusters", 2L, "GetServerConfig", 2L));
        }
    }
}
