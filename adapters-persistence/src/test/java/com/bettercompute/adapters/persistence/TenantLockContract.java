package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.application.port.ClusterRepository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pattern the create use case relies on — in one transaction: lock the tenant, check the name and
 * count the clusters, insert — admits exactly the right callers when {@value #THREADS} of them race.
 */
abstract class TenantLockContract extends PortsContract {
    static final int THREADS = 20;

    private void tenant(int maxClusters) {
        ports.catalog().save(new Catalog(List.of(), List.of(), List.of(), List.of(),
                List.of(new Tenant("acme", maxClusters)), List.of(), List.of(), List.of(), List.of()));
    }

    /** How a create takes its tenant's lock and reads its checks. */
    enum Checks {
        /** The tenant's lock, then one call per check (a node pool's create, and the pattern's plainest form). */
        ONE_AT_A_TIME,
        /** The lock and the reads of a group of creates in one call ({@code ClusterRepository.lockAndCheck}). */
        LOCK_AND_CHECK
    }

    /** What CreateCluster does under the tenant's lock; empty when the cluster was created. */
    private Optional<ErrorCode> create(Cluster cluster, Checks checks) {
        try {
            ports.transactions().inTransaction(() -> {
                boolean exists;
                boolean nameInUse;
                int count;
                if (checks == Checks.ONE_AT_A_TIME) {
                    exists = ports.catalog().lockTenant(cluster.tenantId());
                    nameInUse = ports.clusters().nameInUse(cluster.tenantId(), cluster.name());
                    count = ports.clusters().countNotDeleted(cluster.tenantId());
                } else {
                    ClusterRepository.CreateChecks read = ports.clusters().lockAndCheck(
                            Map.of(cluster.tenantId(), List.of(cluster.name())), List.of(cluster.id()));
                    exists = read.tenants().contains(cluster.tenantId());
                    nameInUse = read.namesInUse().getOrDefault(cluster.tenantId(), Set.of()).contains(cluster.name());
                    count = read.counts().get(cluster.tenantId());
                }
                if (!exists) {
                    throw new DomainException(ErrorCode.NOT_FOUND, "no tenant");
                }
                int max = ports.catalog().tenant(cluster.tenantId()).orElseThrow().maxClusters();
                if (nameInUse) {
                    throw new DomainException(ErrorCode.CONFLICT, "name in use");
                }
                if (count >= max) {
                    throw new DomainException(ErrorCode.QUOTA_EXCEEDED, "quota");
                }
                ports.clusters().insert(cluster);
                ports.outbox().append(new DomainEvent("kubernetes.cluster.created", cluster.tenantId(), cluster.id(),
                        cluster.createdAt(), Map.of("name", cluster.name())));
                return null;
            });
            return Optional.empty();
        } catch (DomainException e) {
            return Optional.of(e.code());
        }
    }

    /** Starts every caller at once and collects what each got. */
    private List<Optional<ErrorCode>> race(IntFunction<Cluster> clusterOfCaller, Checks checks) throws Exception {
        return race(clusterOfCaller, checks, null);
    }

    /** As {@link #race(IntFunction, Checks)}, each caller running {@code inTransaction} in a transaction instead of the create. */
    private List<Optional<ErrorCode>> race(IntFunction<Cluster> clusterOfCaller, Checks checks,
                                           java.util.function.Consumer<Cluster> inTransaction) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<ErrorCode>>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                Cluster c = clusterOfCaller.apply(i);
                futures.add(pool.submit(() -> {
                    start.await();
                    if (inTransaction == null) {
                        return create(c, checks);
                    }
                    ports.transactions().inTransaction(() -> {
                        inTransaction.accept(c);
                        return null;
                    });
                    return Optional.<ErrorCode>empty();
                }));
            }
            start.countDown();
            List<Optional<ErrorCode>> results = new ArrayList<>();
            for (Future<Optional<ErrorCode>> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Checks.class)
    void the_quota_admits_exactly_its_limit(Checks checks) throws Exception {
        tenant(5);

        List<Optional<ErrorCode>> results = race(i -> Samples.minimal("acme", "c" + i, T0.plusSeconds(i)), checks);

        assertThat(results).filteredOn(Optional::isEmpty).hasSize(5);
        assertThat(results).filteredOn(r -> r.equals(Optional.of(ErrorCode.QUOTA_EXCEEDED))).hasSize(THREADS - 5);
        assertThat(ports.clusters().countNotDeleted("acme")).isEqualTo(5);
        assertThat(ports.outbox().read(0, 100, "acme")).hasSize(5);
    }

    @ParameterizedTest
    @EnumSource(Checks.class)
    void a_name_is_taken_exactly_once(Checks checks) throws Exception {
        tenant(100);

        List<Optional<ErrorCode>> results = race(i -> Samples.minimal("acme", "train", T0, "key-" + i), checks);

        assertThat(results).filteredOn(Optional::isEmpty).hasSize(1);
        assertThat(results).filteredOn(r -> r.equals(Optional.of(ErrorCode.CONFLICT))).hasSize(THREADS - 1);
        assertThat(ports.clusters().countNotDeleted("acme")).isEqualTo(1);
        assertThat(ports.outbox().read(0, 100, "acme")).hasSize(1);
    }

    @Test
    void tenants_locked_together_are_locked_in_id_order_whatever_the_order_asked_so_callers_never_deadlock() throws Exception {
        List<String> tenants = List.of("acme", "globex", "initech");
        ports.catalog().save(new Catalog(List.of(), List.of(), List.of(), List.of(),
                tenants.stream().map(t -> new Tenant(t, 100)).toList(), List.of(), List.of(), List.of(), List.of()));

        List<Optional<ErrorCode>> results = race(i -> Samples.minimal(tenants.get(i % 3), "c" + i, T0), Checks.LOCK_AND_CHECK, cluster -> {
            Map<String, List<String>> asked = new java.util.LinkedHashMap<>();
            List<String> order = new ArrayList<>(tenants);
            order.add("nobody");
            if (cluster.name().hashCode() % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            order.forEach(t -> asked.put(t, List.of(cluster.name())));
            assertThat(ports.clusters().lockAndCheck(asked, List.of()).tenants()).containsExactlyElementsOf(tenants);
            ports.clusters().insert(cluster);
        });

        assertThat(results).allMatch(Optional::isEmpty);
        assertThat(ports.clusters().countNotDeleted(tenants).values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(THREADS);
    }
}
