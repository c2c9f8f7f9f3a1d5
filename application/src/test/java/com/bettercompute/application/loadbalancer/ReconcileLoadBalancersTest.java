package com.bettercompute.application.loadbalancer;

import com.bettercompute.application.fakes.InMemoryLoadBalancerClusterClient;
import com.bettercompute.application.fakes.InMemoryLoadBalancerRepository;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.incluster.ReachableClusters;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.InMemoryLoadBalancerProvider;
import com.bettercompute.application.port.LoadBalancerClusterClient.ServiceWatch;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.loadbalancer.HealthCheck;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.LoadBalancerSettings;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import com.bettercompute.domain.loadbalancer.ServicePort;
import com.bettercompute.domain.loadbalancer.Worker;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Services of type LoadBalancer in a tenant cluster, served, refused and released, on in-memory ports. */
class ReconcileLoadBalancersTest {
    static final List<ServicePort> HTTPS = List.of(new ServicePort("https", "TCP", 443, 30443));

    final MarketWorld w = new MarketWorld();
    final InMemoryLoadBalancerRepository rows = new InMemoryLoadBalancerRepository(w.ports.store());
    final InMemoryLoadBalancerClusterClient cluster = new InMemoryLoadBalancerClusterClient();
    final InMemoryLoadBalancerProvider provider = new InMemoryLoadBalancerProvider();
    final AtomicReference<LoadBalancerSettings> settings = new AtomicReference<>(
            new LoadBalancerSettings(3, Map.of(), Map.of("us-central1", 10)));
    final List<String> told = new ArrayList<>();
    final InMemoryClusterProvider clusters = new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(30));
    final ReconcileLoadBalancers reconcile = new ReconcileLoadBalancers(w.ports.transactions(), rows, w.ports.outbox(),
            new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> clusters), w.ports.catalog(), cluster,
            account -> provider, settings::get, new ReconcileLoadBalancers.Listener() {
                @Override
                public void allocated(LoadBalancer lb) {
                    told.add("allocated " + lb.service());
                }

                @Override
                public void released(LoadBalancer lb) {
                    told.add("released " + lb.service());
                }

                @Override
                public void refused(LoadBalancer lb, RefusalReason reason) {
                    told.add("refused " + lb.service() + " " + reason.wire());
                }
            }, w.ports.clock());
    ServiceWatch watch;

    @BeforeEach
    void readyCluster() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
        cluster.workers(List.of(worker("gpu-1", true, false), worker("cpu-1", true, false)));
        watch = cluster.watch(null, () -> { });
    }

    static Worker worker(String name, boolean ready, boolean notice) {
        return new Worker(name, "projects/platform-prod/zones/us-central1-a/instances/" + name, ready, notice, false);
    }

    ReconcileLoadBalancers.Pass pass() {
        return reconcile.pass(MarketWorld.ACME_TRAIN, watch);
    }

    LoadBalancer row(String service) {
        return rows.ofCluster(MarketWorld.ACME_TRAIN).stream().filter(r -> r.service().equals(service)).findFirst().orElse(null);
    }

    List<String> outbox() {
        return w.ports.outbox().all().stream().map(e -> e.event().type()).filter(t -> t.contains("loadBalancer")).toList();
    }

    @Test
    void a_new_service_gets_its_finalizer_then_its_address_its_forwarding_and_its_status_in_one_pass() {
        cluster.apply("serve", HTTPS, false);

        pass();

        LoadBalancerService s = cluster.find("serve");
        LoadBalancer r = row("serve");
        assertThat(r.state()).isEqualTo(LoadBalancerState.SERVING);
        assertThat(s.finalizer()).isTrue();
        assertThat(s.ingressIp()).isEqualTo(r.address()).isEqualTo(provider.addresses().values().iterator().next());
        assertThat(provider.forwarding().values()).singleElement().satisfies(f -> {
            assertThat(f.ports()).containsExactly(443);
            assertThat(f.instances()).containsExactly(worker("cpu-1", true, false).instance(), worker("gpu-1", true, false).instance());
            assertThat(f.healthCheck()).isEqualTo(new HealthCheck(10256, "/healthz"));
        });
        assertThat(cluster.writes().get(0)).isEqualTo("addFinalizer serve");
        assertThat(cluster.reasons()).containsExactly("EnsuringLoadBalancer", "EnsuredLoadBalancer");
        assertThat(outbox()).containsExactly("kubernetes.loadBalancer.allocated");
        assertThat(told).containsExactly("allocated serve");
        assertThat(r.providerName()).isEqualTo(LoadBalancer.providerName(MarketWorld.ACME_TRAIN, s.uid()));
    }

    @Test
    void a_second_pass_changes_nothing() {
        cluster.apply("serve", HTTPS, false);
        pass();
        int calls = provider.calls().size();
        int writes = cluster.writes().size();

        assertThat(pass().steps()).isZero();

        assertThat(provider.calls()).hasSize(calls);
        assertThat(cluster.writes()).hasSize(writes);
    }

    @Test
    void udp_ports_are_skipped_with_a_warning_naming_each_and_tcp_still_served() {
        cluster.apply("mixed", List.of(new ServicePort("dns", "UDP", 53, 30053), new ServicePort("", "TCP", 80, 30080)), false);

        pass();

        assertThat(provider.forwarding().values()).singleElement().satisfies(f -> assertThat(f.ports()).containsExactly(80));
        assertThat(cluster.events().values()).filteredOn(e -> e.reason().equals("UnsupportedProtocol")).singleElement()
                .satisfies(e -> {
                    assertThat(e.type()).isEqualTo("Warning");
                    assertThat(e.message()).contains("dns (53/UDP)");
                });
        pass();
        assertThat(cluster.reasons()).filteredOn("UnsupportedProtocol"::equals).hasSize(1);
    }

    @Test
    void externalTrafficPolicy_local_is_checked_on_its_healthCheckNodePort() {
        LoadBalancerService s = cluster.apply("local", HTTPS, true);

        pass();

        assertThat(provider.forwarding().values()).singleElement()
                .satisfies(f -> assertThat(f.healthCheck()).isEqualTo(new HealthCheck(s.healthCheckNodePort(), "/healthz")));
    }

    @Test
    void node_churn_changes_the_backends_never_the_address_and_a_node_under_notice_leaves_at_notice_time() {
        cluster.apply("serve", HTTPS, false);
        pass();
        String address = row("serve").address();

        cluster.workers(List.of(worker("gpu-1", true, true), worker("cpu-1", true, false), worker("gpu-2", true, false)));
        pass();

        assertThat(provider.forwarding().values()).singleElement().satisfies(f -> assertThat(f.instances())
                .containsExactly(worker("cpu-1", true, false).instance(), worker("gpu-2", true, false).instance()));
        assertThat(row("serve").address()).isEqualTo(address);
        assertThat(cluster.find("serve").ingressIp()).isEqualTo(address);
        assertThat(provider.addresses()).hasSize(1);
        assertThat(cluster.reasons()).contains("UpdatedLoadBalancer");
    }

    @Test
    void deleting_the_service_releases_its_address_before_the_row_and_the_finalizer() {
        cluster.apply("serve", HTTPS, false);
        pass();
        cluster.delete("serve");
        assertThat(cluster.find("serve")).as("held by the finalizer").isNotNull();

        pass();

        assertThat(provider.addresses()).isEmpty();
        assertThat(provider.forwarding()).isEmpty();
        assertThat(rows.all()).isEmpty();
        assertThat(cluster.find("serve")).isNull();
        assertThat(cluster.reasons()).containsSubsequence("DeletingLoadBalancer", "DeletedLoadBalancer");
        assertThat(outbox()).containsExactly("kubernetes.loadBalancer.allocated", "kubernetes.loadBalancer.released");
        assertThat(provider.calls()).last().asString().startsWith("release");
    }

    @Test
    void changing_the_type_away_releases_it_and_clears_the_status() {
        cluster.apply("serve", HTTPS, false);
        pass();

        cluster.toClusterIp("serve");
        pass();

        LoadBalancerService s = cluster.find("serve");
        assertThat(provider.addresses()).isEmpty();
        assertThat(s.finalizer()).isFalse();
        assertThat(s.ingressIp()).isNull();
        assertThat(rows.all()).isEmpty();
    }

    @Test
    void a_service_of_another_class_is_left_entirely_alone() {
        cluster.put(new LoadBalancerService("default", "metal", "uid-metal", true, "example.com/metal", HTTPS, true, false, 0,
                false, false, null));

        assertThat(pass().steps()).isZero();

        assertThat(cluster.writes()).isEmpty();
        assertThat(cluster.events()).isEmpty();
        assertThat(provider.calls()).isEmpty();
        assertThat(rows.all()).isEmpty();
    }

    @Test
    void the_cluster_cap_leaves_a_service_pending_with_an_event_and_it_is_served_on_its_own_when_room_frees() {
        settings.set(new LoadBalancerSettings(1, Map.of(), Map.of("us-central1", 10)));
        cluster.apply("first", HTTPS, false);
        pass();
        cluster.apply("second", HTTPS, false);
        pass();
        pass();

        assertThat(row("second").state()).isEqualTo(LoadBalancerState.PENDING);
        assertThat(row("second").refusal()).isEqualTo(RefusalReason.CLUSTER_CAP);
        assertThat(cluster.find("second").ingressIp()).isNull();
        assertThat(cluster.events().values()).filteredOn(e -> e.reason().equals("SyncLoadBalancerFailed")).singleElement()
                .satisfies(e -> assertThat(e.message()).contains("cap"));
        assertThat(outbox()).containsExactly("kubernetes.loadBalancer.allocated", "kubernetes.loadBalancer.refused");
        assertThat(told).containsExactly("allocated first", "refused second cluster-cap");

        cluster.delete("first");
        pass();

        assertThat(row("second").state()).isEqualTo(LoadBalancerState.SERVING);
        assertThat(cluster.find("second").ingressIp()).isNotNull();
        assertThat(provider.addresses()).hasSize(1);
    }

    @Test
    void a_tenant_cap_overrides_the_default() {
        settings.set(new LoadBalancerSettings(0, Map.of("acme", 2), Map.of("us-central1", 10)));
        cluster.apply("a", HTTPS, false);
        cluster.apply("b", HTTPS, false);
        cluster.apply("c", HTTPS, false);

        pass();

        assertThat(rows.all()).extracting(LoadBalancer::state)
                .containsExactly(LoadBalancerState.SERVING, LoadBalancerState.SERVING, LoadBalancerState.PENDING);
    }

    @Test
    void the_shared_pool_limit_counts_every_tenant_in_the_region() {
        settings.set(new LoadBalancerSettings(5, Map.of(), Map.of("us-central1", 1)));
        rows.insert(LoadBalancer.first(MarketWorld.GLOBEX_TRAIN, "globex", new LoadBalancerService("default", "theirs", "uid-g",
                true, "x", HTTPS, true, false, 0, false, true, null), "platform-prod", "us-central1", LoadBalancerState.RESERVING,
                null, w.ports.clock().instant()));
        cluster.apply("serve", HTTPS, false);

        pass();

        assertThat(row("serve").refusal()).isEqualTo(RefusalReason.POOL_LIMIT);
        assertThat(provider.calls()).noneMatch(c -> c.startsWith("reserveAddress"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"region", "udp", "nodeports", "workers"})
    void each_refusal_is_an_event_naming_its_reason_and_calls_no_provider(String cause) {
        switch (cause) {
            case "region" -> settings.set(new LoadBalancerSettings(3, Map.of(), Map.of("europe-west4", 10)));
            case "udp" -> cluster.apply("serve", List.of(new ServicePort("", "UDP", 53, 30053)), false);
            case "nodeports" -> cluster.put(new LoadBalancerService("default", "serve", "uid-x", true,
                    com.bettercompute.domain.loadbalancer.LoadBalancerClass.PLATFORM, HTTPS, false, false, 0, false, false, null));
            case "workers" -> cluster.workers(List.of(worker("gpu-1", false, false), worker("gpu-2", true, true)));
            default -> throw new IllegalArgumentException(cause);
        }
        if (cluster.find("serve") == null) {
            cluster.apply("serve", HTTPS, false);
        }

        pass();

        String expected = switch (cause) {
            case "region" -> "not enabled in region us-central1";
            case "udp" -> "only TCP";
            case "nodeports" -> "allocateLoadBalancerNodePorts";
            default -> "no Ready worker";
        };
        assertThat(cluster.events().values()).filteredOn(e -> e.reason().equals("SyncLoadBalancerFailed")).singleElement()
                .satisfies(e -> assertThat(e.message()).contains(expected));
        assertThat(provider.calls()).isEmpty();
        assertThat(cluster.find("serve").finalizer()).isTrue();
        assertThat(row("serve").state()).isEqualTo(LoadBalancerState.PENDING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reserveAddress", "ensureForwarding", "release"})
    void an_answer_lost_at_any_provider_call_is_adopted_by_the_next_pass_never_made_twice(String method) {
        cluster.apply("serve", HTTPS, false);
        if (method.equals("release")) {
            pass();
            cluster.delete("serve");
        }
        provider.loseNextAnswer(method);

        assertThat(pass().failures()).isEqualTo(1);
        pass();

        if (method.equals("release")) {
            assertThat(provider.addresses()).isEmpty();
            assertThat(rows.all()).isEmpty();
            assertThat(cluster.find("serve")).isNull();
        } else {
            assertThat(provider.addresses()).hasSize(1);
            assertThat(cluster.find("serve").ingressIp()).isEqualTo(provider.addresses().values().iterator().next());
            assertThat(outbox()).containsExactly("kubernetes.loadBalancer.allocated");
        }
    }

    @Test
    void a_provider_refusal_leaves_the_service_to_the_next_pass() {
        cluster.apply("serve", HTTPS, false);
        provider.failNext("reserveAddress", ProviderException.Kind.QUOTA);

        assertThat(pass().failures()).isEqualTo(1);
        assertThat(row("serve").state()).isEqualTo(LoadBalancerState.RESERVING);
        pass();

        assertThat(row("serve").state()).isEqualTo(LoadBalancerState.SERVING);
    }

    @Test
    void a_deleted_cluster_has_its_addresses_released_without_its_api() {
        cluster.apply("serve", HTTPS, false);
        pass();
        var c = w.ports.clusters().find(MarketWorld.ACME_TRAIN).orElseThrow();
        w.ports.transactions().inTransaction(() -> w.ports.clusters().update(new com.bettercompute.domain.cluster.Cluster(c.id(),
                c.tenantId(), c.projectId(), c.poolId(), c.providerAccountId(), c.name(), c.description(), c.mode(), c.location(),
                c.region(), c.locationType(), c.releaseChannel(), c.requestedVersion(), c.kubernetesVersion(), c.nodeVersion(),
                c.endpoint(), c.authorizedNetworks(), c.privateNodes(), c.networkId(), c.subnetName(),
                com.bettercompute.domain.cluster.ClusterState.DELETED, c.message(), c.providerName(), c.ownerId(),
                c.requestFingerprint(), c.version(), c.createdAt(), c.updatedAt(), c.readyAt(), c.updatedAt(), c.nodePools(),
                c.progress()), c.version()));
        int writes = cluster.writes().size();

        pass();

        assertThat(provider.addresses()).isEmpty();
        assertThat(rows.all()).isEmpty();
        assertThat(cluster.writes()).hasSize(writes);
    }

    @Test
    void a_row_saved_between_writes_never_goes_back() {
        cluster.apply("serve", HTTPS, false);
        pass();
        LoadBalancer r = row("serve");

        assertThat(rows.update(r, r.version() + 1)).isFalse();
        assertThatThrownBy(() -> rows.insert(r)).hasMessageContaining("exists");
    }
}
