package com.bettercompute.adapters.k8s;

import com.bettercompute.adapters.k8s.simulator.SimulatedKubernetesApis;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.NodeClass;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import com.bettercompute.application.port.MarketClusterClient.RequestStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The platform's ProvisioningRequestConfig as a contract with Kueue's {@code retryStrategy}, on the simulated
 * cluster, whose Kueue applies Kueue's own defaults (a 60 s back-off doubling to 30 minutes, the Workload
 * deactivated after 3 retries) to whatever the configuration leaves unset: a job the market revokes files its
 * next attempt within two seconds, for the tenth revocation as for the first, and its Workload stays active.
 * It takes longer than most: Kueue must be installed (the platform's add-ons) before it queues anything.
 */
class ReclaimRequeueOnSimulatorTest {
    private static final String CLUSTER = "reclaims";
    private static final Duration TICK = Duration.ofSeconds(2);
    private static final SimulatedKubernetesApis.NodePool CPU_WORKER = new SimulatedKubernetesApis.NodePool(1,
            Map.of("node-role.kubernetes.io/cpu", ""), List.of(), 0, "e2-standard-4");

    @Test
    void a_revoked_attempt_is_followed_by_the_next_within_a_tick_for_the_tenth_revocation_as_for_the_first() {
        MutableClock clock = new MutableClock();
        try (SimulatedKubernetesApis apis = SimulatedKubernetesApis.start(clock,
                (p, l, c) -> CLUSTER.equals(c) ? Map.of("bc-cpu-worker", CPU_WORKER) : null);
             Fabric8MarketClusterClient market = new Fabric8MarketClusterClient(30_000, 30_000)) {
            String endpoint = "https://" + apis.endpointFor("prj", "us-central1-a", CLUSTER);
            ClusterConnection connection = new ClusterConnection(endpoint, apis.caCertificateBase64(), apis.adminToken());
            Config config = new ConfigBuilder(Config.empty()).withMasterUrl(endpoint).withCaCertData(apis.caCertificateBase64())
                    .withOauthToken(apis.adminToken()).withRequestRetryBackoffLimit(0).build();
            try (KubernetesClient k = new KubernetesClientBuilder().withConfig(config).build()) {
                market.ensureComponents(connection);
                market.ensurePlatformObjects(connection, new PlatformObjects(64, List.of(new NodeClass("h100-8x",
                        Map.of("nationalcompute.com/node-class", "h100-8x"))), null));
                k.resource(ClusterComponentsOnSimulatorTest.GPU_JOB).create();
                String workload = only(k.genericKubernetesResources("kueue.x-k8s.io/v1beta1", "Workload").inNamespace("default")
                        .list().getItems()).getMetadata().getName();

                for (int attempt = 1; attempt <= 10; attempt++) {
                    String name = workload + "-market-" + attempt;
                    assertThat(request(k, name)).as("attempt %d is filed", attempt).isNotNull();
                    market.writeRequestStatus(connection, "default", name, new RequestStatus("mr-" + attempt, 1, List.of(
                            new Condition("Failed", "True", "MarketRevoked", "The market revoked this request.", clock.instant())),
                            Map.of()));
                    clock.advance(TICK);
                    apis.step();
                }

                assertThat(request(k, workload + "-market-11")).as("the eleventh attempt, two seconds after the tenth revocation")
                        .isNotNull();
                GenericKubernetesResource w = k.genericKubernetesResources("kueue.x-k8s.io/v1beta1", "Workload").inNamespace("default")
                        .withName(workload).get();
                assertThat((Object) w.get("spec", "active")).as("the Workload is never deactivated").isEqualTo(true);
            }
        }
    }

    private static GenericKubernetesResource request(KubernetesClient k, String name) {
        return k.genericKubernetesResources("autoscaling.x-k8s.io/v1", "ProvisioningRequest")
                .inNamespace("default").withName(name).get();
    }

    private static GenericKubernetesResource only(List<GenericKubernetesResource> items) {
        assertThat(items).hasSize(1);
        return items.get(0);
    }
}
