package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.ClusterWorld;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.CredentialRole;
import com.bettercompute.application.cluster.CredentialsCommand;
import com.bettercompute.application.cluster.UpdateClusterCommand;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.ReleaseChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.bettercompute.adapters.http.ClusterBodies.GLOBEX_POOL;
import static com.bettercompute.adapters.http.ClusterBodies.nodePool;
import static com.bettercompute.adapters.http.ClusterBodies.standard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What the API makes of the clusters methods' bodies before a use case sees them: every field out of its form (pattern,
 * length, range, type, unknown) refused as {@code INVALID_INPUT} naming it, defaults applied, each field bound to its
 * typed value. What the use cases decide on the typed commands is tested beside them, in the application.
 */
class ClusterBodiesTest {

    static List<Arguments> refusals() {
        String tooLong = "x".repeat(257);
        List<Object> fiftyOne = new ArrayList<>(Collections.nCopies(51, "10.0.0.0/8"));
        List<Object> elevenPools = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            elevenPools.add(nodePool("p" + i));
        }
        return List.of(
                arguments("an unknown field", standard("a", "colour", "blue"), "colour"),
                arguments("a name with capitals", standard("Bad"), "name"),
                arguments("a name of 41 characters", standard("a" + "b".repeat(40)), "name"),
                arguments("a name ending with a dash", standard("a-"), "name"),
                arguments("an unknown mode", standard("a", "mode", "hybrid"), "mode"),
                arguments("no pool", standard("a", "poolId", null), "poolId"),
                arguments("a pool id of the wrong form", standard("a", "poolId", "pool-1"), "poolId"),
                arguments("a tenant id with a space", standard("a", "tenantId", "ac me"), "tenantId"),
                arguments("no idempotency key", standard("a", "idempotencyKey", null), "idempotencyKey"),
                arguments("an unknown release channel", standard("a", "releaseChannel", "beta"), "releaseChannel"),
                arguments("a version of the wrong form", standard("a", "version", "1.33.x"), "version"),
                arguments("a description of 257 characters", standard("a", "description", tooLong), "description"),
                arguments("a string for a boolean", standard("a", "privateNodes", "yes"), "privateNodes"),
                arguments("51 authorized networks", standard("a", "authorizedNetworks", fiftyOne), "authorizedNetworks"),
                arguments("a prefix over 32", standard("a", "authorizedNetworks", List.of("10.0.0.0/33")), "authorizedNetworks[0]"),
                arguments("host bits after the prefix", standard("a", "authorizedNetworks", List.of("10.0.0.1/8")), "authorizedNetworks[0]"),
                arguments("an IPv6 network", standard("a", "authorizedNetworks", List.of("2001:db8::/32")), "authorizedNetworks[0]"),
                arguments("11 node pools", standard("a", "nodePools", elevenPools), "nodePools"),
                arguments("two node pools of one name", standard("a", "nodePools", List.of(nodePool("x"), nodePool("x"))), "nodePools[1].name"),
                arguments("a node count of 1001", standard("a", "nodePools", List.of(nodePool("x", "nodeCount", 1001))), "nodePools[0].nodeCount"),
                arguments("a node count of -1", standard("a", "nodePools", List.of(nodePool("x", "nodeCount", -1))), "nodePools[0].nodeCount"),
                arguments("a node count as text", standard("a", "nodePools", List.of(nodePool("x", "nodeCount", "2"))), "nodePools[0].nodeCount"),
                arguments("a node count with a fraction", standard("a", "nodePools", List.of(nodePool("x", "nodeCount", new BigDecimal("2.5")))), "nodePools[0].nodeCount"),
                arguments("no machine type", standard("a", "nodePools", List.of(nodePool("x", "machineType", null))), "nodePools[0].machineType"),
                arguments("autoscaling above 1000", standard("a", "nodePools", List.of(nodePool("x", "autoscaling", Map.of("minNodes", 0, "maxNodes", 1001)))), "nodePools[0].autoscaling.maxNodes"),
                arguments("autoscaling min above max", standard("a", "nodePools", List.of(nodePool("x", "autoscaling", Map.of("minNodes", 5, "maxNodes", 2)))), "nodePools[0].autoscaling.minNodes"),
                arguments("autoscaling without max", standard("a", "nodePools", List.of(nodePool("x", "autoscaling", Map.of("minNodes", 1)))), "nodePools[0].autoscaling.maxNodes"),
                arguments("a disk of 9 GiB", standard("a", "nodePools", List.of(nodePool("x", "diskGiB", 9))), "nodePools[0].diskGiB"),
                arguments("17 accelerators", standard("a", "nodePools", List.of(nodePool("x", "accelerators", Map.of("type", "nvidia-h100-80gb", "count", 17)))), "nodePools[0].accelerators.count"),
                arguments("an unknown taint effect", standard("a", "nodePools", List.of(nodePool("x", "taints", List.of(Map.of("key", "gpu", "effect", "Never"))))), "nodePools[0].taints[0].effect"),
                arguments("a taint value of 64 characters", standard("a", "nodePools", List.of(nodePool("x", "taints", List.of(Map.of("key", "gpu", "value", "v".repeat(64), "effect", "NoSchedule"))))), "nodePools[0].taints[0].value"),
                arguments("a label that is a number", standard("a", "nodePools", List.of(nodePool("x", "labels", Map.of("team", 7)))), "nodePools[0].labels.team"),
                arguments("11 zones", standard("a", "nodePools", List.of(nodePool("x", "zones", Collections.nCopies(11, "us-central1-a")))), "nodePools[0].zones"),
                arguments("an unknown node pool field", standard("a", "nodePools", List.of(nodePool("x", "gpus", 8))), "nodePools[0].gpus"),
                arguments("a node pool name with the platform's prefix", standard("a", "nodePools", List.of(nodePool("bc-initial"))), "nodePools[0].name"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void a_create_field_out_of_its_form_is_invalid_input_naming_it(String why, Map<String, Object> body, String field) {
        assertThatThrownBy(() -> Bodies.createCluster(body)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
            assertThat(ClusterWorld.fields(e)).contains(field);
        });
    }

    @Test
    void details_name_every_bad_field_at_once() {
        Map<String, Object> body = standard("Bad", "mode", "x", "nodePools", List.of(nodePool("Y", "nodeCount", -4)), "extra", 1);
        assertThatThrownBy(() -> Bodies.createCluster(body)).isInstanceOfSatisfying(DomainException.class, e ->
                assertThat(ClusterWorld.fields(e)).containsExactlyInAnyOrder("name", "mode", "nodePools[0].name", "nodePools[0].nodeCount", "extra"));
    }

    @Test
    void the_input_is_checked_before_the_pool_so_a_bad_field_is_not_hidden_by_a_pool_not_found() {
        try (ApiWorld api = ApiWorld.start()) {
            ApiWorld.Reply r = api.call("create", ApiWorld.ALICE, standard("Bad", "poolId", GLOBEX_POOL));
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("INVALID_INPUT");
            assertThat(api.world.ports.clusters().list(new com.bettercompute.application.port.ClusterFilter("acme", null, null, true), 10))
                    .isEmpty();
        }
    }

    @Test
    void a_create_body_that_spells_out_its_defaults_binds_to_the_same_command() {
        CreateClusterCommand plain = Bodies.createCluster(standard("train"));
        CreateClusterCommand spelled = Bodies.createCluster(standard("train", "releaseChannel", "regular", "privateNodes", false,
                "nodePools", List.of(nodePool("gpu", "diskGiB", 100, "diskType", "pd-balanced", "spot", false))));

        assertThat(spelled).isEqualTo(plain);
        assertThat(spelled.fingerprint()).isEqualTo(plain.fingerprint());
        assertThat(plain.releaseChannel()).isEqualTo(ReleaseChannel.REGULAR);
        assertThat(plain.nodePools().get(0).diskGiB()).isEqualTo(100);
    }

    @Test
    void list_refuses_unknown_fields() {
        assertThatThrownBy(() -> Bodies.listClusters(Map.of("tenantId", "acme", "limit", 5)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThat(Bodies.listClusters(Map.of("tenantId", "acme", "poolId", ClusterBodies.POOL, "includeDeleted", true)).includeDeleted())
                .isTrue();
    }

    @Test
    void update_needs_a_field_it_may_change_and_binds_each_one_named() {
        String id = "kcl_00000000000000000000000000";
        assertThatThrownBy(() -> Bodies.updateCluster(Map.of("tenantId", "acme", "clusterId", id)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThatThrownBy(() -> Bodies.updateCluster(Map.of("tenantId", "acme", "clusterId", id, "name", "b")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);

        assertThat(Bodies.updateCluster(Map.of("tenantId", "acme", "clusterId", id, "version", "1.33", "releaseChannel", "rapid",
                "authorizedNetworks", List.of("198.51.100.0/24"))))
                .isEqualTo(new UpdateClusterCommand("acme", id, "1.33", ReleaseChannel.RAPID, List.of("198.51.100.0/24"), null));
        assertThat(Bodies.updateCluster(Map.of("tenantId", "acme", "clusterId", id, "description", "team ml")))
                .isEqualTo(new UpdateClusterCommand("acme", id, null, null, null, "team ml"));
    }

    @ParameterizedTest(name = "ttlSeconds {0} -> {1}")
    @CsvSource({
            "599,   INVALID_INPUT",
            "600,   600",
            "3600,  3600",
            "86400, 86400",
            "86401, INVALID_INPUT",
            "'\"600\"', INVALID_INPUT",
            "600.0, 600",            // JSON Schema's integer: a number without a fraction
            "600.5, INVALID_INPUT",
    })
    void ttl_is_600_to_86400_seconds(String ttl, String outcome) {
        Object value = ttl.startsWith("\"") ? ttl.substring(1, ttl.length() - 1) : ttl.contains(".") ? (Object) Double.valueOf(ttl) : (Object) Integer.valueOf(ttl);
        Map<String, Object> body = credentials("ttlSeconds", value);
        if (outcome.equals("INVALID_INPUT")) {
            assertThatThrownBy(() -> Bodies.credentials(body)).isInstanceOfSatisfying(DomainException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
                assertThat(ClusterWorld.fields(e)).contains("ttlSeconds");
            });
        } else {
            assertThat(Bodies.credentials(body).ttlSeconds()).isEqualTo(Integer.parseInt(outcome));
        }
    }

    @Test
    void credentials_refuse_unknown_fields_and_roles_and_default_to_view_with_the_modules_ttl() {
        assertThatThrownBy(() -> Bodies.credentials(credentials("role", "owner")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThatThrownBy(() -> Bodies.credentials(credentials("audience", "x")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThatThrownBy(() -> Bodies.credentials(Map.of("tenantId", "acme")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);

        assertThat(Bodies.credentials(credentials())).isEqualTo(new CredentialsCommand("acme", CLUSTER, CredentialRole.VIEW, null));
        assertThat(Bodies.credentials(credentials("role", "admin")).role()).isEqualTo(CredentialRole.ADMIN);
    }

    private static final String CLUSTER = "kcl_00000000000000000000000000";

    private static Map<String, Object> credentials(Object... changes) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", "acme");
        body.put("clusterId", CLUSTER);
        return ClusterBodies.changed(body, changes);
    }
}
