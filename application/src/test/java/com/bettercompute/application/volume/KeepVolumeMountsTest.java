package com.bettercompute.application.volume;

import com.bettercompute.application.fakes.InMemoryVolumeRepository;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.incluster.ReachableClusters;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.SharedVolumeMounts;
import com.bettercompute.application.port.SharedVolumeMounts.VolumeMount;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.volume.NfsExport;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A cluster's volume mount kept inside it: only for an attached volume whose export is known, once the cluster is reachable. */
class KeepVolumeMountsTest {
    static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    static final AdmissionEndpoints.Webhooks WEBHOOKS = new AdmissionEndpoints.Webhooks("https://p/v", "https://p/m", "PEM");

    record Ensured(ClusterConnection cluster, VolumeMount mount, AdmissionEndpoints.Webhooks webhooks) {}

    final MarketWorld w = new MarketWorld();
    final InMemoryVolumeRepository volumes = new InMemoryVolumeRepository(w.ports.store());
    final List<Ensured> ensured = new ArrayList<>();
    final SharedVolumeMounts mounts = (cluster, mount, webhooks) -> ensured.add(new Ensured(cluster, mount, webhooks));
    final AdmissionEndpoints admission = new AdmissionEndpoints() {
        @Override
        public Optional<Webhooks> webhooks(String clusterId) {
            return Optional.of(WEBHOOKS);
        }

        @Override
        public boolean accepts(String clusterId, String token) {
            return false;
        }
    };
    final KeepVolumeMounts keep = new KeepVolumeMounts(volumes, new ClusterConnections(w.ports.clusters(), w.ports.catalog(),
            account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1))), mounts, admission);

    SharedVolume volume(VolumeState state, NfsExport export) {
        String id = Ids.volumeId(MarketWorld.ACME_TRAIN);
        SharedVolume v = SharedVolume.forCluster(id, "acme", MarketWorld.ACME_TRAIN, "train", "acct", "us-central1", "us-central1-a",
                Ids.volumeStorageName(id), 2048, T0);
        volumes.insert(v);
        SharedVolume now = v.withState(state, null, T0).withExport(export);
        volumes.update(now, v.version());
        return now;
    }

    @Test
    void an_attached_volume_of_a_reachable_cluster_is_mounted_as_its_row_says_with_the_configmaps_webhook() {
        SharedVolume v = volume(VolumeState.ATTACHED, new NfsExport("10.99.7.12", "/shared"));
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);

        assertThat(keep.clusters()).containsExactly(MarketWorld.ACME_TRAIN);
        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isTrue();

        assertThat(ensured).singleElement().satisfies(e -> {
            assertThat(e.cluster().endpointUrl()).isEqualTo("https://127.0.0.1:6443");
            assertThat(e.mount()).isEqualTo(new VolumeMount("train-shared", v.storageName(), "/mnt/shared", 2048, "10.99.7.12", "/shared"));
            assertThat(e.webhooks()).isEqualTo(WEBHOOKS);
        });
    }

    @Test
    void a_cluster_not_reachable_yet_gets_nothing() {
        volume(VolumeState.ATTACHED, new NfsExport("10.99.7.12", "/shared"));

        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isFalse();
        assertThat(ensured).isEmpty();
    }

    @Test
    void a_volume_still_being_made_or_whose_export_is_not_known_yet_is_not_mounted() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
        volume(VolumeState.PENDING, null);
        assertThat(keep.clusters()).isEmpty();
        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isFalse();

        SharedVolume pending = volumes.forCluster(MarketWorld.ACME_TRAIN).orElseThrow();
        volumes.update(pending.withState(VolumeState.ATTACHED, null, T0), pending.version());
        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).as("attached, its export not read yet").isFalse();
        assertThat(ensured).isEmpty();
    }

    @Test
    void a_cluster_without_a_volume_gets_nothing() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);

        assertThat(keep.keep(MarketWorld.ACME_TRAIN)).isFalse();
        assertThat(ensured).isEmpty();
    }
}
