package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryMarketClusterClient;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.MarketClusterClient.ComponentStatus;
import com.bettercompute.application.port.ProviderException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The market's add-ons of a cluster: kept only where the cluster is reachable, ready only when every one is. */
class KeepClusterComponentsTest {
    final MarketWorld w = new MarketWorld();
    final InMemoryMarketClusterClient cluster = new InMemoryMarketClusterClient();
    final KeepClusterComponents keep = new KeepClusterComponents(new ClusterConnections(w.ports.clusters(), w.ports.catalog(),
            account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1))), cluster);

    @Test
    void a_cluster_not_reachable_yet_is_not_ready_and_nothing_is_applied() {
        KeepClusterComponents.Outcome outcome = keep.keep(MarketWorld.ACME_TRAIN);

        assertThat(outcome.ready()).isFalse();
        assertThat(outcome.waitingFor()).isEqualTo("the cluster's Kubernetes API is not reachable yet");
        assertThat(cluster.componentPasses).isZero();
    }

    @Test
    void a_reachable_cluster_is_ready_only_when_every_add_on_is_and_says_what_the_others_wait_for() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
        cluster.components.clear();
        cluster.components.addAll(List.of(new ComponentStatus("JobSet", "v0.8.2", true, ""),
                new ComponentStatus("Kueue", "v0.13.4", false, "its controller Deployment kueue-system/kueue-controller-manager has 0 of 1 replicas available")));

        KeepClusterComponents.Outcome waiting = keep.keep(MarketWorld.ACME_TRAIN);

        assertThat(waiting.ready()).isFalse();
        assertThat(waiting.waitingFor()).isEqualTo("Kueue v0.13.4: its controller Deployment kueue-system/kueue-controller-manager has 0 of 1 replicas available");
        cluster.components.set(1, new ComponentStatus("Kueue", "v0.13.4", true, ""));
        KeepClusterComponents.Outcome ready = keep.keep(MarketWorld.ACME_TRAIN);
        assertThat(ready.ready()).isTrue();
        assertThat(ready.waitingFor()).isEmpty();
        assertThat(cluster.componentPasses).isEqualTo(2);
    }

    @Test
    void a_failing_cluster_api_is_the_providers_error() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
        cluster.failure = new ProviderException(ProviderException.Kind.UNAVAILABLE, "unreachable");

        assertThatThrownBy(() -> keep.keep(MarketWorld.ACME_TRAIN)).isInstanceOf(ProviderException.class);
    }
}
