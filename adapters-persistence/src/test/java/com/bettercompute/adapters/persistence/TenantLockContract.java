package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.application.port.ClusterRepository.Insertion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

    /** How a create takes its tenant's lock and makes its checks. */
    enum Checks {
        /** In the caller's transaction: the tenant's lock, then one call per check, then the insert (the pattern's plainest form). */
        ONE_AT_A_TIME,
        /** The repository's insert of a new cluster, which locks, checks and writes itself, grouped with concurrent calls. */
        INSERT
    }

    /** What a create does under the tenant's lock; empty when the cluster was created. */
    private Optional<ErrorCode> create(Cluster cluster, Checks checks) {
        if (checks == Checks.INSERT) {
            int max = ports.catalog().tenant(cluster.tenantId()).map(Tenant::maxClusters).orElse(0);
            Insertion done = ports.clusters().insert(Samples.asNew(cluster, max));
            if (done instanceof Insertion.Inserted) {
                return Optional.empty();
            }
            return Optional.of(done instanceof Insertion.NameInUse ? ErrorCode.CONFLICT
                    : done instanceof Insertion.OverQuota ? ErrorCode.QUOTA_EXCEEDED : ErrorCode.NOT_FOUND);
        }
        try {
            ports.transactions().inTransaction(() -> {
                if (!ports.catalog().lockTenant(cluster.tenantId())) {
                    throw new DomainException(ErrorCode.NOT_FOUND, "no tenant");
                }
                int max = ports.catalog().tenant(cluster.tenantId()).orElseThrow().maxClusters();
                if (ports.clusters().nameInUse(cluster.tenantId(), cluster.name())) {
                    throw new DomainException(ErrorCode.CONFLICT, "name in use");
                }
                if (ports.clusters().countNotDeleted(cluster.tenantId()) >= max) {
                    throw new DomainException(ErrorCode.QUOTA_EXCEEDED, "quota");
                }
                // no limit of its own: only the checks above keep the quota
                assertThat(ports.clusters().insert(Samples.asNew(cluster, Integer.MAX_VALUE))).isInstanceOf(Insertion.Inserted.class);
                return null;
            });
            return Optional.empty();
        } catch (DomainException e) {
            return Optional.of(e.code());
        }
    }

    /** Starts every caller at once and collects what each got. */
    private List<Optional<ErrorCode>> race(IntFunction<Cluster> clusterOfCaller, Checks checks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<ErrorCode>>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                Cluster c = clusterOfCaller.apply(i);
                futures.add(pool.submit(() -> {
                    start.await();
                    return create(c, checks);
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
    void inserts_in_three_tenants_at_once_share_transactions_without_deadlock_and_all_commit() throws Exception {
        List<String> tenants = List.of("acme", "globex", "initech");
        ports.catalog().save(Samples.tenants(100, tenants.toArray(String[]::new)));

        List<Optional<ErrorCode>> results = race(i -> Samples.minimal(tenants.get(i % 3), "c" + i, T0), Checks.INSERT);

        assertThat(results).allMatch(Optional::isEmpty);
        assertThat(tenants.stream().mapToInt(t -> ports.clusters().countNotDeleted(t)).sum()).isEqualTo(THREADS);
        assertThat(ports.outbox().read(0, 100, null)).hasSize(THREADS);
    }
}
