package com.bettercompute.adapters.k8s.simulator;

import com.bettercompute.application.fakes.MutableClock;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A restarted simulated API server never gives a uid twice, as kube-apiserver never does: not a restored object's, not
 * a deleted one's. The platform names a Service's load balancer after its uid, so a uid given twice would give two
 * Services one address. The CRUD mock's uid counter belongs to the process; a new process is played here by setting it
 * back to where this one's stood before the first start.
 */
class UidsAcrossRestartsTest {
    static final KubernetesSerialization JSON = new KubernetesSerialization();
    /** The world's clusters and clock, shared by its restarts. */
    final Map<String, Map<String, SimulatedKubernetesApis.NodePool>> clusters = new ConcurrentHashMap<>();
    final MutableClock clock = new MutableClock();

    SimulatedCluster.World start(Path state) {
        return new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS, state, clock, clusters);
    }

    @Test
    void a_restarted_server_gives_uids_past_every_one_the_cluster_had_a_deleted_services_too(@TempDir Path state) throws Exception {
        AtomicLong counter = fabric8UidCounter();
        long processStart = counter.get();
        List<String> before = new ArrayList<>();
        SimulatedCluster first;
        long firstRunEnd;
        try (SimulatedCluster.World world = start(state)) {
            first = new SimulatedCluster(world);
            for (String name : List.of("kept", "deleted")) {
                before.add(create(first, name).getMetadata().getUid());
            }
            first.client.services().inNamespace("default").withName("deleted").delete();
            first.close();
            firstRunEnd = counter.get();
        }

        counter.set(processStart);
        try (SimulatedCluster.World world = start(state);
             SimulatedCluster restarted = new SimulatedCluster(world, first)) {
            assertThat(restarted.client.services().inNamespace("default").withName("kept").get().getMetadata().getUid())
                    .as("a restored object keeps its uid").isEqualTo(before.get(0));
            String fresh = create(restarted, "fresh").getMetadata().getUid();

            assertThat(fresh).as("a new Service's uid").isNotIn(before);
            assertThat(UUID.fromString(fresh).getLeastSignificantBits()).as("past every uid the first run gave out")
                    .isGreaterThan(firstRunEnd);
        }
    }

    @Test
    void a_cluster_saved_before_the_mark_was_kept_restores_past_its_objects_uids(@TempDir Path state) throws Exception {
        AtomicLong counter = fabric8UidCounter();
        long processStart = counter.get();
        SimulatedCluster first;
        String kept;
        try (SimulatedCluster.World world = start(state)) {
            first = new SimulatedCluster(world);
            kept = create(first, "kept").getMetadata().getUid();
            first.close();
        }
        // the earlier format: the objects' list alone
        try (var files = Files.list(state.resolve("clusters"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                Map<?, ?> saved = JSON.unmarshal(Files.readString(file), Map.class);
                Files.writeString(file, JSON.asJson(saved.get("objects")));
            }
        }

        counter.set(processStart);
        try (SimulatedCluster.World world = start(state);
             SimulatedCluster restarted = new SimulatedCluster(world, first)) {
            assertThat(restarted.client.services().inNamespace("default").withName("kept").get().getMetadata().getUid()).isEqualTo(kept);
            assertThat(UUID.fromString(create(restarted, "fresh").getMetadata().getUid()).getLeastSignificantBits())
                    .isGreaterThan(UUID.fromString(kept).getLeastSignificantBits());
        }
    }

    static Service create(SimulatedCluster cluster, String name) {
        return cluster.client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withType("ClusterIP").addNewPort().withPort(80).endPort().endSpec().build()).create();
    }

    /** fabric8's process-wide uid counter, which a new process would start again from nothing. */
    static AtomicLong fabric8UidCounter() throws ReflectiveOperationException {
        var field = Utils.class.getDeclaredField("leastSigBits");
        field.setAccessible(true);
        return (AtomicLong) field.get(null);
    }
}
