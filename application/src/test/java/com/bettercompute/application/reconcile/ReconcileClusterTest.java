package com.bettercompute.application.reconcile;

import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.NodePoolStatus;
import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.application.reconcile.ReconcileCluster.Outcome;
import com.bettercompute.application.reconcile.ReconcileCluster.Pass;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * One reconcile pass, run on the in-memory ports, the in-memory provider and a {@code MutableClock}: every
 * state the cluster can be in × what the provider shows × how the provider answers the pass's call —
 * including a process that dies between saving the intent and the call, or between the call and saving
 * its answer (the next pass adopts; nothing is created twice). Every pass makes at most two provider calls
 * but after a crash.
 */
class ReconcileClusterTest {
    static final Duration OPERATION = Duration.ofMinutes(2);
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    static final String ID = Ids.clusterId("acme", "user:alice", "key-1");
    static final ClusterLocator AT = new ClusterLocator("platform-prod", "us-central1-a", Ids.providerName(ID));
    static final Cadence CADENCE = Cadence.DEFAULT;

    final InMemoryPorts ports = InMemoryPorts.create();
    final InMemoryClusterProvider fake = new InMemoryClusterProvider(ports.clock(), OPERATION);
    final Answering provider = new Answering(fake);
    final ReconcileCluster reconcile = new ReconcileCluster(ports.transactions(), ports.clusters(), ports.catalog(), ports.access(),
            ports.outbox(), ports.usage(), account -> provider, CADENCE, ports.clock());

    ReconcileClusterTest() {
        new LoadCatalog(ports.transactions(), ports.catalog(), ports.access()).load(new Catalog(
                List.of(new Provider("gcp", true)),
                List.of(new ProviderAccount("acct", "gcp", "platform", "platform-prod", List.of("us-central1-a"))),
                List.of(new Pool(POOL, "acct", PoolKind.PROVIDER, "provider", BillingMode.METERED)),
                List.of(new Offer(POOL, "acme", true, List.of())),
                List.of(new Tenant("acme", 10)),
                List.of(), List.of(), List.of(), List.of()));
    }

    // ------------------------------------------------------------------ the table

    /** How the provider answers the pass's one call. */
    enum Answer {
        /** It accepts and starts an operation. */
        ACCEPTS,
        /** It refuses: the request is wrong as it is. */
        REFUSES,
        /** Passing trouble (another operation running): try again soon, quietly. */
        IS_BUSY,
        /** The process dies after saving the intent, before the call. */
        CRASH_BEFORE_CALL,
        /** The process dies after the provider accepted, before the answer is saved. */
        CRASH_AFTER_CALL
    }

    /** A cluster brought to a situation by real passes (and the tenant's calls), before the pass under test. */
    record Situation(String name, Function<ReconcileClusterTest, Cluster> arrange) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Situation PENDING_NOT_AT_PROVIDER = new Situation("pending, not at the provider", t -> t.inserted());
    static final Situation CONTROL_PLANE_UP = new Situation("provisioning, control plane up, pools missing", t -> {
        t.inserted();
        t.pass();
        return t.afterOperation();
    });
    static final Situation POOL_CREATED = new Situation("provisioning, our pool up, the temporary one left", t -> {
        CONTROL_PLANE_UP.arrange().apply(t);
        t.pass();
        return t.afterOperation();
    });
    static final Situation READY_VERSION_ASKED = new Situation("ready, a new version asked", t -> {
        Cluster ready = t.ready();
        return t.tenantWrites(ready.toBuilder().requestedVersion("1.33.5-gke.1162000").build().changeRequested(true, t.now()));
    });
    static final Situation READY_POOL_RESIZED = new Situation("ready, a pool resized", t -> {
        Cluster ready = t.ready();
        NodePool gpu = ready.nodePools().get(0);
        NodePool resized = gpu.withSpec(spec("gpu", 5, null), ClusterState.UPDATING, null, t.now());
        return t.tenantWrites(ready.withPoolChanged(resized, true, t.now()));
    });
    static final Situation DELETE_ASKED = new Situation("ready, delete asked", t -> t.tenantWrites(t.ready().startDeleting(t.now())));

    static Stream<Arguments> calls() {
        List<Arguments> rows = new ArrayList<>();
        // situation, the call it makes, state after ACCEPTS, state after REFUSES
        Object[][] table = {
                {PENDING_NOT_AT_PROVIDER, "create-cluster", ClusterState.PROVISIONING, ClusterState.ERROR},
                {CONTROL_PLANE_UP, "create-node-pool gpu", ClusterState.PROVISIONING, ClusterState.ERROR},
                {POOL_CREATED, "delete-node-pool bc-initial", ClusterState.PROVISIONING, ClusterState.ERROR},
                {READY_VERSION_ASKED, "set-version 1.33.5-gke.1162000", ClusterState.UPDATING, ClusterState.ERROR},
                {READY_POOL_RESIZED, "resize-node-pool gpu 5", ClusterState.UPDATING, ClusterState.ERROR},
                {DELETE_ASKED, "delete-cluster", ClusterState.DELETING, ClusterState.ERROR},
        };
        for (Object[] row : table) {
            for (Answer answer : Answer.values()) {
                rows.add(arguments(row[0], answer, row[1], row[2], row[3]));
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}, the provider {1}: {2}")
    @MethodSource("calls")
    void a_pass_that_calls_the_provider(Situation situation, Answer answer, String call, ClusterState accepted, ClusterState refused) {
        Cluster before = situation.arrange().apply(this);
        List<String> eventsBefore = eventTypes();
        provider.next(answer);

        if (answer == Answer.CRASH_BEFORE_CALL || answer == Answer.CRASH_AFTER_CALL) {
            assertThatThrownBy(this::pass).isInstanceOf(Crash.class);
            Cluster intent = stored();
            assertThat(intent.progress().pendingAction()).as("the intent was saved before the call").isEqualTo(call);
            assertThat(intent.progress().operation()).as("the answer was not").isNull();
            int made = provider.changes();
            // The next pass adopts what the call started (the provider shows it at work), or makes the call that never left.
            Pass next = pass();
            if (answer == Answer.CRASH_AFTER_CALL) {
                assertThat(provider.changes()).as("what the call started is adopted, never asked twice").isEqualTo(made);
                assertThat(next.providerCalls()).isEqualTo(1);
            } else {
                assertThat(provider.changes()).as("the call that never left is made once").isEqualTo(made + 1);
                assertThat(provider.lastChange()).isEqualTo(call);
                assertThat(next.providerCalls()).as("observe, the list of operations (the lost name), the call").isLessThanOrEqualTo(3);
            }
            assertThat(converge().state()).isIn(ClusterState.READY, ClusterState.DELETED);
            assertThat(fake.callsByMethod().getOrDefault("createCluster", 0)).as("one cluster, ever").isEqualTo(1);
            return;
        }

        Pass pass = pass();
        Cluster after = stored();
        assertThat(provider.lastChange()).isEqualTo(call);
        assertThat(pass.providerCalls()).as("observe and the call").isEqualTo(2);
        assertThat(provider.callsInPass()).isEqualTo(2);
        switch (answer) {
            case ACCEPTS -> {
                assertThat(pass.outcome()).isEqualTo(Outcome.ACCEPTED);
                assertThat(after.state()).isEqualTo(accepted);
                assertThat(after.progress().pendingAction()).isEqualTo(call);
                assertThat(after.progress().operation()).as("the operation to poll").isEqualTo(provider.lastOperation()).isNotNull();
                assertThat(pass.next()).isEqualTo(CADENCE.converging());
                assertThat(newEvents(eventsBefore)).doesNotContain("kubernetes.cluster.error");
            }
            case REFUSES -> {
                assertThat(pass.outcome()).isEqualTo(Outcome.REFUSED);
                assertThat(after.state()).isEqualTo(refused);
                assertThat(after.message()).isEqualTo("refused: " + call);
                assertThat(after.progress().pendingAction()).isNull();
                assertThat(after.progress().failures()).isEqualTo(before.progress().failures() + 1);
                assertThat(newEvents(eventsBefore)).contains("kubernetes.cluster.error");
                assertThat(pass.next()).isEqualTo(CADENCE.settled());
            }
            case IS_BUSY -> {
                assertThat(pass.outcome()).isEqualTo(Outcome.REFUSED);
                assertThat(after.state()).as("passing trouble shows nothing").isNotEqualTo(ClusterState.ERROR);
                assertThat(newEvents(eventsBefore)).doesNotContain("kubernetes.cluster.error");
                assertThat(pass.next()).isEqualTo(CADENCE.converging());
            }
            default -> throw new IllegalStateException();
        }
    }

    @Test
    void a_refused_delete_is_retried_with_a_growing_wait_and_publishes_one_error() {
        DELETE_ASKED.arrange().apply(this);
        List<String> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            provider.next(Answer.REFUSES);
            waits.add(pass().next().toString());
            ports.clock().advance(Duration.ofHours(7));
        }
        assertThat(waits).containsExactly("PT5M", "PT10M", "PT20M");
        assertThat(eventTypes().stream().filter(e -> e.equals("kubernetes.cluster.error"))).hasSize(1);
        assertThat(stored().state()).isEqualTo(ClusterState.ERROR);
        pass();
        afterOperation();
        assertThat(converge().state()).isEqualTo(ClusterState.DELETED);
    }

    /**
     * GKE refuses to turn Identity Service for GKE back on: the cluster stays ready, the refusal is its message and one
     * {@code updated} event, nothing is asked of GKE for an hour while drift of the tenant's is still put back, and the
     * hour after the saved refusal it is asked again.
     */
    @Test
    void a_refused_identity_service_leaves_the_cluster_ready_with_the_refusal_recorded_once_and_is_asked_again_an_hour_later() {
        ready();
        fake.updateCluster(AT, new ClusterChange.IdentityService(false));
        afterOperation();
        List<String> before = eventTypes();

        provider.next(Answer.IS_BUSY);
        Pass refused = pass();
        Instant refusedAt = now();
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(provider.lastChange()).isEqualTo("set-identity-service on");
        Cluster noted = stored();
        assertThat(noted.state()).isEqualTo(ClusterState.READY);
        assertThat(noted.message()).startsWith("GKE refused to turn on Identity Service for GKE: Cluster is running incompatible operation.")
                .contains("Signing in to this cluster with kubectl (approving a sign-in code) cannot work until it is on");
        assertThat(noted.progress().identityServiceRefusedAt()).isEqualTo(refusedAt);
        assertThat(newEvents(before)).containsExactly("kubernetes.cluster.updated");
        assertThat(ports.outbox().all().get(ports.outbox().all().size() - 1).event().data())
                .containsEntry("state", "ready").containsEntry("message", noted.message());
        assertThat(refused.next()).isEqualTo(CADENCE.settled());

        int changes = provider.changes();
        for (int i = 0; i < 6; i++) {
            ports.clock().advance(CADENCE.settled());
            pass();
            assertThat(provider.methods()).as("half an hour of passes only look").containsExactly("observe");
        }
        assertThat(provider.changes()).isEqualTo(changes);
        assertThat(stored().version()).as("nothing the API shows changed").isEqualTo(noted.version());
        assertThat(newEvents(before)).as("the refusal is recorded once").containsExactly("kubernetes.cluster.updated");

        fake.resizeNodePool(AT, "gpu", 5);
        afterOperation();
        pass();
        assertThat(provider.lastChange()).as("the refusal holds up no other change").isEqualTo("resize-node-pool gpu 2");
        assertThat(converge().state()).isEqualTo(ClusterState.READY);
        assertThat(fake.observe(AT).identityService()).isFalse();

        ports.clock().advance(Duration.between(now(), refusedAt.plus(Duration.ofHours(1))));
        pass();
        assertThat(provider.lastChange()).as("asked again an hour after the refusal").isEqualTo("set-identity-service on");
        afterOperation();
        Cluster back = converge();
        assertThat(fake.observe(AT).identityService()).isTrue();
        assertThat(back.state()).isEqualTo(ClusterState.READY);
        assertThat(back.message()).isNull();
        assertThat(back.progress().identityServiceRefusedAt()).isNull();
    }

    /**
     * GKE refuses the create because of Identity Service for GKE (an organization it does not offer it to): the next pass,
     * at once, creates the cluster without it under the same name (a crash after that call adopts, nothing is created
     * twice), the cluster is ready with GKE's reason as its message in its one {@code ready} event, and an hour after the
     * refusal the update is asked again and its refusal changes nothing more.
     */
    @Test
    void a_create_refused_for_identity_service_is_made_again_without_it_ready_with_the_refusal_and_asked_again_an_hour_later() {
        fake.refuseIdentityService();
        inserted();
        Pass refused = pass();
        Instant refusedAt = now();
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.next()).as("created again at once").isEqualTo(Duration.ZERO);
        assertThat(fake.observe(AT).exists()).isFalse();
        Cluster noted = stored();
        assertThat(noted.state()).isEqualTo(ClusterState.PENDING);
        assertThat(noted.message()).startsWith("GKE refused to turn on Identity Service for GKE: "
                + InMemoryClusterProvider.IDENTITY_SERVICE_NOT_OFFERED).contains("cannot work until it is on");
        assertThat(noted.progress().identityServiceRefusedAt()).isEqualTo(refusedAt);

        provider.next(Answer.CRASH_AFTER_CALL);
        assertThatThrownBy(this::pass).isInstanceOf(Crash.class);
        assertThat(fake.observe(AT).exists()).isTrue();
        assertThat(fake.observe(AT).identityService()).isFalse();
        Cluster up = converge();
        assertThat(fake.callsByMethod().get("createCluster")).as("the refused create and the one without, adopted after the crash")
                .isEqualTo(2);
        assertThat(up.state()).isEqualTo(ClusterState.READY);
        assertThat(up.nodePools().get(0).state()).isEqualTo(ClusterState.READY);
        assertThat(up.message()).isEqualTo(noted.message());
        assertThat(eventTypes().stream().filter(t -> t.startsWith("kubernetes.cluster.")).toList()).containsExactly("kubernetes.cluster.ready");
        assertThat(ports.outbox().all().stream().filter(e -> e.event().type().equals("kubernetes.cluster.ready")).findFirst().orElseThrow()
                .event().data()).containsEntry("state", "ready").containsEntry("message", noted.message());
        assertThat(fake.callsByMethod()).as("not asked by update within the hour").doesNotContainKey("updateCluster");

        List<String> before = eventTypes();
        ports.clock().advance(Duration.between(now(), refusedAt.plus(Duration.ofHours(1))));
        Pass again = pass();
        assertThat(provider.lastChange()).as("asked again an hour after the refusal").isEqualTo("set-identity-service on");
        assertThat(again.outcome()).isEqualTo(Outcome.REFUSED);
        Cluster still = stored();
        assertThat(still.state()).isEqualTo(ClusterState.READY);
        assertThat(still.message()).isEqualTo(noted.message());
        assertThat(still.version()).as("nothing the API shows changed").isEqualTo(up.version());
        assertThat(newEvents(before)).as("the same refusal is recorded once").isEmpty();
        assertThat(still.progress().identityServiceRefusedAt()).isEqualTo(now());
    }

    // ------------------------------------------------------------------ passes without a call

    static Stream<Arguments> looks() {
        return Stream.of(
                arguments("provisioning: the provider works on it", (Function<ReconcileClusterTest, Cluster>) t -> {
                    t.inserted();
                    t.pass();
                    return t.stored();
                }, ClusterState.PROVISIONING, List.of(), CADENCE.converging()),
                arguments("the last step landed: ready, the first time", (Function<ReconcileClusterTest, Cluster>) t -> {
                    POOL_CREATED.arrange().apply(t);
                    t.pass();
                    return t.afterOperation();
                }, ClusterState.READY, List.of("kubernetes.cluster.ready", "kubernetes.nodepool.ready"), CADENCE.settled()),
                arguments("ready and as asked: a refresh", (Function<ReconcileClusterTest, Cluster>) t -> t.ready(),
                        ClusterState.READY, List.of(), CADENCE.settled()),
                arguments("ready, but deleted at the provider behind our back", (Function<ReconcileClusterTest, Cluster>) t -> {
                    Cluster c = t.ready();
                    t.fake.deleteBehindTheBack(AT);
                    return c;
                }, ClusterState.ERROR, List.of("kubernetes.cluster.error"), CADENCE.settled()),
                arguments("a release-channel upgrade at the provider", (Function<ReconcileClusterTest, Cluster>) t -> {
                    Cluster c = t.ready();
                    t.fake.releaseChannelUpgrade(AT, "1.34.1-gke.1829001");
                    return c;
                }, ClusterState.READY, List.of("kubernetes.cluster.updated"), CADENCE.settled()),
                arguments("a foreign cluster under our name", (Function<ReconcileClusterTest, Cluster>) t -> {
                    Cluster c = t.inserted();
                    t.fake.putForeignCluster(AT);
                    return c;
                }, ClusterState.ERROR, List.of("kubernetes.cluster.error"), CADENCE.settled()),
                arguments("being deleted at the provider", (Function<ReconcileClusterTest, Cluster>) t -> {
                    DELETE_ASKED.arrange().apply(t);
                    t.pass();
                    return t.stored();
                }, ClusterState.DELETING, List.of(), CADENCE.converging()),
                arguments("deleted at the provider", (Function<ReconcileClusterTest, Cluster>) t -> {
                    DELETE_ASKED.arrange().apply(t);
                    t.pass();
                    return t.afterOperation();
                }, ClusterState.DELETED, List.of("kubernetes.cluster.deleted"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("looks")
    void a_pass_that_only_looks(String situation, Function<ReconcileClusterTest, Cluster> arrange, ClusterState state,
                                List<String> events, Duration next) {
        arrange.apply(this);
        List<String> before = eventTypes();
        int changes = provider.changes();
        Pass pass = pass();
        assertThat(provider.changes()).as("no call").isEqualTo(changes);
        assertThat(pass.providerCalls()).as("one read of the cluster").isEqualTo(1);
        assertThat(stored().state()).isEqualTo(state);
        assertThat(newEvents(before)).containsExactlyElementsOf(events);
        assertThat(pass.next()).isEqualTo(next);
        assertThat(stored().progress().nextAttemptAt()).isEqualTo(next == null ? null : now().plus(next));
    }

    // ------------------------------------------------------------------ our operation

    @Test
    void an_operation_that_failed_is_read_once_and_shows_its_message() {
        Cluster ready = READY_POOL_RESIZED.arrange().apply(this);
        fake.failNextOperation("Insufficient quota to resize: GPUS.");
        pass();
        afterOperation();
        Pass pass = pass();
        assertThat(pass.providerCalls()).as("observe, then our operation").isEqualTo(2);
        assertThat(provider.methods()).containsExactly("observe", "operation");
        Cluster failed = stored();
        assertThat(failed.state()).isEqualTo(ClusterState.ERROR);
        assertThat(failed.message()).isEqualTo("Insufficient quota to resize: GPUS.");
        assertThat(failed.nodePools().get(0).state()).isEqualTo(ClusterState.ERROR);
        assertThat(ready.state()).isEqualTo(ClusterState.UPDATING);
    }

    @Test
    void an_operation_still_pending_while_the_cluster_looks_settled_is_waited_for() {
        READY_POOL_RESIZED.arrange().apply(this);
        provider.hideWork(true);
        pass();
        Pass pass = pass();
        assertThat(provider.methods()).containsExactly("observe", "operation");
        assertThat(pass.outcome()).isEqualTo(Outcome.SAVED);
        assertThat(stored().state()).isEqualTo(ClusterState.UPDATING);
        assertThat(provider.changes()).isEqualTo(4);
    }

    @Test
    void a_settled_cluster_is_seen_with_one_call_per_pass() {
        ready();
        for (int i = 0; i < 5; i++) {
            ports.clock().advance(CADENCE.settled());
            assertThat(pass().providerCalls()).isEqualTo(1);
            assertThat(provider.methods()).containsExactly("observe");
        }
        assertThat(fake.callsByMethod()).doesNotContainKey("listOperations");
    }

    @Test
    void a_provider_that_cannot_be_seen_is_looked_at_again_soon() {
        Cluster c = ready();
        fake.failNextCall(new ProviderException(Kind.UNAVAILABLE, "connection refused"));
        Pass pass = pass();
        assertThat(pass.outcome()).isEqualTo(Outcome.UNOBSERVED);
        assertThat(pass.next()).isEqualTo(CADENCE.converging());
        assertThat(stored().version()).isEqualTo(c.version());
    }

    @Test
    void a_row_changed_by_the_tenant_during_the_pass_is_left_to_the_next_pass() {
        Cluster ready = READY_VERSION_ASKED.arrange().apply(this);
        provider.beforeNextChange(() -> tenantWrites(ready.toBuilder().description("changed meanwhile").build()
                .changeRequested(false, now())));
        Pass pass = pass();
        assertThat(pass.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(pass.next()).isEqualTo(Duration.ZERO);
        assertThat(stored().description()).isEqualTo("changed meanwhile");
        afterOperation();
        assertThat(converge().state()).isEqualTo(ClusterState.READY);
    }

    @Test
    void a_full_life_takes_at_most_two_provider_calls_a_pass() {
        inserted();
        List<Integer> calls = new ArrayList<>();
        for (int i = 0; i < 40 && stored().state() != ClusterState.READY; i++) {
            calls.add(pass().providerCalls());
            ports.clock().advance(OPERATION.dividedBy(2));
        }
        tenantWrites(stored().startDeleting(now()));
        for (int i = 0; i < 40 && stored().state() != ClusterState.DELETED; i++) {
            calls.add(pass().providerCalls());
            ports.clock().advance(OPERATION.dividedBy(2));
        }
        assertThat(stored().state()).isEqualTo(ClusterState.DELETED);
        assertThat(calls).allMatch(n -> n <= 2);
        assertThat(fake.callsByMethod()).doesNotContainKey("listOperations");
    }

    // ------------------------------------------------------------------ helpers

    Instant now() {
        return ports.clock().instant();
    }

    Pass pass() {
        provider.startPass();
        return reconcile.reconcile(ID);
    }

    Cluster stored() {
        return ports.clusters().find(ID).orElseThrow();
    }

    Cluster inserted() {
        Instant now = now();
        NodePool gpu = new NodePool(Ids.nodePoolId(ID, "gpu"), ID, spec("gpu", 2, null), ClusterState.PENDING, null, 1, now, now);
        Cluster c = new Cluster(ID, "acme", null, POOL, "acct", "train", null, ClusterMode.STANDARD, "us-central1-a", "us-central1",
                LocationType.ZONAL, ReleaseChannel.REGULAR, null, null, null, null, List.of(), false, null, null, ClusterState.PENDING,
                null, Ids.providerName(ID), "user:alice", "fp", 1, now, now, null, null, List.of(gpu), Cluster.Progress.NONE);
        ports.transactions().inTransaction(() -> {
            ports.clusters().insert(c);
            return null;
        });
        return c;
    }

    static NodePoolSpec spec(String name, int nodes, Autoscaling autoscaling) {
        return new NodePoolSpec(name, "a3-highgpu-8g", nodes, autoscaling, 100, "pd-balanced", false, null, List.of(),
                Map.of("team", "ml"), List.of(new Taint("gpu", null, com.bettercompute.domain.cluster.TaintEffect.NoSchedule)));
    }

    /** An API write of the tenant's fields over the stored row. */
    Cluster tenantWrites(Cluster changed) {
        Cluster current = stored();
        Cluster next = changed.toBuilder().version(current.version() + 1).build();
        assertThat(ports.transactions().inTransaction(() -> ports.clusters().updateRequest(next, current.version()))).isTrue();
        return stored();
    }

    /** Moves the clock past every operation started so far. */
    Cluster afterOperation() {
        ports.clock().advance(OPERATION);
        return stored();
    }

    /** Passes until nothing is left to do, the clock moving past each operation. */
    Cluster converge() {
        for (int i = 0; i < 20; i++) {
            Cluster c = stored();
            if (c.state() == ClusterState.DELETED || (c.state() == ClusterState.READY && c.progress().pendingAction() == null
                    && !fake.observe(AT).busy())) {
                return c;
            }
            pass();
            afterOperation();
        }
        return stored();
    }

    Cluster ready() {
        inserted();
        Cluster c = converge();
        assertThat(c.state()).isEqualTo(ClusterState.READY);
        return c;
    }

    List<String> eventTypes() {
        return ports.outbox().all().stream().map(e -> e.event().type()).toList();
    }

    List<String> newEvents(List<String> before) {
        List<String> all = eventTypes();
        return all.subList(before.size(), all.size());
    }

    /** The process died in the middle of a pass. */
    static final class Crash extends RuntimeException {
        Crash() {
            super("the process died here");
        }
    }

    /**
     * The in-memory provider behind a hand that answers the next mutating call as a row of the table says, and
     * counts the calls of each pass.
     */
    static final class Answering implements ClusterProvider {
        private final InMemoryClusterProvider fake;
        private Answer next = Answer.ACCEPTS;
        private Runnable beforeNextChange = () -> { };
        private boolean hideWork;
        private final List<String> methods = new ArrayList<>();
        private int changes;
        private String lastChange;
        private String lastOperation;

        Answering(InMemoryClusterProvider fake) {
            this.fake = fake;
        }

        void next(Answer answer) {
            next = answer;
        }

        void beforeNextChange(Runnable r) {
            beforeNextChange = r;
        }

        /** The cluster's and pools' statuses show no work in flight, as GKE's may for a moment after it accepted a call. */
        void hideWork(boolean hide) {
            hideWork = hide;
        }

        void startPass() {
            methods.clear();
        }

        List<String> methods() {
            return List.copyOf(methods);
        }

        int callsInPass() {
            return methods.size();
        }

        int changes() {
            return changes;
        }

        String lastChange() {
            return lastChange;
        }

        String lastOperation() {
            return lastOperation;
        }

        private String change(String label, java.util.function.Supplier<String> call) {
            Answer answer = next;
            next = Answer.ACCEPTS;
            Runnable before = beforeNextChange;
            beforeNextChange = () -> { };
            before.run();
            if (answer == Answer.CRASH_BEFORE_CALL) {
                throw new Crash();
            }
            methods.add(label.split(" ")[0]);
            changes++;
            lastChange = label;
            if (answer == Answer.REFUSES) {
                throw new ProviderException(Kind.INVALID, "refused: " + label);
            }
            if (answer == Answer.IS_BUSY) {
                throw new ProviderException(Kind.FAILED_PRECONDITION, "Cluster is running incompatible operation.");
            }
            lastOperation = call.get();
            if (answer == Answer.CRASH_AFTER_CALL) {
                throw new Crash();
            }
            return lastOperation;
        }

        @Override
        public ClusterObservation observe(ClusterLocator at) {
            methods.add("observe");
            ClusterObservation o = fake.observe(at);
            if (!hideWork || !o.exists()) {
                return o;
            }
            return new ClusterObservation(true, o.clusterId(), com.bettercompute.application.port.ClusterStatus.RUNNING,
                    o.statusMessage(), o.mode(), o.endpoint(), o.caCertificate(), o.masterVersion(), o.nodeVersion(), o.releaseChannel(),
                    o.authorizedNetworks(), o.privateNodes(), o.nodePools().stream().map(p -> new NodePoolObservation(p.name(), NodePoolStatus.RUNNING, p.version(), p.nodeCount(),
                    p.autoscaling(), p.machineType(), p.diskGiB(), p.diskType(), p.spot(), p.accelerator(), p.zones(), p.labels(),
                    p.taints(), p.statusMessage())).toList(), o.identityService());
        }

        @Override
        public OperationStatus operation(ClusterLocator at, String name) {
            methods.add(name == null ? "listOperations" : "operation");
            return fake.operation(at, name);
        }

        @Override
        public String createCluster(ClusterSpec spec) {
            return change("create-cluster", () -> fake.createCluster(spec));
        }

        @Override
        public String updateCluster(ClusterLocator at, ClusterChange change) {
            return change(new ProviderAction.ChangeCluster(change).label(), () -> fake.updateCluster(at, change));
        }

        @Override
        public String deleteCluster(ClusterLocator at) {
            return change("delete-cluster", () -> fake.deleteCluster(at));
        }

        @Override
        public String createNodePool(ClusterLocator at, NodePoolSpec pool) {
            return change("create-node-pool " + pool.name(), () -> fake.createNodePool(at, pool));
        }

        @Override
        public String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
            return change("resize-node-pool " + pool + " " + nodeCount, () -> fake.resizeNodePool(at, pool, nodeCount));
        }

        @Override
        public String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
            return change(new ProviderAction.SetAutoscaling(pool, autoscaling).label(), () -> fake.setNodePoolAutoscaling(at, pool, autoscaling));
        }

        @Override
        public String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints) {
            return change(new ProviderAction.SetLabelsAndTaints(pool, labels, taints).label(),
                    () -> fake.updateNodePoolLabelsAndTaints(at, pool, labels, taints));
        }

        @Override
        public String deleteNodePool(ClusterLocator at, String pool) {
            return change("delete-node-pool " + pool, () -> fake.deleteNodePool(at, pool));
        }

        @Override
        public ServerConfig serverConfig(String project, String location) {
            return fake.serverConfig(project, location);
        }
    }
}
