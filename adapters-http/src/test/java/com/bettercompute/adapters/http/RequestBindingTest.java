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
    private static List<Map<String, Object>> problems(String json, Request.Body<?> type) {
        try {
            Json.command(json.getBytes(StandardCharsets.UTF_8), (Request.Body) type);
        } catch (DomainException e) {
            List<Map<String, Object>> fields = (List<Map<String, Object>>) e.details().get("fields");
            return fields;
        }
        throw new AssertionError("no problem with " + json);
    }

    private static List<String> named(String json, Request.Body<?> type) {
        return problems(json, type).stream().map(p -> p.get("field") + ": " + p.get("problem")).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"x\"", "1", "true", "null"})
    void a_body_that_is_not_an_object_is_named_once_and_the_required_fields_with_it(String body) {
        assertThat(named(body, ClusterRequests.OneCluster.BODY)).containsExactly(
                ": the body must be a JSON object", "tenantId: is required", "clusterId: is required");
    }

    @Test
    void integers_are_json_integers_in_range_said_in_words_beside_the_schema() {
        String pool = "\"name\":\"p\",\"machineType\":\"m\",\"nodeCount\":";
        String body = "{\"tenantId\":\"acme\",\"clusterId\":\"kcl_00000000000000000000000000\",\"idempotencyKey\":\"k\",";
        String words = "nodeCount: must be an integer from 0 to 1000";
        assertThat(named(body + pool + "5.5}", NodePoolRequests.CreateNodePool.BODY)).containsExactly(words);
        assertThat(named(body + pool + "99999999999999999999}", NodePoolRequests.CreateNodePool.BODY)).containsExactly(words);
        assertThat(named(body + pool + "\"5\"}", NodePoolRequests.CreateNodePool.BODY)).containsExactly(words);
        assertThat(named(body + pool + "1E400}", NodePoolRequests.CreateNodePool.BODY)).containsExactly(words);
        assertThat(named(body + pool + "1001}", NodePoolRequests.CreateNodePool.BODY)).containsExactly(words);
        // JSON Schema's integer is a number without a fraction: 5.0 is one, as the document says
        assertThat(Json.command((body + pool + "5.0}").getBytes(StandardCharsets.UTF_8), NodePoolRequests.CreateNodePool.BODY)
                .spec().nodeCount()).isEqualTo(5);
        Map<String, Object> problem = problems(body + pool + "-1}", NodePoolRequests.CreateNodePool.BODY).get(0);
        assertThat(problem).containsEntry("in", "body")
                .containsEntry("allowed", Map.of("type", "integer", "format", "int32", "minimum", 0L, "maximum", 1000L));
    }

    @Test
    @SuppressWarnings("unchecked")
    void a_pattern_is_said_in_words_with_the_pattern_beside_them() {
        Map<String, Object> problem = problems("{\"tenantId\":\"acme\",\"clusterId\":\"kcl_00000000000000000000000000\","
                + "\"idempotencyKey\":\"k\",\"name\":\"Bad_Name\",\"machineType\":\"m\",\"nodeCount\":1}", NodePoolRequests.CreateNodePool.BODY).get(0);
        assertThat(problem.get("field")).isEqualTo("name");
        assertThat(problem.get("problem")).isEqualTo("must be lower-case letters, digits and hyphens, starting with a letter, "
                + "not ending with a hyphen, at most 40 characters, not starting with bc-");
        assertThat((Map<String, Object>) problem.get("allowed")).containsEntry("pattern", com.bettercompute.application.cluster.Patterns.NAME.pattern())
                .containsEntry("maxLength", 40);
    }

    @Test
    void nested_problems_carry_their_path_and_unknown_fields_come_last_in_their_object() {
        String body = "{\"colour\":1,\"tenantId\":\"acme\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"name\":\"n\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"idempotencyKey\":\"k\",\"nodePools\":["
                + "{\"name\":\"ok\",\"machineType\":\"m\",\"nodeCount\":1},"
                + "{\"name\":3,\"x\":{\"deep\":[1]},\"machineType\":\"m\",\"nodeCount\":1,\"labels\":{\"team\":7},"
                + "\"autoscaling\":{\"minNodes\":5,\"maxNodes\":2,\"y\":0},\"taints\":[{\"key\":\"gpu\",\"effect\":\"Never\"}]}]}";
        assertThat(named(body, ClusterRequests.CreateCluster.BODY)).containsExactly(
                "nodePools[1].name: must be lower-case letters, digits and hyphens, starting with a letter, not ending with a hyphen, "
                        + "at most 40 characters, not starting with bc-",
                "nodePools[1].autoscaling.minNodes: must not be above maxNodes",
                "nodePools[1].autoscaling.y: is not a field of this method",
                "nodePools[1].labels.team: must be a Kubernetes label value: empty, or at most 63 letters, digits, hyphens, "
                        + "underscores and dots, starting and ending with a letter or digit",
                "nodePools[1].taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute",
                "nodePools[1].x: is not a field of this method",
                "colour: is not a field of this method");
    }

    @Test
    void nulls_inside_lists_are_wrong_types_and_a_null_field_is_absent() {
        assertThat(named("{\"tenantId\":\"acme\",\"clusterId\":null,\"authorizedNetworks\":[\"10.0.0.0/8\",null]}",
                ClusterRequests.UpdateCluster.BODY)).containsExactly("clusterId: is required",
                "authorizedNetworks[1]: must be " + Wire.CIDR.words());
    }

    @Test
    void a_list_names_every_bad_field_of_each_item_and_an_item_that_is_no_object() {
        assertThat(named("{\"tenantId\":\"acme\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"name\":\"n\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"idempotencyKey\":\"k\",\"nodePools\":[{\"name\":5},7]}", ClusterRequests.CreateCluster.BODY))
                .containsExactly("nodePools[0].name: must be lower-case letters, digits and hyphens, starting with a letter, not ending "
                        + "with a hyphen, at most 40 characters, not starting with bc-", "nodePools[0].machineType: is required",
                        "nodePools[0].nodeCount: is required", "nodePools[1]: must be an object");
    }

    @Test
    void a_long_string_is_refused_without_echoing_it() {
        String huge = "s".repeat(100_000);
        List<Map<String, Object>> problems = problems("{\"tenantId\":\"" + huge + "\",\"clusterId\":\"kcl_00000000000000000000000000\"}",
                ClusterRequests.OneCluster.BODY);
        assertThat(problems).singleElement().satisfies(p -> assertThat(p.get("problem").toString()).doesNotContain(huge.substring(0, 50)));
    }

    @Test
    void an_explicit_null_autoscaling_turns_it_off_and_an_absent_one_leaves_it() {
        String ref = "{\"tenantId\":\"acme\",\"clusterId\":\"kcl_00000000000000000000000000\",\"nodePoolId\":\"knp_00000000000000000000000000\"";
        var off = Json.command((ref + ",\"autoscaling\":null}").getBytes(StandardCharsets.UTF_8), NodePoolRequests.UpdateNodePool.BODY);
        assertThat(off.autoscalingGiven()).isTrue();
        assertThat(off.autoscaling()).isNull();
        assertThat(named(ref + "}", NodePoolRequests.UpdateNodePool.BODY))
                .containsExactly(": must name at least one of nodeCount, autoscaling, labels, taints");
    }

    /** Each request record binds exactly the fields its schema names, in the schema's order. */
    @Test
    void each_request_record_has_exactly_its_schemas_fields() {
        for (Router.Route route : ApiWorldRoutes.all()) {
            if (route.body() == null) {
                continue;
            }
            List<String> components = new ArrayList<>();
            for (RecordComponent c : route.body().type().getRecordComponents()) {
                components.add(c.getName());
            }
            assertThat(route.body().schema().props().stream().map(Schema.Prop::name).toList())
                    .as(route.body().type().getSimpleName()).containsExactlyInAnyOrderElementsOf(components);
        }
    }
}
