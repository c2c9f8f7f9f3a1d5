package com.bettercompute.application.cluster;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.LocationType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class CreateClusterTest {

    @Test
    void records_a_pending_cluster_with_its_node_pools_owner_and_event() {
        ClusterWorld w = new ClusterWorld();
        Cluster c = w.create(w.alice, standard("train").description("first").authorizedNetworks("203.0.113.0/24"));

        assertThat(c.id()).matches("kcl_[0-9a-hjkmnp-tv-z]{26}");
        assertThat(c.providerName()).isEqualTo("bc-k-" + c.id().substring(4, 28));
        assertThat(c.state()).isEqualTo(ClusterState.PENDING);
        assertThat(c.version()).isEqualTo(1);
        assertThat(c.region()).isEqualTo("us-central1");
        assertThat(c.locationType()).isEqualTo(LocationType.ZONAL);
        assertThat(c.releaseChannel().wire()).isEqualTo("regular");
        assertThat(c.providerAccountId()).isEqualTo("acct_platform");
        assertThat(c.ownerId()).isEqualTo("user:alice@acme.example");
        // the pool asked for, and the CPU worker (CpuWorkerApiTest)
        assertThat(c.nodePools()).extracting(p -> p.spec().name()).endsWith(CpuWorker.NAME);
        assertThat(c.nodePools()).filteredOn(p -> !CpuWorker.is(p)).singleElement().satisfies(p -> {
            assertThat(p.id()).matches("knp_[0-9a-hjkmnp-tv-z]{26}");
            assertThat(p.spec().diskGiB()).isEqualTo(100);
            assertThat(p.spec().diskType()).isEqualTo("pd-balanced");
            assertThat(p.state()).isEqualTo(ClusterState.PENDING);
        });
        assertThat(w.ports.access().owner(c.id())).contains("user:alice@acme.example");
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created");
        assertThat(w.get(w.alice, "acme", c.id())).isEqualTo(c);
    }

    @Test
    void a_region_of_a_configured_zone_makes_a_regional_cluster() {
        ClusterWorld w = new ClusterWorld();
        Cluster c = w.create(w.alice, standard("regional").location("us-central1"));
        assertThat(c.locationType()).isEqualTo(LocationType.REGIONAL);
        assertThat(c.region()).isEqualTo("us-central1");
    }

    @Test
    void an_autopilot_cluster_may_be_asked_for_in_a_zone() {
        ClusterWorld w = new ClusterWorld();
        Cluster c = w.create(w.alice, autopilot("zonal-auto").location("us-central1-a"));
        assertThat(c.location()).isEqualTo("us-central1-a");
        assertThat(c.locationType()).isEqualTo(LocationType.ZONAL);
        assertThat(c.nodePools()).isEmpty();
    }

    @Test
    void a_pool_on_the_tenants_own_account_needs_no_offer() {
        ClusterWorld w = new ClusterWorld();
        Cluster c = w.create(w.alice, standard("own").poolId(OWN_POOL).location("us-east1-b"));
        assertThat(c.providerAccountId()).isEqualTo("acct_acme");
    }

    @Test
    void the_nodes_use_the_first_ready_subnet_by_name_in_the_region() {
        ClusterWorld w = new ClusterWorld();
        Cluster c = w.create(w.alice, standard("net").networkId(NETWORK));
        assertThat(c.networkId()).isEqualTo(NETWORK);
        assertThat(c.subnetName()).isEqualTo("main");
    }

    /**
     * The refusals of the use case, in the order of its checks. A field's own form (patterns, lengths, ranges, unknown
     * fields, types) is the API's to check before a command exists: {@code ClusterBodiesTest} in the HTTP adapter.
     */
    static List<Arguments> refusals() {
        return List.of(
                arguments("a pool the tenant cannot see", standard("a").poolId(GLOBEX_POOL), ErrorCode.NOT_FOUND, null),
                arguments("a pool that does not exist", standard("a").poolId("pool_00000000000000000000000000"), ErrorCode.NOT_FOUND, null),
                arguments("a pool whose provider has no managed Kubernetes", standard("a").poolId(METAL_POOL).location("us-west1-a"), ErrorCode.UNSUPPORTED, null),
                arguments("a zone the account does not have", standard("a").location("us-east1-b"), ErrorCode.INVALID_INPUT, "location"),
                arguments("a region the account does not have", standard("a").location("asia-east1"), ErrorCode.INVALID_INPUT, "location"),
                arguments("a standard cluster without node pools", standard("a").nodePools(), ErrorCode.INVALID_INPUT, "nodePools"),
                arguments("an autopilot cluster with node pools", autopilot("a").nodePools(nodePool("x")), ErrorCode.INVALID_INPUT, "nodePools"),
                arguments("a node pool zone outside the account", standard("a").nodePools(nodePool("x").zones("us-central1-f")), ErrorCode.INVALID_INPUT, "nodePools[0].zones[0]"),
                arguments("a node pool zone in another region", standard("a").nodePools(nodePool("x").zones("europe-west4-a")), ErrorCode.INVALID_INPUT, "nodePools[0].zones[0]"),
                arguments("a project of no tenant", standard("a").projectId("prj_00000000000000000000000000"), ErrorCode.INVALID_INPUT, "projectId"),
                arguments("another tenant's network", standard("a").networkId(GLOBEX_NETWORK), ErrorCode.INVALID_INPUT, "networkId"),
                arguments("a network on another account", standard("a").networkId(OWN_ACCOUNT_NETWORK), ErrorCode.INVALID_INPUT, "networkId"),
                arguments("a network not provisioned", standard("a").networkId(PENDING_NETWORK), ErrorCode.INVALID_STATE, null),
                arguments("a network whose subnet in the region is not ready", standard("a").networkId(NETWORK).location("europe-west4-a"), ErrorCode.INVALID_STATE, null),
                arguments("a suspended offer", standard("a").poolId(SUSPENDED_POOL), ErrorCode.ACCESS_DENIED, null),
                arguments("a region the offer excludes", standard("a").location("europe-west4-a").nodePools(nodePool("x")), ErrorCode.ACCESS_DENIED, null));
    }

    @ParameterizedTest(name = "{0} is {2}")
    @MethodSource("refusals")
    void refuses_and_leaves_nothing_behind(String why, ClusterWorld.Create create, ErrorCode code, String field) {
        ClusterWorld w = new ClusterWorld();
        assertThatThrownBy(() -> w.create(w.alice, create))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(code);
                    if (field != null) {
                        assertThat(ClusterWorld.fields(e)).contains(field);
                    }
                });
        assertThat(w.list(w.alice, "acme", true)).isEmpty();
        assertThat(w.eventTypes()).isEmpty();
    }

    @Test
    void details_name_every_bad_field_of_the_shape_at_once() {
        ClusterWorld w = new ClusterWorld();
        ClusterWorld.Create create = standard("a").projectId("prj_00000000000000000000000000").networkId(GLOBEX_NETWORK)
                .nodePools(nodePool("x").zones("us-central1-a", "us-central1-f"), nodePool("y").zones("europe-west4-a"));
        assertThatThrownBy(() -> w.create(w.alice, create)).isInstanceOfSatisfying(DomainException.class, e ->
                assertThat(ClusterWorld.fields(e)).containsExactlyInAnyOrder("nodePools[0].zones[1]", "nodePools[1].zones[0]", "projectId", "networkId"));
    }

    @Test
    void a_bad_location_is_named_beside_every_other_bad_field_of_the_shape() {
        ClusterWorld w = new ClusterWorld();
        ClusterWorld.Create create = standard("a").location("us-east1-b").projectId("prj_00000000000000000000000000")
                .nodePools(nodePool("x").zones("us-central1-a", "us-east1-c"));
        assertThatThrownBy(() -> w.create(w.alice, create)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(ClusterWorld.fields(e)).containsExactly("location", "nodePools[0].zones[1]", "projectId");
            assertThat(e.getMessage()).isEqualTo("Invalid input: location must be a zone of the pool's account or the region of one (and 2 more).");
            assertThat(e.details().get("allowedRegions")).isEqualTo(List.of("europe-west4", "us-central1"));
        });
    }

    @Test
    void a_bad_location_lists_the_allowed_zones_and_regions() {
        ClusterWorld w = new ClusterWorld();
        assertThatThrownBy(() -> w.create(w.alice, standard("a").location("us-east1-b")))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.details().get("allowedZones")).isEqualTo(List.of("europe-west4-a", "us-central1-a", "us-central1-b", "us-central1-c"));
                    assertThat(e.details().get("allowedRegions")).isEqualTo(List.of("europe-west4", "us-central1"));
                });
    }

    @Test
    void offer_refusals_say_why() {
        ClusterWorld w = new ClusterWorld();
        assertThatThrownBy(() -> w.create(w.alice, standard("a").poolId(SUSPENDED_POOL)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.details()).containsEntry("reason", "offer-suspended"));
        assertThatThrownBy(() -> w.create(w.alice, standard("a").location("europe-west4-a")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.details()).containsEntry("reason", "region-excluded"));
    }

    @Test
    void the_decision_uses_the_clusters_attributes() {
        ClusterWorld w = new ClusterWorld();
        // bob may create autopilot clusters in us-central1 or us-central1-a only
        assertThatThrownBy(() -> w.create(w.bob, standard("std"))).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> w.create(w.bob, autopilot("far").location("europe-west4"))).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(w.create(w.bob, autopilot("ok").location("us-central1")).ownerId()).isEqualTo("user:bob@acme.example");
        assertThatThrownBy(() -> w.create(w.dave, standard("viewer"))).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> w.create(w.carol, standard("other"))).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created");
    }

    @Test
    void checks_run_in_the_documented_order() {
        ClusterWorld w = new ClusterWorld();
        // the input's own form is checked before a command exists (ClusterBodiesTest); then the pool before the location
        assertThatThrownBy(() -> w.create(w.alice, standard("a").poolId(GLOBEX_POOL).location("mars-1a"))).hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
        // the location before the decision
        assertThatThrownBy(() -> w.create(w.dave, standard("a").location("mars-1a"))).hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        // the decision before the offer: dave's refusal carries no offer reason
        assertThatThrownBy(() -> w.create(w.dave, standard("a").poolId(SUSPENDED_POOL)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.details()).doesNotContainKey("reason"));
        // the offer before the budget
        ClusterWorld broke = new ClusterWorld(10, List.of(new Budget("monthly", "acme", new BigDecimal("100"), new BigDecimal("100"))));
        assertThatThrownBy(() -> broke.create(broke.alice, standard("a").poolId(SUSPENDED_POOL)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        // the budget before the name
        Cluster first = w.create(w.alice, standard("taken"));
        assertThat(first).isNotNull();
        assertThatThrownBy(() -> broke.create(broke.alice, standard("taken")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.QUOTA_EXCEEDED);
    }

    @Test
    void an_exhausted_budget_refuses_unless_the_pool_bills_nothing() {
        ClusterWorld w = new ClusterWorld(10, List.of(new Budget("monthly", "acme", new BigDecimal("5000"), new BigDecimal("5000.00"))));
        assertThatThrownBy(() -> w.create(w.alice, standard("a")))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.QUOTA_EXCEEDED);
                    assertThat(e.details()).containsEntry("reason", "budget").containsEntry("limit", new BigDecimal("5000"))
                            .containsEntry("spent", new BigDecimal("5000.00"));
                });
        assertThat(w.create(w.alice, standard("free").poolId(FREE_POOL)).poolId()).isEqualTo(FREE_POOL);
    }

    @Test
    void a_name_is_unique_among_clusters_not_deleted() {
        ClusterWorld w = new ClusterWorld();
        Cluster first = w.create(w.alice, standard("train"));
        assertThatThrownBy(() -> w.create(w.alice, standard("train").idempotencyKey("other")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.CONFLICT);
        // still taken while deleting
        w.delete(w.alice, "acme", first.id());
        assertThatThrownBy(() -> w.create(w.alice, standard("train").idempotencyKey("other")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.CONFLICT);
        // free once deleted
        Cluster deleting = w.get(w.alice, "acme", first.id());
        w.ports.clusters().update(deleting.toBuilder().state(ClusterState.DELETED).version(deleting.version() + 1).build(), deleting.version());
        assertThat(w.create(w.alice, standard("train").idempotencyKey("other")).name()).isEqualTo("train");
        // another tenant may use it
        assertThat(w.create(w.carol, standard("train").tenantId("globex")).tenantId()).isEqualTo("globex");
    }

    @Test
    void the_quota_counts_clusters_being_deleted_and_names_the_limit() {
        ClusterWorld w = new ClusterWorld(2, List.of());
        Cluster a = w.create(w.alice, standard("a"));
        w.create(w.alice, standard("b"));
        w.delete(w.alice, "acme", a.id());
        assertThatThrownBy(() -> w.create(w.alice, standard("c")))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.QUOTA_EXCEEDED);
                    assertThat(e.details()).containsEntry("limit", 2);
                });
    }

    @Test
    void a_retry_with_the_same_key_returns_the_same_cluster_and_publishes_once() {
        ClusterWorld w = new ClusterWorld();
        Cluster first = w.create(w.alice, standard("train"));
        // the same request (a body that spells out its defaults binds to the same command: ClusterBodiesTest)
        Cluster again = w.create(w.alice, standard("train"));
        assertThat(again).isEqualTo(first);
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created");
        // returned as it is now
        w.describe(w.alice, "acme", first.id(), "now");
        assertThat(w.create(w.alice, standard("train")).description()).isEqualTo("now");
    }

    @Test
    void a_retry_is_answered_as_a_replay_before_the_checks_that_come_after_it() {
        ClusterWorld w = new ClusterWorld(1, List.of());
        Cluster first = w.create(w.alice, standard("train"));
        // the quota is full (checked in the group's transaction), then the budget is spent (checked before it)
        assertThat(w.create(w.alice, standard("train"))).isEqualTo(first);
        Catalog c = w.catalog;
        w.reload(new Catalog(c.providers(), c.accounts(), c.pools(), c.offers(), c.tenants(), c.projects(), c.networks(),
                List.of(new Budget("monthly", "acme", new BigDecimal("100"), new BigDecimal("100.00"))), c.principals()));
        assertThatThrownBy(() -> w.create(w.alice, standard("serve")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.QUOTA_EXCEEDED);
        assertThat(w.create(w.alice, standard("train"))).isEqualTo(first);
        assertThatThrownBy(() -> w.create(w.alice, standard("train").description("another request")))
                .as("the same key with another field, refused by the budget too: the replay's conflict comes first")
                .hasFieldOrPropertyWithValue("code", ErrorCode.CONFLICT);
        assertThat(w.eventTypes()).containsExactly("kubernetes.cluster.created");
    }

    @Test
    void the_same_key_with_another_field_is_a_conflict() {
        ClusterWorld w = new ClusterWorld();
        w.create(w.alice, standard("train"));
        assertThatThrownBy(() -> w.create(w.alice, standard("train").location("us-central1-b")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.CONFLICT);
    }

    @Test
    void the_same_key_from_another_caller_is_another_cluster() {
        ClusterWorld w = new ClusterWorld();
        Cluster alices = w.create(w.alice, autopilot("a1").location("us-central1"));
        Cluster bobs = w.create(w.bob, autopilot("a2").location("us-central1").idempotencyKey("key-a1"));
        assertThat(bobs.id()).isNotEqualTo(alices.id());
    }

    @Test
    void concurrent_creates_of_one_name_make_exactly_one_cluster() throws Exception {
        ClusterWorld w = new ClusterWorld(100, List.of());
        List<Callable<Cluster>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            int n = i;
            calls.add(() -> w.create(w.alice, standard("same").idempotencyKey("k" + n)));
        }
        assertThat(successes(calls)).isEqualTo(1);
    }

    @Test
    void concurrent_creates_never_pass_the_quota() throws Exception {
        ClusterWorld w = new ClusterWorld(5, List.of());
        List<Callable<Cluster>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            int n = i;
            calls.add(() -> w.create(w.alice, standard("c" + n)));
        }
        assertThat(successes(calls)).isEqualTo(5);
        assertThat(w.ports.clusters().countNotDeleted("acme")).isEqualTo(5);
    }

    static int successes(List<Callable<Cluster>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            int ok = 0;
            for (Future<Cluster> f : pool.invokeAll(calls)) {
                try {
                    f.get();
                    ok++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(DomainException.class);
                }
            }
            return ok;
        } finally {
            pool.shutdown();
        }
    }
}
