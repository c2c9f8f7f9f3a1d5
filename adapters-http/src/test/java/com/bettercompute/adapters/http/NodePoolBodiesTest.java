package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.ClusterWorld;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.Taint;
import com.bettercompute.domain.cluster.TaintEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.bettercompute.adapters.http.ClusterBodies.poolBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What the API makes of the node pools methods' bodies before a use case sees them: a field out of its form refused as
 * {@code INVALID_INPUT} naming it, defaults applied, {@code "autoscaling": null} told from a field left out.
 */
class NodePoolBodiesTest {
    static final String CLUSTER = "kcl_00000000000000000000000000";
    static final String POOL = "knp_00000000000000000000000000";

    static List<Arguments> refusals() {
        return List.of(
                arguments("an unknown field", poolBody(CLUSTER, "cpu", "color", "red"), "color"),
                arguments("a bad machine type", poolBody(CLUSTER, "cpu", "machineType", "N2!"), "machineType"),
                arguments("a platform pool name", poolBody(CLUSTER, "bc-mine"), "name"),
                arguments("a second CPU worker, by its name", poolBody(CLUSTER, CpuWorker.NAME), "name"),
                arguments("autoscaling min above max", poolBody(CLUSTER, "cpu", "autoscaling", Map.of("minNodes", 5, "maxNodes", 2)),
                        "autoscaling.minNodes"));
    }

    @ParameterizedTest(name = "create with {0}")
    @MethodSource("refusals")
    void a_create_field_out_of_its_form_is_invalid_input_naming_it(String what, Map<String, Object> body, String field) {
        assertThatThrownBy(() -> Bodies.createNodePool(body)).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
            assertThat(ClusterWorld.fields(e)).contains(field);
        });
    }

    @Test
    void a_create_body_that_spells_out_its_defaults_binds_to_the_same_command() {
        CreateNodePoolCommand plain = Bodies.createNodePool(poolBody(CLUSTER, "cpu"));
        CreateNodePoolCommand spelled = Bodies.createNodePool(poolBody(CLUSTER, "cpu", "diskGiB", 100, "spot", false));

        assertThat(spelled).isEqualTo(plain);
        assertThat(spelled.fingerprint()).isEqualTo(plain.fingerprint());
        assertThat(Bodies.createNodePool(poolBody(CLUSTER, "cpu", "nodeCount", 3)).fingerprint()).isNotEqualTo(plain.fingerprint());
    }

    @Test
    void update_needs_a_field_it_may_change_in_its_range() {
        Map<String, Object> ref = ref();
        assertThatThrownBy(() -> Bodies.updateNodePool(ref)).hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThatThrownBy(() -> Bodies.updateNodePool(with(ref, "machineType", "n2-standard-4")))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
        assertThatThrownBy(() -> Bodies.updateNodePool(with(ref, "nodeCount", 1001)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.INVALID_INPUT);
    }

    @Test
    void update_binds_each_field_named_and_autoscaling_null_turns_it_off() {
        UpdateNodePoolCommand resize = Bodies.updateNodePool(with(ref(), "nodeCount", 4));
        assertThat(resize.nodeCount()).isEqualTo(4);
        assertThat(resize.autoscalingGiven()).isFalse();

        assertThat(Bodies.updateNodePool(with(ref(), "autoscaling", Map.of("minNodes", 1, "maxNodes", 6))).autoscaling())
                .isEqualTo(new Autoscaling(1, 6));

        Map<String, Object> off = new HashMap<>(ref());
        off.put("autoscaling", null);
        UpdateNodePoolCommand noAutoscaling = Bodies.updateNodePool(off);
        assertThat(noAutoscaling.autoscalingGiven()).isTrue();
        assertThat(noAutoscaling.autoscaling()).isNull();

        UpdateNodePoolCommand relabel = Bodies.updateNodePool(with(ref(), "labels", Map.of("team", "ml"),
                "taints", List.of(Map.of("key", "gpu", "value", "true", "effect", "NoSchedule"))));
        assertThat(relabel.labels()).isEqualTo(Map.of("team", "ml"));
        assertThat(relabel.taints()).containsExactly(new Taint("gpu", "true", TaintEffect.NoSchedule));
    }

    @Test
    void list_binds_include_deleted() {
        assertThat(Bodies.listNodePools(Map.of("tenantId", "acme", "clusterId", CLUSTER, "includeDeleted", true)).includeDeleted()).isTrue();
        assertThat(Bodies.listNodePools(Map.of("tenantId", "acme", "clusterId", CLUSTER)).includeDeleted()).isFalse();
    }

    private static Map<String, Object> ref() {
        return Map.of("tenantId", "acme", "clusterId", CLUSTER, "nodePoolId", POOL);
    }

    private static Map<String, Object> with(Map<String, Object> base, Object... more) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }
}
