package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterStatus;
import com.bettercompute.application.port.NodePoolObservation;
import com.bettercompute.application.port.NodePoolStatus;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The reconciler's decisions, one situation per test, on a virtual clock and without threads. */
class ClusterDeciderTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final Cadence CADENCE = Cadence.DEFAULT;
    static final ClusterDecider DECIDER = new ClusterDecider(CADENCE);

    static Decided decide(Cluster c, com.bettercompute.application.port.ClusterObservation obs, ClusterLocator at, Instant now) {
        return new Decided(DECIDER.decide(c, obs, at, now));
    }
    static final String ID = Ids.clusterId("acme", "user:a", "k");
    static final ClusterLocator AT = new ClusterLocator("platform-prod", "us-central1-a", Ids.providerName(ID));
    static final String V1 = "1.33.4-gke.100";
    static final String V2 = "1.34.1-gke.200";

    static Cluster cluster(ClusterMode mode, ClusterState state, String... pools) {
        List<NodePool> nps = new ArrayList<>();
        for (String p : pools) {
            nps.add(new NodePool(Ids.nodePoolId(ID, p), ID, new NodePoolSpec(p, "a3-highgpu-8g", 2, null, 100, "pd-balanced", false, null,
                    List.of(), Map.of(), List.of()), state == ClusterState.READY ? ClusterState.READY : ClusterState.PENDING, null, 1, NOW, NOW));
        }
        return new Cluster(ID, "acme", null, "pool_x", "acct", "train", null, mode, "us-central1-a", "us-central1", LocationType.ZONAL,
                ReleaseChannel.REGULAR, null, null, null, null, List.of(), false, null, null, state, null,
                Ids.providerName(ID), "user:a", "fp", 1, NOW, NOW, null, null, nps, Cluster.Progress.NONE);
    }

    static Cluster accepted(Cluster c) {
        return c.toBuilder().progress(new Cluster.Progress(null, NOW.minusSeconds(600), null, 0, null, null)).build();
    }

    static Cluster wasReady(Cluster c, ClusterState state) {
        return accepted(c).toBuilder().state(state).readyAt(NOW.minusSeconds(300)).kubernetesVersion(V1).nodeVersion(V1).build();
    }

    static Cluster intent(Cluster c, String label) {
        Cluster.Progress p = c.progress();
        return c.toBuilder().progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), label, p.failures(), null, null,
                "operation-1")).build();
    }

    /** The intent was saved, and the process died before the provider's answer was: no operation name. */
    static Cluster intentWithoutAnswer(Cluster c, String label) {
        return c.toBuilder().progress(c.progress().intending(label)).build();
    }

    static Cluster deleteRequested(Cluster c) {
        return c.toBuilder().state(ClusterState.DELETING).progress(c.progress().withDeleteRequestedAt(NOW.minusSeconds(5))).build();
    }

    static ClusterObservation running(ClusterMode mode, List<String> pools) {
        return observation(mode, ClusterStatus.RUNNING, V1, pools, false, null);
    }

    static ClusterObservation observation(ClusterMode mode, ClusterStatus status, String version, List<String> pools, boolean busy, String opError) {
        List<NodePoolObservation> nps = new ArrayList<>();
        for (String p : pools) {
            nps.add(new NodePoolObservation(p, NodePoolStatus.RUNNING, version, 2, null, "a3-highgpu-8g", 100, "pd-balanced", false, null,
                    List.of(), Map.of(), List.of(), null));
        }
        return new ClusterObservation(true, ID, status, null, mode, "10.0.0.1", "Q0E=", version, version, ReleaseChannel.REGULAR,
                List.of(), false, nps, mode == ClusterMode.STANDARD);
    }

    @Test
    void a_pending_cluster_missing_at_the_provider_is_created_and_the_intent_recorded() {
        Decided d = decide(cluster(ClusterMode.STANDARD, ClusterState.PENDING, "gpu"), ClusterObservation.absent(), AT, NOW);
        assertThat(d.action()).isInstanceOfSatisfying(ProviderAction.CreateCluster.class, a -> {
            assertThat(a.spec().at()).isEqualTo(AT);
            assertThat(a.spec().clusterId()).isEqualTo(ID);
            assertThat(a.spec().mode()).isEqualTo(ClusterMode.STANDARD);
        });
        assertThat(d.next().state()).isEqualTo(ClusterState.PENDING);
        assertThat(d.next().progress().pendingAction()).isEqualTo("create-cluster");
        assertThat(d.requeue()).isEqualTo(CADENCE.converging());
        Decided after = d.accepted();
        assertThat(after.next().state()).isEqualTo(ClusterState.PROVISIONING);
        assertThat(after.next().progress().providerAcceptedAt()).isEqualTo(NOW);
    }

    @Test
    void a_cluster_still_provisioning_is_waited_for() {
        Cluster c = accepted(cluster(ClusterMode.STANDARD, ClusterState.PROVISIONING, "gpu"));
        Decided d = decide(c, observation(ClusterMode.STANDARD, ClusterStatus.PROVISIONING, V1, List.of(ClusterProvider.INITIAL_NODE_POOL), true, null), AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.PROVISIONING);
        assertThat(d.next().kubernetesVersion()).isEqualTo(V1);
        assertThat(d.requeue()).isEqualTo(CADENCE.converging());
    }

    @Test
    void a_created_cluster_found_after_a_crash_is_adopted_not_created_again() {
        Cluster c = cluster(ClusterMode.STANDARD, ClusterState.PENDING, "gpu");
        Decided d = decide(c, observation(ClusterMode.STANDARD, ClusterStatus.PROVISIONING, V1, List.of(), true, null), AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.PROVISIONING);
        assertThat(d.next().progress().providerAcceptedAt()).isEqualTo(NOW);
    }

    @Test
    void standard_node_pools_are_created_one_at_a_time_once_the_control_plane_runs_then_the_temporary_pool_goes() {
        Cluster c = accepted(cluster(ClusterMode.STANDARD, ClusterState.PROVISIONING, "gpu", "cpu"));
        Decided first = decide(c, running(ClusterMode.STANDARD, List.of(ClusterProvider.INITIAL_NODE_POOL)), AT, NOW);
        assertThat(first.action()).isInstanceOfSatisfying(ProviderAction.CreateNodePool.class, a -> assertThat(a.spec().name()).isEqualTo("gpu"));
        assertThat(first.accepted().next().nodePools().get(0).state()).isEqualTo(ClusterState.PROVISIONING);
        Decided second = decide(c, running(ClusterMode.STANDARD, List.of(ClusterProvider.INITIAL_NODE_POOL, "gpu")), AT, NOW);
        assertThat(second.action()).isInstanceOfSatisfying(ProviderAction.CreateNodePool.class, a -> assertThat(a.spec().name()).isEqualTo("cpu"));
        Decided third = decide(c, running(ClusterMode.STANDARD, List.of(ClusterProvider.INITIAL_NODE_POOL, "gpu", "cpu")), AT, NOW);
        assertThat(third.action()).isEqualTo(new ProviderAction.DeleteNodePool(ClusterProvider.INITIAL_NODE_POOL));
        assertThat(third.next().state()).isEqualTo(ClusterState.PROVISIONING);
    }

    @Test
    void a_pool_the_provider_is_still_deleting_is_waited_for_not_taken_for_a_failure() {
        Cluster c = intent(accepted(cluster(ClusterMode.STANDARD, ClusterState.PROVISIONING, "gpu")),
                "delete-node-pool " + ClusterProvider.INITIAL_NODE_POOL);
        ClusterObservation obs = new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", null, V1, V1,
                ReleaseChannel.REGULAR, List.of(), false, List.of(
                new NodePoolObservation(ClusterProvider.INITIAL_NODE_POOL, NodePoolStatus.STOPPING, V1, 1, null, "e2-small", 30,
                        "pd-standard", false, null, List.of(), Map.of(), List.of(), null),
                new NodePoolObservation("gpu", NodePoolStatus.RUNNING, V1, 2, null, "a3-highgpu-8g", 100,
                        "pd-balanced", false, null, List.of(), Map.of(), List.of(), null)), true);
        Decided d = decide(c, obs, AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.PROVISIONING);
        assertThat(d.events()).isEmpty();
    }

    @Test
    void ready_the_first_time_publishes_ready_once() {
        Cluster c = accepted(cluster(ClusterMode.STANDARD, ClusterState.PROVISIONING, "gpu"));
        Decided d = decide(c, running(ClusterMode.STANDARD, List.of("gpu")), AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.READY);
        assertThat(d.next().readyAt()).isEqualTo(NOW);
        assertThat(d.next().endpoint()).isEqualTo("10.0.0.1");
        assertThat(d.next().nodePools()).extracting(NodePool::state).containsOnly(ClusterState.READY);
        assertThat(d.events()).containsExactly("kubernetes.cluster.ready");
        assertThat(d.requeue()).isEqualTo(CADENCE.settled());
        Decided again = decide(d.next(), running(ClusterMode.STANDARD, List.of("gpu")), AT, NOW.plusSeconds(300));
        assertThat(again.events()).isEmpty();
        assertThat(ClusterDecider.visible(d.next(), again.next())).isFalse();
    }

    @Test
    void an_autopilot_cluster_has_no_pools_to_make() {
        Cluster c = accepted(cluster(ClusterMode.AUTOPILOT, ClusterState.PROVISIONING));
        Decided d = decide(c, running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        assertThat(d.next().state()).isEqualTo(ClusterState.READY);
        assertThat(d.events()).containsExactly("kubernetes.cluster.ready");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "a pinned minor the provider does not run, version, 1.34, set-version 1.34",
            "another release channel, channel, STABLE, set-release-channel stable",
            "other authorized networks, networks, 10.0.0.0/8, set-authorized-networks 10.0.0.0/8"})
    void one_change_at_a_time_turns_a_ready_cluster_updating(String why, String field, String value, String label) {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING);
        Cluster.Builder b = c.toBuilder();
        switch (field) {
            case "version" -> b.requestedVersion(value);
            case "channel" -> b.releaseChannel(com.bettercompute.domain.cluster.ReleaseChannel.valueOf(value));
            default -> b.authorizedNetworks(List.of(value));
        }
        Decided d = decide(b.build(), running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        assertThat(d.action().label()).isEqualTo(label);
        assertThat(d.action()).isInstanceOf(ProviderAction.ChangeCluster.class);
        assertThat(d.next().state()).isEqualTo(ClusterState.UPDATING);
    }

    /**
     * Identity Service for GKE on a Standard cluster, as the platform needs it for people's sign-in: turned on by an
     * update when the provider shows it off, after any other drift, never while an operation runs (ours found after a
     * crash included: it is waited for, not sent again), never on Autopilot.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a ready Standard cluster with it off gets it                              | STANDARD  | false | RUNNING     | false | false | ''        | set-identity-service on
            a ready Standard cluster with it on is left alone                         | STANDARD  | true  | RUNNING     | false | false | ''        | none
            an Autopilot cluster never gets it: GKE refuses it there                  | AUTOPILOT | false | RUNNING     | false | false | ''        | none
            other drift is fixed first, one update at a time                          | STANDARD  | false | RUNNING     | true  | false | ''        | set-authorized-networks 10.0.0.0/8
            nothing is sent while the provider runs an operation on the cluster       | STANDARD  | false | RECONCILING | false | false | ''        | none
            after a crash during the call, the operation it started is waited for     | STANDARD  | false | RECONCILING | false | true  | ''        | none
            after a crash, an operation of the cluster still listed running is waited | STANDARD  | false | RUNNING     | false | true  | RUNNING   | none
            after a crash, with nothing running and it still off, it is asked again   | STANDARD  | false | RUNNING     | false | true  | SUCCEEDED | set-identity-service on
            after a crash, with it on, the cluster is ready                           | STANDARD  | true  | RUNNING     | false | true  | ''        | none
            """)
    void identity_service_is_turned_on_for_a_standard_cluster_the_provider_shows_without_it(String why, ClusterMode mode, boolean on,
            ClusterStatus status, boolean otherNetworks, boolean lostAnswer, String listed, String call) {
        Cluster c = wasReady(cluster(mode, ClusterState.READY), ClusterState.READY);
        if (otherNetworks) {
            c = c.toBuilder().authorizedNetworks(List.of("10.0.0.0/8")).build();
        }
        if (lostAnswer) {
            c = intentWithoutAnswer(c.toBuilder().state(ClusterState.UPDATING).build(), "set-identity-service on");
        }
        ClusterObservation obs = new ClusterObservation(true, ID, status, null, mode, "10.0.0.1", "Q0E=", V1, V1, ReleaseChannel.REGULAR,
                List.of(), false, List.of(), on);
        Decided d = decide(c, obs, AT, NOW);
        if (d.asksOperation()) {
            assertThat(listed).as("the pass asks how the cluster's operation stands").isNotEmpty();
            d = d.then("RUNNING".equals(listed) ? OperationStatus.RUNNING : OperationStatus.SUCCEEDED);
        }
        assertThat(d.action() == null ? "none" : d.action().label()).isEqualTo(call);
        if (call.equals("set-identity-service on")) {
            assertThat(d.action()).isEqualTo(new ProviderAction.ChangeCluster(new ClusterChange.IdentityService(true)));
            assertThat(d.next().state()).isEqualTo(ClusterState.UPDATING);
        }
    }

    @Test
    void a_standard_cluster_given_identity_service_is_ready_again_and_published_updated() {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY), ClusterState.READY);
        ClusterObservation off = new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", "Q0E=", V1, V1,
                ReleaseChannel.REGULAR, List.of(), false, List.of(), false);
        Cluster asked = decide(c, off, AT, NOW).accepted().next();
        assertThat(asked.state()).isEqualTo(ClusterState.UPDATING);
        Decided after = decide(asked, running(ClusterMode.STANDARD, List.of()), AT, NOW.plusSeconds(60));
        assertThat(after.acts()).isFalse();
        assertThat(after.next().state()).isEqualTo(ClusterState.READY);
        assertThat(after.events()).containsExactly("kubernetes.cluster.updated");
    }

    static final String REFUSAL = "Identity Service for GKE is not available to this organization.";
    static final String NOTE = "GKE refused to turn on Identity Service for GKE: " + REFUSAL + " Signing in to this cluster with kubectl "
            + "(approving a sign-in code) cannot work until it is on; better-compute asks GKE again every hour. The cluster's nodes and "
            + "workloads are unaffected.";

    /** A ready Standard cluster whose Identity Service GKE refused {@code ago}, showing the refusal's note. */
    static Cluster refusedIdentityService(Duration ago) {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY), ClusterState.READY);
        return c.toBuilder().endpoint("10.0.0.1").message(NOTE).progress(c.progress().identityServiceRefused(NOW.minus(ago))).build();
    }

    static ClusterObservation identityService(boolean on) {
        return new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", "Q0E=", V1, V1,
                ReleaseChannel.REGULAR, List.of(), false, List.of(), on);
    }

    /**
     * GKE refused Identity Service for GKE: the cluster stays ready with the refusal as its message, the update is not asked
     * again for an hour (from the refusal's saved time), and the tenant's drift is converged meanwhile.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            refused a minute ago: nothing is asked, the note stays                       | PT1M    | false | false | none                               | READY
            refused 59 minutes ago: still nothing                                        | PT59M   | false | false | none                               | READY
            refused an hour ago: it is asked again, the cluster reading as it did        | PT1H    | false | false | set-identity-service on            | READY
            refused a day ago: it is asked again                                         | P1D     | false | false | set-identity-service on            | READY
            other drift while refused recently: that drift is converged                  | PT1M    | true  | false | set-authorized-networks 10.0.0.0/8 | UPDATING
            other drift when the hour is up: that drift first                            | PT2H    | true  | false | set-authorized-networks 10.0.0.0/8 | UPDATING
            the provider has it on now: ready without the note, the refusal forgotten    | PT1M    | false | true  | none                               | READY
            """)
    void a_refused_identity_service_is_asked_again_only_an_hour_later_and_blocks_no_other_change(String why, Duration ago,
            boolean otherDrift, boolean nowOn, String call, ClusterState state) {
        Cluster c = refusedIdentityService(ago);
        if (otherDrift) {
            c = c.toBuilder().authorizedNetworks(List.of("10.0.0.0/8")).build();
        }
        Decided d = decide(c, identityService(nowOn), AT, NOW);
        assertThat(d.action() == null ? "none" : d.action().label()).isEqualTo(call);
        assertThat(d.next().state()).isEqualTo(state);
        if (nowOn) {
            assertThat(d.next().message()).isNull();
            assertThat(d.next().progress().identityServiceRefusedAt()).isNull();
            assertThat(d.events()).containsExactly("kubernetes.cluster.updated");
        } else if (!otherDrift) {
            assertThat(d.next().message()).as("the refusal stays recorded").isEqualTo(NOTE);
            assertThat(d.events()).as("recorded once").isEmpty();
            assertThat(d.next().version()).as("nothing the API shows changes").isEqualTo(c.version());
        }
        if (d.acts() && !otherDrift) {
            Decided again = d.refused(new ProviderException(ProviderException.Kind.INVALID, REFUSAL));
            assertThat(again.next().state()).isEqualTo(ClusterState.READY);
            assertThat(again.next().message()).isEqualTo(NOTE);
            assertThat(again.events()).as("the same refusal is not published again").isEmpty();
            assertThat(again.next().progress().identityServiceRefusedAt()).as("the hour starts again").isEqualTo(NOW);
            assertThat(d.accepted().next().state()).as("accepted, GKE turns it on").isEqualTo(ClusterState.UPDATING);
        }
    }

    /** Any refusal of GKE but passing trouble: INVALID, FAILED_PRECONDITION, a lacking permission. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"INVALID", "FAILED_PRECONDITION", "PERMISSION_DENIED"})
    void gke_refusing_identity_service_leaves_the_cluster_ready_with_its_reason_published_once(ProviderException.Kind kind) {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY), ClusterState.READY);
        Decided ask = decide(c, identityService(false), AT, NOW);
        assertThat(ask.action()).isEqualTo(new ProviderAction.ChangeCluster(new ClusterChange.IdentityService(true)));

        Decided refused = ask.refused(new ProviderException(kind, REFUSAL));
        assertThat(refused.next().state()).isEqualTo(ClusterState.READY);
        assertThat(refused.next().message()).isEqualTo(NOTE);
        assertThat(refused.events()).containsExactly("kubernetes.cluster.updated");
        assertThat(refused.next().progress().identityServiceRefusedAt()).isEqualTo(NOW);
        assertThat(refused.next().progress().failures()).isZero();
        assertThat(refused.requeue()).as("looked at as any ready cluster").isEqualTo(CADENCE.settled());

        Decided later = decide(refused.next(), identityService(false), AT, NOW.plus(CADENCE.settled()));
        assertThat(later.acts()).as("not asked again the next pass").isFalse();
        assertThat(later.next().message()).isEqualTo(NOTE);
        assertThat(later.events()).isEmpty();
    }

    @Test
    void passing_trouble_while_turning_on_identity_service_is_retried_soon_and_quietly() {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY), ClusterState.READY);
        Decided refused = decide(c, identityService(false), AT, NOW).refused(new ProviderException(ProviderException.Kind.UNAVAILABLE, "503"));
        assertThat(refused.next().state()).isNotEqualTo(ClusterState.ERROR);
        assertThat(refused.next().progress().identityServiceRefusedAt()).isNull();
        assertThat(refused.requeue()).isEqualTo(CADENCE.converging());
    }

    @Test
    void an_identity_service_operation_that_failed_at_gke_is_a_refusal_not_an_error() {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY), ClusterState.READY);
        Cluster asked = decide(c, identityService(false), AT, NOW).accepted().next();
        Decided d = decide(asked, identityService(false), AT, NOW.plusSeconds(60));
        assertThat(d.asksOperation()).isTrue();
        Decided failed = d.then(OperationStatus.failed(REFUSAL));
        assertThat(failed.acts()).isFalse();
        assertThat(failed.next().state()).isEqualTo(ClusterState.READY);
        assertThat(failed.next().message()).isEqualTo(NOTE);
        assertThat(failed.next().progress().identityServiceRefusedAt()).isEqualTo(NOW.plusSeconds(60));
        assertThat(failed.events()).containsExactly("kubernetes.cluster.updated");
    }

    @Test
    void a_cluster_in_error_because_identity_service_was_refused_before_is_ready_again_at_the_next_refusal() {
        Cluster c = wasReady(cluster(ClusterMode.STANDARD, ClusterState.ERROR), ClusterState.ERROR).toBuilder().message(REFUSAL).build();
        Decided ask = decide(c, identityService(false), AT, NOW);
        assertThat(ask.next().state()).as("a retry of an error shows it until GKE answers").isEqualTo(ClusterState.ERROR);
        Decided refused = ask.refused(new ProviderException(ProviderException.Kind.INVALID, REFUSAL));
        assertThat(refused.next().state()).isEqualTo(ClusterState.READY);
        assertThat(refused.next().message()).isEqualTo(NOTE);
        assertThat(refused.events()).containsExactly("kubernetes.cluster.updated");
    }

    /** The create asks for Identity Service for GKE exactly for a Standard cluster whose create GKE has not refused it. */
    @ParameterizedTest(name = "{0} {1} → {2}")
    @CsvSource({"STANDARD, false, true", "STANDARD, true, false", "AUTOPILOT, false, false", "AUTOPILOT, true, false"})
    void the_create_asks_for_identity_service_unless_the_cluster_is_autopilot_or_it_was_refused(ClusterMode mode, boolean refusedBefore,
            boolean asked) {
        Cluster c = cluster(mode, ClusterState.PENDING);
        if (refusedBefore) {
            c = c.toBuilder().progress(c.progress().identityServiceRefused(NOW.minusSeconds(1))).build();
        }
        ProviderAction create = decide(c, ClusterObservation.absent(), AT, NOW).action();
        assertThat(create).isInstanceOf(ProviderAction.CreateCluster.class);
        assertThat(((ProviderAction.CreateCluster) create).spec().identityService()).isEqualTo(asked);
    }

    /**
     * How a refused create is decided: only the provider's saying it refused Identity Service for GKE (the adapter's
     * {@code IDENTITY_SERVICE_REFUSED}) leads to creating the cluster again at once without it, the refusal noted on it and
     * its hour started; a cluster in error from such a refusal before this rule is created the same way. Any other refusal
     * is as before: passing trouble retried quietly, the rest an error.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Identity Service refused: created again at once without it                 | PENDING | IDENTITY_SERVICE_REFUSED | PENDING | true  | PT0S  | false
            a cluster in error from such a refusal before: the same                    | ERROR   | IDENTITY_SERVICE_REFUSED | PENDING | true  | PT0S  | false
            the same words as a plain refusal: an error, the create is not changed     | PENDING | INVALID                  | ERROR   | false | PT5M  | true
            passing trouble: retried soon, quietly, with Identity Service              | PENDING | FAILED_PRECONDITION      | PENDING | false | PT30S | true
            no quota: an error                                                         | PENDING | QUOTA                    | ERROR   | false | PT5M  | true
            """)
    void a_create_refused_for_identity_service_is_made_again_without_it_and_no_other_refusal_is(String why, ClusterState stored,
            ProviderException.Kind kind, ClusterState after, boolean noted, Duration next, boolean askedAgain) {
        Cluster c = cluster(ClusterMode.STANDARD, stored);
        if (stored == ClusterState.ERROR) {
            c = c.toBuilder().message(REFUSAL).build();
        }
        Decided ask = decide(c, ClusterObservation.absent(), AT, NOW);
        assertThat(((ProviderAction.CreateCluster) ask.action()).spec().identityService()).isTrue();

        Decided refused = ask.refused(new ProviderException(kind, REFUSAL));
        assertThat(refused.next().state()).isEqualTo(after);
        assertThat(refused.requeue()).isEqualTo(next);
        assertThat(refused.next().progress().identityServiceRefusedAt()).isEqualTo(noted ? NOW : null);
        if (noted) {
            assertThat(refused.next().message()).isEqualTo(NOTE);
            assertThat(refused.events()).as("nothing to publish before the cluster is up").isEmpty();
            assertThat(refused.next().progress().failures()).isZero();
            assertThat(refused.next().progress().pendingAction()).isNull();
        }
        Decided again = decide(refused.next(), ClusterObservation.absent(), AT, NOW.plus(next));
        assertThat(again.action()).isInstanceOf(ProviderAction.CreateCluster.class);
        assertThat(((ProviderAction.CreateCluster) again.action()).spec().identityService()).isEqualTo(askedAgain);
        if (noted) {
            assertThat(again.accepted().next().message()).as("the note rides on the cluster coming up").isEqualTo(NOTE);
            assertThat(again.accepted().next().state()).isEqualTo(ClusterState.PROVISIONING);
        }
    }

    /**
     * A cluster created without Identity Service for GKE after GKE refused it: provisioning keeps the note, its first ready
     * publishes it with {@code ready} (one event), and the update is asked only an hour after the refusal.
     */
    @Test
    void a_cluster_created_without_identity_service_is_first_ready_with_the_note_and_asked_again_an_hour_after_the_refusal() {
        Cluster refused = decide(cluster(ClusterMode.STANDARD, ClusterState.PENDING), ClusterObservation.absent(), AT, NOW)
                .refused(new ProviderException(ProviderException.Kind.IDENTITY_SERVICE_REFUSED, REFUSAL)).next();
        Cluster provisioning = decide(refused, ClusterObservation.absent(), AT, NOW).accepted().next();

        ClusterObservation comingUp = new ClusterObservation(true, ID, ClusterStatus.PROVISIONING, null, ClusterMode.STANDARD, "10.0.0.1",
                "Q0E=", V1, V1, ReleaseChannel.REGULAR, List.of(), false, List.of(), false);
        Decided busy = decide(provisioning, comingUp, AT, NOW.plusSeconds(30));
        assertThat(busy.next().state()).isEqualTo(ClusterState.PROVISIONING);
        assertThat(busy.next().message()).isEqualTo(NOTE);

        Decided up = decide(busy.next(), identityService(false), AT, NOW.plusSeconds(600));
        assertThat(up.acts()).as("not asked by update within the hour").isFalse();
        assertThat(up.next().state()).isEqualTo(ClusterState.READY);
        assertThat(up.next().message()).isEqualTo(NOTE);
        assertThat(up.events()).containsExactly("kubernetes.cluster.ready");

        Decided later = decide(up.next(), identityService(false), AT, NOW.plus(Duration.ofHours(1)));
        assertThat(later.action()).isEqualTo(new ProviderAction.ChangeCluster(new ClusterChange.IdentityService(true)));
        assertThat(later.next().message()).isEqualTo(NOTE);
        Decided refusedAgain = later.refused(new ProviderException(ProviderException.Kind.FAILED_PRECONDITION, REFUSAL));
        assertThat(refusedAgain.next().message()).isEqualTo(NOTE);
        assertThat(refusedAgain.events()).as("the same refusal is recorded once").isEmpty();
    }

    @Test
    void ready_again_after_a_change_publishes_updated() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING).toBuilder().requestedVersion("1.33").build();
        Decided d = decide(c, running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        assertThat(d.next().state()).isEqualTo(ClusterState.READY);
        assertThat(d.events()).containsExactly("kubernetes.cluster.updated");
    }

    @Test
    void a_version_moved_by_the_provider_is_seen_on_refresh_and_published_as_updated() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.READY), ClusterState.READY);
        Decided d = decide(c, observation(ClusterMode.AUTOPILOT, ClusterStatus.RUNNING, V2, List.of(), false, null), AT, NOW);
        assertThat(d.next().kubernetesVersion()).isEqualTo(V2);
        assertThat(d.next().state()).isEqualTo(ClusterState.READY);
        assertThat(d.events()).containsExactly("kubernetes.cluster.updated");
    }

    @Test
    void an_intent_whose_answer_was_lost_in_a_crash_is_asked_again_once_nothing_runs() {
        Cluster c = intentWithoutAnswer(wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING).toBuilder()
                .requestedVersion("1.34").build(), "set-version 1.34");
        Decided asked = decide(c, running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        assertThat(((ClusterPlan.AskOperation) asked.plan()).operation()).as("no name: the provider lists the cluster's").isNull();
        assertThat(asked.then(OperationStatus.RUNNING).acts()).isFalse();
        Decided again = asked.then(OperationStatus.failed("an older operation's error"));
        assertThat(again.action().label()).as("calls are idempotent: ask again").isEqualTo("set-version 1.34");
        assertThat(again.next().state()).isEqualTo(ClusterState.UPDATING);
    }

    @Test
    void a_provider_upgrade_in_flight_shows_updating() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.READY), ClusterState.READY);
        Decided d = decide(c, observation(ClusterMode.AUTOPILOT, ClusterStatus.RECONCILING, V1, List.of(), true, null), AT, NOW);
        assertThat(d.next().state()).isEqualTo(ClusterState.UPDATING);
        assertThat(d.acts()).isFalse();
    }

    @Test
    void a_change_the_provider_finished_without_applying_is_an_error_with_its_message_and_is_retried_from_error() {
        Cluster c = intent(wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING).toBuilder()
                .requestedVersion("1.31").build(), "set-version 1.31");
        Decided asked = decide(c, observation(ClusterMode.AUTOPILOT, ClusterStatus.RUNNING, V1, List.of(), false, null), AT, NOW);
        assertThat(asked.asksOperation()).as("the difference is still there: how did our operation end?").isTrue();
        assertThat(asked.then(OperationStatus.RUNNING).next().state()).as("not yet landed").isEqualTo(ClusterState.UPDATING);
        Decided d = asked.then(OperationStatus.failed("Master cannot be downgraded"));
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(d.next().message()).isEqualTo("Master cannot be downgraded");
        assertThat(d.events()).containsExactly("kubernetes.cluster.error");
        assertThat(d.requeue()).isEqualTo(CADENCE.settled());
        Decided retry = decide(d.next(), running(ClusterMode.AUTOPILOT, List.of()), AT, NOW.plus(CADENCE.settled()));
        assertThat(retry.action().label()).isEqualTo("set-version 1.31");
        // the error shows until the provider accepts the retry
        assertThat(retry.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(ClusterDecider.visible(d.next(), retry.next())).isFalse();
        Decided refusedAgain = retry.refused(new ProviderException(ProviderException.Kind.INVALID, "Master cannot be downgraded"));
        assertThat(refusedAgain.events()).isEmpty();
        assertThat(ClusterDecider.visible(d.next(), refusedAgain.next())).isFalse();
        assertThat(retry.accepted().next().state()).isEqualTo(ClusterState.UPDATING);
    }

    @Test
    void a_refused_change_shows_error_with_the_providers_message() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING).toBuilder().requestedVersion("1.99").build();
        Decided d = decide(c, running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        Decided refused = d.refused(new ProviderException(ProviderException.Kind.INVALID, "Version 1.99 is not supported."));
        assertThat(refused.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(refused.next().message()).isEqualTo("Version 1.99 is not supported.");
        assertThat(refused.next().progress().pendingAction()).isNull();
        assertThat(refused.events()).containsExactly("kubernetes.cluster.error");
    }

    @Test
    void passing_trouble_at_the_provider_is_retried_soon_without_an_error() {
        Cluster c = cluster(ClusterMode.AUTOPILOT, ClusterState.PENDING);
        Decided d = decide(c, ClusterObservation.absent(), AT, NOW);
        Decided refused = d.refused(new ProviderException(ProviderException.Kind.UNAVAILABLE, "try later"));
        assertThat(refused.next().state()).isEqualTo(ClusterState.PENDING);
        assertThat(refused.events()).isEmpty();
        assertThat(refused.requeue()).isEqualTo(CADENCE.converging());
    }

    @Test
    void a_cluster_deleted_behind_our_back_is_an_error_and_never_recreated() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.READY), ClusterState.READY);
        Decided d = decide(c, ClusterObservation.absent(), AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(d.next().message()).contains("deleted at the provider");
        assertThat(decide(d.next(), ClusterObservation.absent(), AT, NOW.plusSeconds(300)).acts()).isFalse();
    }

    @Test
    void a_cluster_of_our_name_that_is_not_ours_is_left_alone() {
        ClusterObservation foreign = new ClusterObservation(true, null, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "1.2.3.4", null, V1, V1,
                null, List.of(), false, List.of(), false);
        Decided d = decide(cluster(ClusterMode.STANDARD, ClusterState.PENDING, "gpu"), foreign, AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(d.next().message()).contains("not created by better-compute");
    }

    @Test
    void a_requested_delete_deletes_waits_and_ends_deleted() {
        Cluster c = deleteRequested(wasReady(cluster(ClusterMode.STANDARD, ClusterState.READY, "gpu"), ClusterState.READY));
        Decided d = decide(c, running(ClusterMode.STANDARD, List.of("gpu")), AT, NOW);
        assertThat(d.action()).isInstanceOf(ProviderAction.DeleteCluster.class);
        assertThat(d.next().state()).isEqualTo(ClusterState.DELETING);
        Cluster asked = d.accepted().next();
        Decided stopping = decide(asked, observation(ClusterMode.STANDARD, ClusterStatus.STOPPING, V1, List.of("gpu"), true, null), AT, NOW);
        assertThat(stopping.acts()).isFalse();
        assertThat(stopping.next().state()).isEqualTo(ClusterState.DELETING);
        Decided gone = decide(asked, ClusterObservation.absent(), AT, NOW);
        assertThat(gone.next().state()).isEqualTo(ClusterState.DELETED);
        assertThat(gone.next().deletedAt()).isEqualTo(NOW);
        assertThat(gone.next().nodePools()).extracting(NodePool::state).containsOnly(ClusterState.DELETED);
        assertThat(gone.events()).containsExactly("kubernetes.cluster.deleted");
        assertThat(gone.requeue()).isNull();
    }

    @Test
    void a_delete_of_a_cluster_never_created_at_the_provider_ends_deleted_at_once() {
        Decided d = decide(deleteRequested(cluster(ClusterMode.STANDARD, ClusterState.PENDING, "gpu")), ClusterObservation.absent(), AT, NOW);
        assertThat(d.acts()).isFalse();
        assertThat(d.next().state()).isEqualTo(ClusterState.DELETED);
    }

    @ParameterizedTest(name = "refusal {0} waits {1} minutes")
    @CsvSource({"1, 5", "2, 10", "3, 20", "4, 40", "7, 320", "8, 360", "20, 360"})
    void a_refused_delete_is_an_error_retried_after_a_growing_wait(int failures, long minutes) {
        Cluster c = deleteRequested(wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.READY), ClusterState.READY));
        Cluster.Progress p = c.progress();
        c = c.toBuilder().progress(new Cluster.Progress(p.deleteRequestedAt(), p.providerAcceptedAt(), null, failures - 1, null, null)).build();
        Decided d = decide(c, running(ClusterMode.AUTOPILOT, List.of()), AT, NOW);
        Decided refused = d.refused(new ProviderException(ProviderException.Kind.PERMISSION_DENIED, "deletion protection is on"));
        assertThat(refused.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(refused.next().message()).isEqualTo("deletion protection is on");
        assertThat(refused.next().deleteRequested()).isTrue();
        assertThat(refused.requeue()).isEqualTo(Duration.ofMinutes(minutes));
    }

    @Test
    void a_node_pool_in_error_at_the_provider_makes_the_cluster_an_error() {
        Cluster c = accepted(cluster(ClusterMode.STANDARD, ClusterState.PROVISIONING, "gpu"));
        ClusterObservation obs = new ClusterObservation(true, ID, ClusterStatus.RUNNING, null, ClusterMode.STANDARD, "10.0.0.1", null, V1, V1,
                ReleaseChannel.REGULAR, List.of(), false, List.of(new NodePoolObservation("gpu", NodePoolStatus.ERROR, V1, 2, null, "a3", 100,
                "pd-balanced", false, null, List.of(), Map.of(), List.of(), "GPU quota exhausted")), true);
        Decided d = decide(c, obs, AT, NOW);
        assertThat(d.next().state()).isEqualTo(ClusterState.ERROR);
        assertThat(d.next().message()).isEqualTo("Node pool gpu: GPU quota exhausted");
    }

    @Test
    void the_revision_counts_what_the_api_shows_not_the_bookkeeping() {
        Cluster c = cluster(ClusterMode.AUTOPILOT, ClusterState.PENDING);
        Cluster bookkeeping = c.toBuilder().progress(c.progress().withNextAttemptAt(NOW)).build();
        assertThat(ClusterDecider.revised(c, bookkeeping, NOW).version()).isEqualTo(1);
        Cluster moved = c.toBuilder().state(ClusterState.PROVISIONING).build();
        assertThat(ClusterDecider.revised(c, moved, NOW).version()).isEqualTo(2);
    }

    @Test
    void an_autopilot_cluster_asked_for_in_a_zone_runs_in_its_region_at_the_provider() {
        com.bettercompute.domain.catalog.ProviderAccount account = new com.bettercompute.domain.catalog.ProviderAccount(
                "acct", "gcp", "platform", "platform-prod", List.of("us-central1-a"));
        assertThat(ProviderSpecs.locator(cluster(ClusterMode.AUTOPILOT, ClusterState.PENDING), account).location()).isEqualTo("us-central1");
        assertThat(ProviderSpecs.locator(cluster(ClusterMode.STANDARD, ClusterState.PENDING, "gpu"), account).location()).isEqualTo("us-central1-a");
    }

    @ParameterizedTest(name = "{0} is met by {1}: {2}")
    @CsvSource({
            "1.33, 1.33.4-gke.100, true",
            "1.33, 1.34.0-gke.1, false",
            "1.3, 1.33.4-gke.100, false",
            "1.33.4, 1.33.4-gke.100, true",
            "1.33.4, 1.33.40-gke.1, false",
            "1.33.4-gke.100, 1.33.4-gke.100, true",
            "1.33.4-gke.100, 1.33.4-gke.101, false"})
    void a_pinned_version_is_met_by_its_patches_and_builds(String requested, String running, boolean met) {
        assertThat(ProviderSpecs.versionMatches(requested, running)).isEqualTo(met);
    }

    @Test
    void a_change_of_version_is_a_master_version_change() {
        Cluster c = wasReady(cluster(ClusterMode.AUTOPILOT, ClusterState.UPDATING), ClusterState.UPDATING).toBuilder().requestedVersion("1.34").build();
        assertThat(ClusterDecider.firstDifference(c, running(ClusterMode.AUTOPILOT, List.of()), NOW))
                .isEqualTo(new ProviderAction.ChangeCluster(new ClusterChange.MasterVersion("1.34")));
    }
}
