package com.bettercompute.application.cluster;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Map;

import static com.bettercompute.application.cluster.ClusterWorld.autopilot;
import static com.bettercompute.application.cluster.ClusterWorld.standard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Finding the caller's cluster, the step every use case about one cluster goes through: who may see what, by id and by
 * name, and which states the platform can connect to. In {@code acme}: Alice its admin, Bob an editor narrowed to
 * autopilot clusters in us-central1 or us-central1-a (and owner of the one he made), Dave a viewer; Carol is
 * {@code globex}'s admin.
 */
class ClusterLookupTest {
    private final ClusterWorld w = new ClusterWorld();
    private final ClusterLookup lookup = new ClusterLookup(w.ports.clusters(), w.authorizer);
    private final Map<String, Cluster> clusters = Map.of(
            "standard-a", w.create(w.alice, standard("standard-a")),
            "bobs-autopilot", w.create(w.bob, autopilot("bobs-autopilot").location("us-central1")),
            "autopilot-b", w.create(w.alice, autopilot("autopilot-b").location("us-central1-b")),
            "globex-one", w.create(w.carol, standard("globex-one").tenantId("globex")));

    @ParameterizedTest(name = "{0} {2}s {1} of {3}: {4}")
    @CsvSource({
            "alice, standard-a,     READ,   acme,   found",
            "alice, standard-a,     DELETE, acme,   found",
            "dave,  standard-a,     READ,   acme,   found",
            "dave,  standard-a,     UPDATE, acme,   ACCESS_DENIED",
            "bob,   bobs-autopilot, UPDATE, acme,   found",
            "bob,   standard-a,     READ,   acme,   ACCESS_DENIED",
            "bob,   autopilot-b,    READ,   acme,   ACCESS_DENIED",
            // another tenant's id is an unknown cluster of the tenant asked about: only a binding on all of it learns that
            "alice, globex-one,     READ,   acme,   NOT_FOUND",
            "dave,  globex-one,     READ,   acme,   NOT_FOUND",
            "bob,   globex-one,     READ,   acme,   ACCESS_DENIED",
            "carol, standard-a,     READ,   globex, NOT_FOUND",
            "carol, standard-a,     READ,   acme,   ACCESS_DENIED",
            "alice, no-such-id,     READ,   acme,   NOT_FOUND",
            "bob,   no-such-id,     READ,   acme,   ACCESS_DENIED"})
    void by_id_the_decision_comes_before_not_found(String who, String name, Action action, String tenant, String outcome) {
        String id = clusters.containsKey(name) ? clusters.get(name).id() : "cls_01hzx8k3v4w5y6z7a8b9c0d1zz";

        DomainException refused = catchThrowableOfType(() -> {
            Cluster found = lookup.require(w.caller(who), new ClusterRef(tenant, id), action);
            assertThat(found.id()).isEqualTo(id);
        }, DomainException.class);

        assertThat(refused == null ? "found" : refused.code().name()).isEqualTo(outcome);
        if (refused != null && refused.code() == ErrorCode.NOT_FOUND) {
            assertThat(refused.getMessage()).isEqualTo("No cluster " + id + " in tenant " + tenant + ".");
            assertThat(refused.details()).isEqualTo(Map.of("clusterId", id));
        }
        if (refused != null && refused.code() == ErrorCode.ACCESS_DENIED) {
            // the refusal names the action, never whether the cluster exists
            assertThat(refused.details()).isEqualTo(Map.of("action", action.wire(), "resourceType", Resource.CLUSTER));
        }
    }

    @ParameterizedTest(name = "{0} {2}s {1} by name in {3}: {4}")
    @CsvSource({
            "alice, standard-a,     READ,   acme,   found",
            "dave,  standard-a,     UPDATE, acme,   ACCESS_DENIED",
            "bob,   bobs-autopilot, UPDATE, acme,   found",
            "bob,   standard-a,     READ,   acme,   ACCESS_DENIED",
            "carol, standard-a,     READ,   globex, NOT_FOUND",
            "alice, globex-one,     READ,   acme,   NOT_FOUND",
            "alice, no-such-name,   READ,   acme,   NOT_FOUND",
            // no cluster of that name: nothing to decide, so even a narrowed binding learns only that
            "bob,   no-such-name,   READ,   acme,   NOT_FOUND"})
    void by_name_only_the_organizations_clusters_answer(String who, String name, Action action, String tenant, String outcome) {
        DomainException refused = catchThrowableOfType(() -> {
            Cluster found = lookup.named(w.caller(who), tenant, name, action);
            assertThat(found.id()).isEqualTo(clusters.get(name).id());
        }, DomainException.class);

        assertThat(refused == null ? "found" : refused.code().name()).isEqualTo(outcome);
        if (refused != null && refused.code() == ErrorCode.NOT_FOUND) {
            assertThat(refused.getMessage()).isEqualTo("No cluster " + name + " in your organization.");
            assertThat(refused.details()).isEqualTo(Map.of("field", "cluster"));
        }
    }

    @Test
    void by_name_a_deleted_cluster_is_not_found_and_its_name_finds_the_new_one() {
        Cluster old = clusters.get("standard-a");
        w.delete(w.alice, "acme", old.id());
        Cluster deleting = w.ports.clusters().find(old.id()).orElseThrow();
        w.ports.clusters().update(deleting.toBuilder().state(ClusterState.DELETED).version(deleting.version() + 1).build(),
                deleting.version());

        DomainException gone = catchThrowableOfType(() -> lookup.named(w.alice, "acme", "standard-a", Action.READ),
                DomainException.class);
        assertThat(gone.code()).isEqualTo(ErrorCode.NOT_FOUND);

        Cluster again = w.create(w.alice, standard("standard-a").idempotencyKey("key-standard-a-again"));
        assertThat(lookup.named(w.alice, "acme", "standard-a", Action.READ).id()).isEqualTo(again.id()).isNotEqualTo(old.id());
    }

    @ParameterizedTest(name = "{0} {2}s the {1} it holds: {3}")
    @CsvSource({
            "alice, standard-a,     DELETE,  true",
            "dave,  standard-a,     CONNECT, true",
            "dave,  standard-a,     UPDATE,  false",
            "bob,   bobs-autopilot, DELETE,  true",
            "bob,   autopilot-b,    READ,    false",
            "carol, standard-a,     READ,    false"})
    void a_cluster_already_held_is_decided_as_by_id(String who, String name, Action action, boolean allowed) {
        Cluster held = clusters.get(name);

        DomainException refused = catchThrowableOfType(() -> lookup.require(w.caller(who), action, held), DomainException.class);

        assertThat(refused == null).isEqualTo(allowed);
        if (refused != null) {
            assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
        }
    }

    @ParameterizedTest(name = "{0}, once ready {1}, endpoint {2}, CA {3}: {4}")
    @CsvSource({
            "READY,        true,  true,  true,  CONNECTABLE",
            "READY,        true,  false, true,  NO_ENDPOINT",
            "READY,        true,  true,  false, NO_ENDPOINT",
            "UPDATING,     true,  true,  true,  CONNECTABLE",
            "UPDATING,     false, true,  true,  NOT_READY",
            "PENDING,      false, false, false, NOT_READY",
            "PROVISIONING, false, true,  true,  NOT_READY",
            "ERROR,        true,  true,  true,  NOT_READY",
            "DELETING,     true,  true,  true,  NOT_READY",
            "DELETED,      true,  true,  true,  NOT_READY"})
    void only_a_ready_cluster_with_its_endpoint_and_ca_can_be_connected_to(ClusterState state, boolean onceReady, boolean endpoint,
                                                                           boolean ca, ClusterLookup.Reach reach) {
        Cluster c = clusters.get("standard-a").toBuilder().state(state)
                .readyAt(onceReady ? Instant.parse("2026-01-01T00:00:00Z") : null)
                .endpoint(endpoint ? "10.0.0.1" : null)
                .progress(new Cluster.Progress(null, null, null, 0, null, ca ? "Q0E=" : null)).build();

        assertThat(ClusterLookup.reach(c)).isEqualTo(reach);
        DomainException refusal = ClusterLookup.notConnectable(c, "not now");
        assertThat(refusal.code()).isEqualTo(ErrorCode.INVALID_STATE);
        assertThat(refusal.details()).isEqualTo(Map.of("state", state.wire()));
    }

    @Test
    void a_blank_endpoint_is_no_endpoint() {
        Cluster c = clusters.get("standard-a").toBuilder().state(ClusterState.READY).endpoint(" ")
                .progress(new Cluster.Progress(null, null, null, 0, null, "Q0E=")).build();

        assertThat(ClusterLookup.reach(c)).isEqualTo(ClusterLookup.Reach.NO_ENDPOINT);
    }
}
