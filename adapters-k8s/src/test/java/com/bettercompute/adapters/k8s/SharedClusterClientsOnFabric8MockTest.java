package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import com.github.benmanes.caffeine.cache.Ticker;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every call and watch to one cluster shares one fabric8 client (its connections and TLS sessions reused), a
 * rotated credential gets a client of its own, an idle client is dropped and closed, never under a call or a watch
 * still using it, and closing the adapter closes them all.
 */
class SharedClusterClientsOnFabric8MockTest {
    static final Duration IDLE = Duration.ofMinutes(5);

    CrudMockCluster cluster;
    final AtomicLong nanos = new AtomicLong();
    final Ticker ticker = nanos::get;
    ClusterApis apis;
    Fabric8MarketClusterClient market;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        apis = new ClusterApis(5000, ticker, IDLE);
        market = new Fabric8MarketClusterClient(apis, 60_000, ClusterComponents.bundled());
    }

    @AfterEach
    void stop() {
        market.close();
        cluster.close();
    }

    KubernetesClient clientOf(ClusterConnection c) {
        return apis.call(c, "list the cluster's nodes", client -> {
            client.nodes().list();
            return client;
        });
    }

    ClusterConnection withToken(String token) {
        ClusterConnection c = cluster.connection();
        return new ClusterConnection(c.endpointUrl(), c.caCertificateBase64(), token);
    }

    @Test
    void two_calls_to_one_cluster_share_one_client_and_a_watch_shares_it_too() {
        KubernetesClient first = clientOf(cluster.connection());
        KubernetesClient second = clientOf(cluster.connection());

        assertThat(second).isSameAs(first);
        assertThat(first.getHttpClient().isClosed()).isFalse();
        market.nodes(cluster.connection());
        market.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        try (DemandWatch watch = market.watchDemand(cluster.connection(), () -> { })) {
            assertThat(apis.kept()).isEqualTo(1);
            assertThat(clientOf(cluster.connection())).isSameAs(first);
        }
    }

    @Test
    void a_changed_credential_gets_a_new_client_and_the_old_one_is_closed_once_idle() {
        KubernetesClient before = clientOf(withToken("token-1"));
        KubernetesClient after = clientOf(withToken("token-2"));

        assertThat(after).isNotSameAs(before);
        assertThat(apis.kept()).isEqualTo(2);

        nanos.addAndGet(IDLE.toNanos() - 1);
        clientOf(withToken("token-2"));
        nanos.addAndGet(2);
        assertThat(apis.kept()).as("the rotated token's client, used a moment ago, is kept").isEqualTo(1);
        assertThat(before.getHttpClient().isClosed()).isTrue();
        assertThat(after.getHttpClient().isClosed()).isFalse();
    }

    @Test
    void a_client_dropped_during_a_call_is_closed_only_when_the_call_ends() {
        KubernetesClient used = apis.call(cluster.connection(), "list the cluster's nodes", client -> {
            nanos.addAndGet(IDLE.toNanos() + 1);
            assertThat(apis.kept()).as("dropped from the cache while the call runs").isZero();
            assertThat(client.getHttpClient().isClosed()).isFalse();
            client.nodes().list();
            return client;
        });

        assertThat(used.getHttpClient().isClosed()).isTrue();
        assertThat(clientOf(cluster.connection())).as("the next call gets a new client").isNotSameAs(used);
    }

    @Test
    void a_running_watch_keeps_its_client_open_after_it_is_dropped_and_closes_it_when_the_watch_closes() {
        market.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        DemandWatch watch = market.watchDemand(cluster.connection(), () -> { });
        KubernetesClient watching = clientOf(cluster.connection());

        nanos.addAndGet(IDLE.toNanos() + 1);
        assertThat(apis.kept()).isZero();
        assertThat(watching.getHttpClient().isClosed()).isFalse();
        assertThat(watch.jobs()).as("the watch still reads").isEmpty();

        watch.close();
        assertThat(watching.getHttpClient().isClosed()).isTrue();
    }

    @Test
    void closing_the_adapter_closes_every_client_even_one_a_watch_still_holds() {
        market.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        DemandWatch watch = market.watchDemand(withToken("token-1"), () -> { });
        KubernetesClient watched = clientOf(withToken("token-1"));
        KubernetesClient other = clientOf(withToken("token-2"));

        market.close();

        assertThat(watched.getHttpClient().isClosed()).isTrue();
        assertThat(other.getHttpClient().isClosed()).isTrue();
        assertThatThrownBy(() -> market.nodes(cluster.connection())).hasMessageContaining("could not be reached");
        watch.close();
    }

    /**
     * A cluster given back to another replica closes its watch: its informers' connections close although the
     * cluster's client stays open for the calls.
     */
    @Test
    void a_closed_watch_closes_its_connections_while_the_shared_client_stays_open() {
        assumeTrue(Files.exists(Path.of("/proc/self/net/tcp")), "connections are counted from /proc");
        market.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        int port = cluster.server.getPort();

        for (int round = 0; round < 2; round++) {
            DemandWatch watch = market.watchDemand(cluster.connection(), () -> { });
            int watching = waitFor(port, n -> watch.synced() && n >= 5);
            assertThat(watch.synced()).isTrue();
            assertThat(watching).as("round %d: the calls' connection and the informers' watches", round)
                    .isGreaterThanOrEqualTo(5);
            watch.close();
            // what stays is the client's pool, at most one connection per informer's first list run at once
            assertThat(waitFor(port, n -> n <= 4)).as("round %d: connections once the watch closed", round).isLessThanOrEqualTo(4);
        }
        assertThat(clientOf(cluster.connection()).getHttpClient().isClosed()).isFalse();
    }

    /** The established connections of this process to {@code port}, once they satisfy {@code wanted} (at most 10 s). */
    static int waitFor(int port, IntPredicate wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int n = connectionsTo(port);
        while (!wanted.test(n) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            n = connectionsTo(port);
        }
        return n;
    }

    /** Established TCP connections of this process whose remote end is {@code port} (the clients' ends). */
    static int connectionsTo(int port) {
        int count = 0;
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            try {
                List<String> lines = Files.readAllLines(Path.of(table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    String remote = f[2];
                    if ("01".equals(f[3]) && Integer.parseInt(remote.substring(remote.indexOf(':') + 1), 16) == port) {
                        count++;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return count;
    }
}
