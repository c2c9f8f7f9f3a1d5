package com.bettercompute.application.volume;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.fakes.InMemoryStorageLedger;
import com.bettercompute.application.fakes.InMemoryVolumeRepository;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.port.ClusterReadiness;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.InMemorySharedVolumeProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeLocator;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.application.reconcile.ReconcileCluster;
import com.bettercompute.application.usage.ReadUsage;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageCharge;
import com.bettercompute.domain.volume.StoragePrice;
import com.bettercompute.domain.volume.VolumeState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A shared volume's life on the in-memory ports and providers: made before its cluster, attached, sampled and billed,
 * preserved or destroyed with its cluster, deleted by a person — and a volume that cannot be made.
 */
class SharedVolumeLifecycleTest {
    static final Duration OPERATION = Duration.ofMinutes(2);
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    static final String ID = Ids.clusterId("acme", "user:alice", "key-1");
    static final String VOLUME = Ids.volumeId(ID);
    static final VolumeLocator AT = new VolumeLocator("platform-prod", "us-central1-a", Ids.volumeStorageName(VOLUME));
    static final Cadence CADENCE = Cadence.DEFAULT;
    static final Caller ALICE_TOKEN = new Caller(new Principal("user:alice", false), false);
    static final Caller ALICE_SESSION = new Caller(new Principal("user:alice", false), true);

    final InMemoryPorts ports = InMemoryPorts.create();
    final InMemoryVolumeRepository volumes = new InMemoryVolumeRepository(ports.store());
    final InMemoryStorageLedger ledger = new InMemoryStorageLedger(ports.store());
    final InMemoryClusterProvider clusterProvider = new InMemoryClusterProvider(ports.clock(), OPERATION);
    final InMemorySharedVolumeProvider files = new InMemorySharedVolumeProvider(ports.clock(), OPERATION);
    final StorageSettings settings = new StorageSettings(Set.of(POOL), Map.of("us-central1", new StoragePrice(Money.parse("0.20"))),
            Duration.ofMinutes(1));
    final ReconcileCluster reconcile = new ReconcileCluster(ports.transactions(), ports.clusters(), ports.catalog(), ports.access(),
            ports.outbox(), ports.usage(), account -> clusterProvider, CADENCE, ports.clock(), ClusterReadiness.NONE,
            new ClusterVolumes(ports.transactions(), ports.clusters(), volumes, ports.outbox(), account -> files, settings, CADENCE));
    final ReconcileVolume volumeLoop = new ReconcileVolume(ports.transactions(), volumes, ports.clusters(), ports.catalog(),
            ports.outbox(), ledger, ports.markets(), account -> files, settings, CADENCE, ports.clock());
    final Authorizer authorizer = new Authorizer(ports.access());
    final DeleteVolume deleteVolume = new DeleteVolume(volumes, volumeLoop, authorizer, ports.clock());
    final ListVolumes listVolumes = new ListVolumes(volumes, ledger, settings, authorizer);
    final DeleteCluster deleteCluster = new DeleteCluster(ports.transactions(), ports.clusters(), ports.outbox(), authorizer,
            ports.clock(), volumes);

    SharedVolumeLifecycleTest() {
        ports.clock().set(Instant.parse("2026-12-01T10:00:00Z"));
        new LoadCatalog(ports.transactions(), ports.catalog(), ports.access()).load(new Catalog(
                List.of(new Provider("gcp", true)),
                List.of(new ProviderAccount("acct", "gcp", "platform", "platform-prod", List.of("us-central1-a"))),
                List.of(new Pool(POOL, "acct", PoolKind.PROVIDER, "provider", BillingMode.METERED)),
                List.of(new Offer(POOL, "acme", true, List.of())),
                List.of(new Tenant("acme", 10)),
                List.of(), List.of(), List.of(),
                List.of(new CatalogPrincipal("user:alice", "0".repeat(64), false,
                        List.of(new RoleBinding("user:alice", "acme", null, Role.KUBERNETES_ADMIN, Map.of()))))));
    }

    @Test
    void the_volume_is_made_before_the_cluster_then_attached_and_the_cluster_created() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        pass();
        SharedVolume making = volume();
        assertThat(making.state()).isEqualTo(VolumeState.PENDING);
        assertThat(making.sizeGiB()).isEqualTo(2048);
        assertThat(making.progress().pendingAction()).isEqualTo("create-volume");
        assertThat(files.exists(AT)).isTrue();
        assertThat(clusterProvider.callsByMethod()).doesNotContainKey("createCluster");
        assertThat(cluster().state()).isEqualTo(ClusterState.PENDING);

        converge();

        assertThat(volume().state()).isEqualTo(VolumeState.ATTACHED);
        assertThat(cluster().state()).isEqualTo(ClusterState.READY);
        assertThat(events()).contains("kubernetes.volume.created", "kubernetes.volume.attached");
        assertThat(files.instanceCount()).isEqualTo(1);
    }

    @Test
    void a_cluster_created_before_september_2026_carries_1_TiB() {
        inserted(Instant.parse("2026-08-31T23:00:00Z"));
        pass();
        assertThat(volume().sizeGiB()).isEqualTo(1024);
    }

    @Test
    void a_volume_the_provider_cannot_make_leaves_nothing_behind_and_the_cluster_shows_why() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        files.failNextOperation("no BASIC_HDD capacity in us-central1-a");
        converge();

        assertThat(cluster().state()).isEqualTo(ClusterState.ERROR);
        assertThat(cluster().message()).contains("shared volume could not be made").contains("no BASIC_HDD capacity");
        assertThat(volume().state()).isEqualTo(VolumeState.FAILED);
        assertThat(files.exists(AT)).as("the broken share is deleted").isFalse();
        assertThat(clusterProvider.callsByMethod()).as("no cluster was made").doesNotContainKey("createCluster");
        assertThat(events()).contains("kubernetes.volume.error", "kubernetes.cluster.error");
        assertThat(listVolumes.list(ALICE_TOKEN, "acme")).isEmpty();

        // the reconciler retries the error: volume first, then the cluster
        ports.clock().advance(CADENCE.settled());
        converge();
        assertThat(volume().state()).isEqualTo(VolumeState.ATTACHED);
        assertThat(cluster().state()).isEqualTo(ClusterState.READY);
    }

    @Test
    void a_refused_create_fails_the_cluster_at_once() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        files.failNextCall("create", new ProviderException(ProviderException.Kind.QUOTA, "Filestore quota exhausted in us-central1."));
        pass();
        assertThat(cluster().state()).isEqualTo(ClusterState.ERROR);
        assertThat(cluster().message()).contains("Filestore quota exhausted");
        assertThat(files.instanceCount()).isZero();
    }

    @Test
    void a_crash_after_the_create_call_adopts_the_instance_instead_of_making_another() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        pass();
        // the answer of the call is lost: as if the process died after the provider accepted
        SharedVolume v = volume();
        volumes.update(v.withProgress(v.progress().started(null)), v.version());
        converge();
        assertThat(files.instanceCount()).isEqualTo(1);
        assertThat(files.calls("create")).isEqualTo(1);
        assertThat(volume().state()).isEqualTo(VolumeState.ATTACHED);
    }

    @Test
    void a_crash_between_the_intent_and_the_call_makes_the_call_once_on_the_next_pass() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        SharedVolume recorded = ClusterVolumes.newVolume(cluster(), ports.catalog().account("acct").orElseThrow(), now());
        volumes.insert(recorded.withProgress(recorded.progress().intending("create-volume")));
        converge();
        assertThat(files.calls("create")).isEqualTo(1);
        assertThat(files.instanceCount()).isEqualTo(1);
        assertThat(volume().state()).isEqualTo(VolumeState.ATTACHED);
        assertThat(cluster().state()).isEqualTo(ClusterState.READY);
    }

    @Test
    void bytes_are_sampled_and_billed_by_the_hour_and_show_on_the_list_usage_and_nowhere_twice() {
        readyWithVolume();
        files.holdBytes(AT, 100L * StoragePrice.GIB);
        sampleFor(Duration.ofMinutes(150));

        VolumeView view = listVolumes.list(ALICE_TOKEN, "acme").get(0);
        assertThat(view.volume().bytesHeld()).isEqualTo(100L * StoragePrice.GIB);
        assertThat(view.attachedTo()).isEqualTo("train");
        assertThat(view.chargePerMonth()).isEqualTo(Money.parse("20.00"));
        List<StorageCharge> charges = ledger.forTenant("acme", 100);
        assertThat(charges).hasSizeGreaterThanOrEqualTo(2);
        assertThat(charges).extracting(StorageCharge::hourStart).doesNotHaveDuplicates();
        assertThat(view.charged()).isEqualTo(charges.stream().map(StorageCharge::amount).reduce(Money.ZERO, Money::plus));
        ReadUsage usage = new ReadUsage(ports.usage(), new ReadableClusters(ports.clusters(), authorizer), ledger);
        assertThat(usage.read(ALICE_TOKEN, "acme", 1000)).anyMatch(r -> r.kind().equals(StorageCharge.USAGE_KIND)
                && r.clusterId().equals(ID));
    }

    @Test
    void billed_hours_come_off_the_one_balance_the_market_checks_and_the_balance_page_shows_it() {
        ports.transactions().inTransaction(() -> {
            Market market = ports.markets().load();
            market.addTenant("acme", Money.usd(100));
            ports.markets().save(market);
            return null;
        });
        readyWithVolume();
        files.holdBytes(AT, 100L * StoragePrice.GIB);
        sampleFor(Duration.ofMinutes(150));

        Money charged = ledger.chargedTo("acme");
        assertThat(charged.micros()).isPositive();
        Market market = ports.markets().load();
        assertThat(market.tenant("acme").charged()).as("the market's charged total holds the storage charges").isEqualTo(charged);
        assertThat(market.tenant("acme").balanceMicros()).isEqualTo(Money.usd(100).micros() - charged.micros());
        ReadBalance.Balance page = new ReadBalance(new MarketCallers(ports.access(), ports.clusters(),
                new ClusterLookup(ports.clusters(), authorizer)), authorizer, ports.markets(), ports.marketLedger(), ledger)
                .read(ALICE_TOKEN, "acme");
        assertThat(page.balance()).as("counted once on the balance page").isEqualTo(Money.ofMicros(Money.usd(100).micros() - charged.micros()));
        assertThat(page.charged()).isEqualTo(charged);
        assertThat(page.entries()).anyMatch(e -> e.kind().equals("storage"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "the default: preserved                    | false | ''     | preserved",
            "opted in, nobody holds it: destroyed       | true  | ''     | deleted",
            "opted in, a node still holds it: preserved | true  | node-x | preserved"})
    void a_cluster_delete_preserves_its_volume_unless_opted_in_and_free(String rule, boolean optIn, String holder, String end) {
        readyWithVolume();
        if (!holder.isBlank()) {
            files.mountedBy(AT, holder);
        }
        deleteCluster.delete(ALICE_TOKEN, new ClusterRef("acme", ID), optIn);
        converge();
        volumeLoopUntilSettled();

        assertThat(cluster().state()).isEqualTo(ClusterState.DELETED);
        assertThat(volume().state().wire()).as(rule).isEqualTo(end);
        assertThat(files.exists(AT)).as(rule).isEqualTo(end.equals("preserved"));
        if (end.equals("preserved")) {
            VolumeView view = listVolumes.list(ALICE_TOKEN, "acme").get(0);
            assertThat(view.attachedTo()).as("preserved, no cluster").isNull();
            assertThat(events()).contains("kubernetes.volume.preserved");
        } else {
            assertThat(events()).contains("kubernetes.volume.deleting", "kubernetes.volume.deleted");
        }
    }

    @Test
    void a_person_deletes_a_preserved_volume_by_typing_its_storage_name_and_billing_stops() {
        readyWithVolume();
        files.holdBytes(AT, 10L * StoragePrice.GIB);
        deleteCluster.delete(ALICE_TOKEN, new ClusterRef("acme", ID));
        converge();
        volumeLoopUntilSettled();
        assertThat(volume().state()).isEqualTo(VolumeState.PRESERVED);
        sampleFor(Duration.ofMinutes(30));

        assertThatThrownBy(() -> deleteVolume.delete(ALICE_TOKEN, "acme", AT.name(), AT.name()))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
                    assertThat(e.details()).containsEntry("reason", "session-required");
                });
        assertThatThrownBy(() -> deleteVolume.delete(ALICE_SESSION, "acme", AT.name(), "train-shared"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT));

        SharedVolume accepted = deleteVolume.delete(ALICE_SESSION, "acme", AT.name(), AT.name());
        assertThat(accepted.state()).isEqualTo(VolumeState.DELETING);
        Money charged = ledger.chargedFor(VOLUME);
        int chargesAtDelete = ledger.forTenant("acme", 1000).size();
        sampleFor(Duration.ofHours(2));
        assertThat(ledger.chargedFor(VOLUME)).as("billing stopped once the delete was accepted").isEqualTo(charged);
        assertThat(ledger.forTenant("acme", 1000)).hasSize(chargesAtDelete);
        assertThat(volume().state()).isEqualTo(VolumeState.DELETED);
        assertThat(files.exists(AT)).isFalse();
        assertThatThrownBy(() -> deleteVolume.delete(ALICE_SESSION, "acme", AT.name(), AT.name())).as("a deleted volume is gone")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void an_attached_volume_cannot_be_deleted_and_the_refusal_names_the_cluster() {
        readyWithVolume();
        assertThatThrownBy(() -> deleteVolume.delete(ALICE_SESSION, "acme", AT.name(), AT.name()))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE);
                    assertThat(e.getMessage()).contains("train");
                    assertThat(e.details()).containsEntry("reason", "volume-attached");
                });
        assertThat(files.exists(AT)).isTrue();
    }

    // ------------------------------------------------------------------ helpers

    void readyWithVolume() {
        inserted(Instant.parse("2026-12-01T09:00:00Z"));
        converge();
        assertThat(cluster().state()).isEqualTo(ClusterState.READY);
        assertThat(volume().state()).isEqualTo(VolumeState.ATTACHED);
    }

    Instant now() {
        return ports.clock().instant();
    }

    void pass() {
        reconcile.reconcile(ID);
    }

    /** Cluster passes, time moving, until the cluster settles. */
    void converge() {
        for (int i = 0; i < 60; i++) {
            ReconcileCluster.Pass p = reconcile.reconcile(ID);
            if (p.next() == null || (p.next().compareTo(CADENCE.settled()) >= 0 && cluster().state() != ClusterState.PENDING)) {
                return;
            }
            ports.clock().advance(p.next().isZero() ? Duration.ZERO : OPERATION);
        }
    }

    /** Volume loop passes, time moving, until its volume needs nothing soon. */
    void volumeLoopUntilSettled() {
        for (int i = 0; i < 40; i++) {
            Duration next = volumeLoop.reconcile(VOLUME);
            if (next == null || next.compareTo(settings.sampleEvery()) >= 0 && volume().state() != VolumeState.DELETING) {
                return;
            }
            ports.clock().advance(next.isZero() ? Duration.ZERO : OPERATION);
        }
    }

    /** The volume loop every minute for {@code d}. */
    void sampleFor(Duration d) {
        for (long m = 0; m < d.toMinutes(); m++) {
            volumeLoop.reconcile(VOLUME);
            ports.clock().advance(Duration.ofMinutes(1));
        }
    }

    Cluster cluster() {
        return ports.clusters().find(ID).orElseThrow();
    }

    SharedVolume volume() {
        return volumes.find(VOLUME).orElseThrow();
    }

    List<String> events() {
        return ports.outbox().read(0, 1000, "acme").stream().map(e -> e.event().type()).toList();
    }

    void inserted(Instant createdAt) {
        NodePool gpu = new NodePool(Ids.nodePoolId(ID, "gpu"), ID, new NodePoolSpec("gpu", "a3-highgpu-8g", 2, null, 100, "pd-balanced",
                false, null, List.of(), Map.of(), List.of()), ClusterState.PENDING, null, 1, createdAt, createdAt);
        Cluster c = new Cluster(ID, "acme", null, POOL, "acct", "train", null, ClusterMode.STANDARD, "us-central1-a", "us-central1",
                LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null, null, List.of(), false, null, null, ClusterState.PENDING,
                null, Ids.providerName(ID), "user:alice", "fp", 1, createdAt, createdAt, null, null, List.of(gpu), Cluster.Progress.NONE);
        ports.transactions().inTransaction(() -> {
            ports.clusters().insert(c);
            return null;
        });
    }
}
