package com.bettercompute.adapters.http;

import com.bettercompute.domain.DomainException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bodies bound into their request records and checked: every bad field named with its path and why, in the
 * order the method's table checks them, each wrong type as the type the field must have, unknown fields last
 * in their object.
 */
class RequestBindingTest {
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<Map<String, Object>> problems(String json, Class<? extends Request<?>> type) {
        try {
            Json.command(json.getBytes(StandardCharsets.UTF_8), (Class) type);
        } catch (DomainException e) {
            List<Map<String, Object>> fields = (List<Map<String, Object>>) e.details().get("fields");
            return fields;
        }
        throw new AssertionError("no problem with " + json);
    }

    private static List<String> named(String json, Class<? extends Request<?>> type) {
        return problems(json, type).stream().map(p -> p.get("field") + ": " + p.get("problem")).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"x\"", "1", "true", "null"})
    void a_body_that_is_not_an_object_is_named_once_and_the_required_fields_with_it(String body) {
        assertThat(named(body, ClusterRequests.OneCluster.class)).containsExactly(
                ": the body must be a JSON object", "tenantId: is required", "clusterId: is required");
    }

    @Test
    void integers_are_json_integers_in_range() {
        String pool = "\"name\":\"p\",\"machineType\":\"m\",\"nodeCount\":";
        String body = "{\"tenantId\":\"acme\",\"clusterId\":\"kcl_00000000000000000000000000\",\"idempotencyKey\":\"k\",";
        assertThat(named(body + pool + "5.0}", NodePoolRequests.CreateNodePool.class)).containsExactly("nodeCount: must be an integer");
        assertThat(named(body + pool + "99999999999999999999}", NodePoolRequests.CreateNodePool.class)).containsExactly("nodeCount: must be between 0 and 1000");
        assertThat(named(body + pool + "\"5\"}", NodePoolRequests.CreateNodePool.class)).containsExactly("nodeCount: must be an integer");
        assertThat(named(body + pool + "1E400}", NodePoolRequests.CreateNodePool.class)).containsExactly("nodeCount: must be an integer");
        assertThat(named(body + pool + "1001}", NodePoolRequests.CreateNodePool.class)).containsExactly("nodeCount: must be between 0 and 1000");
    }

    @Test
    void nested_problems_carry_their_path_and_unknown_fields_come_last_in_their_object() {
        String body = "{\"colour\":1,\"tenantId\":\"acme\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"name\":\"n\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"idempotencyKey\":\"k\",\"nodePools\":["
                + "{\"name\":\"ok\",\"machineType\":\"m\",\"nodeCount\":1},"
                + "{\"name\":3,\"x\":{\"deep\":[1]},\"machineType\":\"m\",\"nodeCount\":1,\"labels\":{\"team\":7},"
                + "\"autoscaling\":{\"minNodes\":5,\"maxNodes\":2,\"y\":0},\"taints\":[{\"key\":\"gpu\",\"effect\":\"Never\"}]}]}";
        assertThat(named(body, ClusterRequests.CreateCluster.class)).containsExactly(
                "nodePools[1].name: must be a string",
                "nodePools[1].autoscaling.y: is not a field of this method",
                "nodePools[1].autoscaling.minNodes: must not be above maxNodes",
                "nodePools[1].labels.team: must be a string",
                "nodePools[1].taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute",
                "nodePools[1].x: is not a field of this method",
                "colour: is not a field of this method");
    }

    @Test
    void nulls_inside_lists_are_wrong_types_and_a_null_field_is_absent() {
        assertThat(named("{\"tenantId\":\"acme\",\"clusterId\":null,\"authorizedNetworks\":[\"10.0.0.0/8\",null]}",
                ClusterRequests.UpdateCluster.class)).containsExactly("clusterId: is required", "authorizedNetworks[1]: must be a string");
    }

    @Test
    void a_list_with_an_item_that_is_no_object_names_that_item_only() {
        assertThat(named("{\"tenantId\":\"acme\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"name\":\"n\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"idempotencyKey\":\"k\",\"nodePools\":[{\"name\":5},7]}", ClusterRequests.CreateCluster.class))
                .containsExactly("nodePools[1]: must be an object");
    }

    @Test
    void a_long_string_is_refused_without_echoing_it() {
        String huge = "s".repeat(100_000);
        List<Map<String, Object>> problems = problems("{\"tenantId\":\"" + huge + "\",\"clusterId\":\"kcl_00000000000000000000000000\"}",
                ClusterRequests.OneCluster.class);
        assertThat(problems).singleElement().satisfies(p -> assertThat(p.get("problem").toString()).doesNotContain(huge.substring(0, 50)));
    }

    @Test
    void an_explicit_null_autoscaling_turns_it_off_and_an_absent_one_leaves_it() {
        String ref = "{\"tenantId\":\"acme\",\"clusterId\":\"kcl_00000000000000000000000000\",\"nodePoolId\":\"knp_00000000000000000000000000\"";
        var off = Json.command((ref + ",\"autoscaling\":null}").getBytes(StandardCharsets.UTF_8), NodePoolRequests.UpdateNodePool.class);
        assertThat(off.autoscalingGiven()).isTrue();
        assertThat(off.autoscaling()).isNull();
        assertThat(named(ref + "}", NodePoolRequests.UpdateNodePool.class))
                .containsExactly(": name at least one of nodeCount, autoscaling, labels, taints");
    }

    /** The OpenAPI document's required fields are the ones the checks require: {} names exactly those. */
    @Test
    void each_request_records_required_marks_agree_with_its_checks() {
        for (Router.Route route : ApiWorldRoutes.all()) {
            if (route.body() == null) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Class<? extends Request<?>> type = (Class<? extends Request<?>>) route.body();
            List<String> marked = new ArrayList<>();
            for (RecordComponent c : type.getRecordComponents()) {
                if (c.isAnnotationPresent(Required.class)) {
                    marked.add(c.getName() + ": is required");
                }
            }
            List<String> required = named("{}", type).stream().filter(p -> p.endsWith(": is required")).toList();
            assertThat(required).as(type.getSimpleName()).containsExactlyInAnyOrderElementsOf(marked);
        }
    }
}
