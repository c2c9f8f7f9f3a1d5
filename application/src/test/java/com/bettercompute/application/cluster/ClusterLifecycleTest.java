package com.bettercompute.application.cluster;

import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.ReleaseChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** list, get, update and delete of kubernetesClusters. */
class ClusterLifecycleTest {
    final ClusterWorld w = new ClusterWorld();

    @Test
    void list_is_oldest_first_with_filters_and_deleted_only_when_asked() {
        Cluster a = w.create(w.alice, standard("a").projectId(PROJECT));
        w.ports.clock().advance(Duration.ofSeconds(1));
        Cluster b = w.create(w.alice, standard("b").poolId(FREE_POOL));
        w.ports.clock().advance(Duration.ofSeconds(1));
        Cluster c = w.create(w.alice, standard("c"));
        markDeleted(c);

        assertThat(ids(w.list(w.alice, "acme", false))).containsExactly(a.id(), b.id());
        assertThat(ids(w.list(w.alice, "acme", true))).containsExactly(a.id(), b.id(), c.id());
        assertThat(ids(w.list.list(w.alice, new ListClustersQuery("acme", FREE_POOL, null, false)))).containsExactly(b.id());
        assertThat(ids(w.list.list(w.alice, new ListClustersQuery("acme", null, PROJECT, false)))).containsExactly(a.id());
    }

    @Test
    void list_shows_each_caller_only_the_clusters_its_decision_allows() {
        Cluster std = w.create(w.alice, standard("std"));
        Cluster auto = w.create(w.alice, autopilot("auto").location("us-central1"));
        // bob's binding reaches autopilot clusters in us-central1 only
        assertThat(ids(w.list(w.bob, "acme", false))).containsExactly(auto.id());
        assertThat(ids(w.list(w.dave, "acme", false))).containsExactly(std.id(), auto.id());
        assertThatThrownBy(() -> w.list(w.carol, "acme", false)).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(w.list(w.carol, "globex", false)).isEmpty();
    }

    @Test
    void get_refuses_another_tenants_cluster_by_decision_before_not_found() {
        Cluster c = w.create(w.alice, standard("a"));
        // carol names acme: the decision refuses
        assertThatThrownBy(() -> w.get(w.carol, "acme", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        // carol names her own tenant: not found there
        assertThatThrownBy(() -> w.get(w.carol, "globex", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
        // alice: a cluster that does not exist
        assertThatThrownBy(() -> w.get(w.alice, "acme", "kcl_00000000000000000000000000")).hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
        // bob cannot read a standard cluster he does not own
        assertThatThrownBy(() -> w.get(w.bob, "acme", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
    }

    @Test
    void the_creator_owns_its_cluster() {
        Cluster mine = w.create(w.bob, autopilot("mine").location("us-central1"));
        // bob is an editor, but as owner he may delete it
        assertThat(w.delete(w.bob, "acme", mine.id()).state()).isEqualTo(ClusterState.DELETING);
    }

    @Test
    void update_bumps_the_version_and_a_provider_change_turns_a_ready_cluster_updating() {
        Cluster c = markState(w.create(w.alice, standard("a")), ClusterState.READY);
        Cluster described = w.describe(w.alice, "acme", c.id(), "team ml");
        assertThat(described.version()).isEqualTo(c.version() + 1);
        assertThat(described.state()).isEqualTo(ClusterState.READY);
        assertThat(described.description()).isEqualTo("team ml");

        Cluster upgraded = w.update.update(w.alice, new UpdateClusterCommand("acme", c.id(), "1.33",
                ReleaseChannel.RAPID, List.of("198.51.100.0/24"), null));
        assertThat(upgraded.version()).isEqualTo(c.version() + 2);
        assertThat(upgraded.state()).isEqualTo(ClusterState.UPDATING);
        assertThat(upgraded.requestedVersion()).isEqualTo("1.33");
        assertThat(upgraded.releaseChannel().wire()).isEqualTo("rapid");
        assertThat(upgraded.authorizedNetworks()).containsExactly("198.51.100.0/24");
        assertThat(w.get(w.alice, "acme", c.id())).isEqualTo(upgraded);
    }

    @ParameterizedTest(name = "a {0} cluster asked to change {1} becomes {2}")
    @CsvSource({
            "PENDING, version, PENDING",
            "PROVISIONING, version, PROVISIONING",
            "READY, version, UPDATING",
            "ERROR, releaseChannel, UPDATING",
            "UPDATING, version, UPDATING",
            "READY, description, READY",
            "ERROR, description, ERROR"})
    void update_changes_state_only_for_provider_changes_of_settled_clusters(ClusterState before, String field, ClusterState after) {
        Cluster c = markState(w.create(w.alice, standard("a")), before);
        UpdateClusterCommand change = switch (field) {
            case "version" -> new UpdateClusterCommand("acme", c.id(), "1.34", null, null, null);
            case "releaseChannel" -> new UpdateClusterCommand("acme", c.id(), null, ReleaseChannel.STABLE, null, null);
            default -> new UpdateClusterCommand("acme", c.id(), null, null, null, "text");
        };
        assertThat(w.update.update(w.alice, change).state()).isEqualTo(after);
    }

    @Test
    void update_refuses_a_caller_without_the_action_and_a_cluster_going_away() {
        Cluster c = w.create(w.alice, standard("a"));
        // a body naming no field to change, or one that cannot be changed, is refused before a command exists (ClusterBodiesTest)
        assertThatThrownBy(() -> w.describe(w.dave, "acme", c.id(), "x"))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        w.delete(w.alice, "acme", c.id());
        assertThatThrownBy(() -> w.describe(w.alice, "acme", c.id(), "x"))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_STATE);
    }

    @Test
    void delete_marks_the_cluster_and_its_node_pools_and_a_second_delete_changes_nothing() {
        Cluster c = w.create(w.alice, standard("a").nodePools(nodePool("x"), nodePool("y")));
        Cluster deleting = w.delete(w.alice, "acme", c.id());
        assertThat(deleting.state()).isEqualTo(ClusterState.DELETING);
        assertThat(deleting.version()).isEqualTo(2);
        assertThat(deleting.nodePools()).extracting(p -> p.state()).containsOnly(ClusterState.DELETING);
        assertThat(w.delete(w.alice, "acme", c.id())).isEqualTo(deleting);
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created", "kubernetes.cluster.deleting");
        assertThatThrownBy(() -> w.delete(w.alice, "globex", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
    }

    @Test
    void delete_needs_the_delete_action() {
        Cluster c = w.create(w.alice, standard("a"));
        assertThatThrownBy(() -> w.delete(w.dave, "acme", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(w.get(w.alice, "acme", c.id()).state()).isEqualTo(ClusterState.PENDING);
    }

    @Test
    void events_are_read_in_order_by_an_operator_or_for_a_tenant_the_caller_may_read() {
        Cluster a = w.create(w.alice, standard("a"));
        w.create(w.carol, standard("g").tenantId("globex"));
        w.delete(w.alice, "acme", a.id());
        ReadEvents events = new ReadEvents(w.ports.outbox(), new ReadableClusters(w.ports.clusters(), w.authorizer));
        assertThat(events.read(w.alice, 0, 100, "acme").items()).extracting(e -> e.event().type())
                .containsExactly("kubernetes.cluster.created", "kubernetes.cluster.deleting");
        assertThat(events.read(w.alice, 1, 100, "acme").items()).extracting(e -> e.event().type()).containsExactly("kubernetes.cluster.deleting");
        assertThatThrownBy(() -> events.read(w.alice, 0, 100, "globex")).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> events.read(w.alice, 0, 100, null)).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> events.read(w.alice, 0, 0, "acme")).hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
    }

    private Cluster markState(Cluster c, ClusterState state) {
        Cluster changed = c.toBuilder().state(state).version(c.version() + 1).build();
        assertThat(w.ports.clusters().update(changed, c.version())).isTrue();
        return changed;
    }

    private void markDeleted(Cluster c) {
        markState(c, ClusterState.DELETED);
    }

    static List<String> ids(List<Cluster> clusters) {
        return clusters.stream().map(Cluster::id).toList();
    }

}
