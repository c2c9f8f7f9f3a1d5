package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How a webhook's rules, scope and selectors match a request, as kube-apiserver matches them. */
class WebhookRulesTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private static Map<String, Object> map(String json) {
        @SuppressWarnings("unchecked")
        Map<String, Object> out = JSON.unmarshal(json, Map.class);
        return out;
    }

    @ParameterizedTest(name = "resources {0} vs {1}/{2} → {3}")
    @CsvSource(delimiter = '|', textBlock = """
            "pods"           | pods   | ''       | true
            "pods"           | pods   | status   | false
            "*"              | pods   | ''       | true
            "*"              | pods   | status   | false
            "*/*"            | pods   | ''       | true
            "*/*"            | pods   | eviction | true
            "pods/*"         | pods   | status   | true
            "pods/*"         | pods   | ''       | true
            "pods/*"         | jobs   | status   | false
            "*/status"       | jobs   | status   | true
            "*/status"       | jobs   | scale    | false
            "pods/eviction"  | pods   | eviction | true
            "jobs", "pods"   | pods   | ''       | true
            """)
    void resources_and_subresources(String resources, String resource, String subResource, boolean matches) {
        Map<String, Object> webhook = map("{\"rules\": [{\"apiGroups\": [\"*\"], \"apiVersions\": [\"*\"], \"operations\": [\"*\"], \"resources\": ["
                + resources + "]}]}");
        WebhookRules.Request request = new WebhookRules.Request("CREATE", "", "v1", resource, subResource.isEmpty() ? null : subResource,
                "default", Map.of(), null);

        assertThat(WebhookRules.anyRule(webhook, request)).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0}: {1} {2} in {3} → {4}")
    @CsvSource(delimiter = '|', textBlock = """
            "*"          | pods       | CREATE | default | true
            "*"          | nodes      | CREATE | ''      | true
            "Namespaced" | pods       | CREATE | default | true
            "Namespaced" | nodes      | CREATE | ''      | false
            "Namespaced" | namespaces | CREATE | team-a  | false
            "Cluster"    | nodes      | CREATE | ''      | true
            "Cluster"    | namespaces | UPDATE | team-a  | true
            "Cluster"    | pods       | CREATE | default | false
            """)
    void scope(String scope, String resource, String operation, String namespace, boolean matches) {
        Map<String, Object> webhook = map("{\"rules\": [{\"apiGroups\": [\"\"], \"apiVersions\": [\"v1\"], \"operations\": [\"CREATE\", \"UPDATE\"], "
                + "\"resources\": [\"*\"], \"scope\": " + scope + "}]}");
        WebhookRules.Request request = new WebhookRules.Request(operation, "", "v1", resource, null, namespace, Map.of(), null);

        assertThat(WebhookRules.anyRule(webhook, request)).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0} on {1} → {2}")
    @CsvSource(delimiter = '|', textBlock = """
            {}                                                                           | team=ml          | true
            {"matchLabels": {"team": "ml"}}                                              | team=ml,tier=gpu | true
            {"matchLabels": {"team": "ml"}}                                              | team=web         | false
            {"matchLabels": {"team": "ml"}}                                              | ''               | false
            {"matchExpressions": [{"key": "team", "operator": "In", "values": ["ml", "ai"]}]}    | team=ai  | true
            {"matchExpressions": [{"key": "team", "operator": "In", "values": ["ml"]}]}          | ''       | false
            {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["web"]}]}      | ''       | true
            {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["web"]}]}      | team=web | false
            {"matchExpressions": [{"key": "team", "operator": "Exists"}]}                        | team=    | true
            {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}                  | team=ml  | false
            {"matchLabels": {"team": "ml"}, "matchExpressions": [{"key": "tier", "operator": "Exists"}]} | team=ml | false
            """)
    void label_selectors(String selector, String labels, boolean matches) {
        assertThat(WebhookRules.selected(map(selector), labels(labels))).isEqualTo(matches);
    }

    @ParameterizedTest(name = "object {0}, old object {1} → {2}")
    @CsvSource({"team=ml, team=web, true", "team=web, team=ml, true", "team=web, team=web, false", "'', team=ml, true"})
    void the_object_selector_matches_the_new_or_the_old_object(String object, String old, boolean matches) {
        Map<String, Object> webhook = map("{\"rules\": [{\"apiGroups\": [\"*\"], \"apiVersions\": [\"*\"], \"operations\": [\"*\"], \"resources\": [\"*\"]}],"
                + " \"objectSelector\": {\"matchLabels\": {\"team\": \"ml\"}}}");
        WebhookRules.Request request = new WebhookRules.Request("UPDATE", "batch", "v1", "jobs", null, "default",
                withLabels(object), withLabels(old));

        assertThat(WebhookRules.matches(webhook, request, ns -> Map.of())).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0} in {1} → {2}")
    @CsvSource({"jobs, tenant, true", "jobs, system, false", "nodes, '', true", "namespaces, tenant, true"})
    void the_namespace_selector_reads_the_namespaces_labels_and_skips_cluster_scoped_objects(String resource, String namespace, boolean matches) {
        Map<String, Object> webhook = map("{\"rules\": [{\"apiGroups\": [\"*\"], \"apiVersions\": [\"*\"], \"operations\": [\"*\"], \"resources\": [\"*\"]}],"
                + " \"namespaceSelector\": {\"matchLabels\": {\"market\": \"on\"}}}");
        Map<String, Map<String, Object>> namespaces = Map.of("tenant", labels("market=on"), "system", labels(""));
        Map<String, Object> object = "namespaces".equals(resource) ? withLabels("market=on") : withLabels("");
        WebhookRules.Request request = new WebhookRules.Request("CREATE", "", "v1", resource, null, namespace, object, null);

        assertThat(WebhookRules.matches(webhook, request, ns -> namespaces.getOrDefault(ns, Map.of()))).isEqualTo(matches);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /api/v1/namespaces/default/pods                         | ''    | v1 | pods       | ''       | default | ''    | ''
            /api/v1/namespaces/default/pods/p1/eviction             | ''    | v1 | pods       | eviction | default | p1    | /api/v1/namespaces/default/pods/p1
            /apis/batch/v1/namespaces/ml/jobs/train/status          | batch | v1 | jobs       | status   | ml      | train | /apis/batch/v1/namespaces/ml/jobs/train
            /api/v1/nodes/n1                                        | ''    | v1 | nodes      | ''       | ''      | n1    | /api/v1/nodes/n1
            /api/v1/namespaces/team-a                               | ''    | v1 | namespaces | ''       | team-a  | team-a | /api/v1/namespaces/team-a
            /api/v1/namespaces/team-a/status                        | ''    | v1 | namespaces | status   | team-a  | team-a | /api/v1/namespaces/team-a
            /api/v1/namespaces                                      | ''    | v1 | namespaces | ''       | ''      | ''    | ''
            """)
    void api_paths_read_as_kube_apiserver_reads_them(String path, String group, String version, String resource, String subResource,
                                                     String namespace, String name, String objectPath) {
        assertThat(ApiPath.of(path)).isEqualTo(new ApiPath(group, version, resource, blankToNull(subResource), blankToNull(namespace),
                blankToNull(name), blankToNull(objectPath)));
    }

    @ParameterizedTest
    @CsvSource({"/version", "/apis", "/apis/batch/v1", "/api/v1"})
    void discovery_paths_name_no_resource(String path) {
        assertThat(ApiPath.of(path)).isNull();
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static Map<String, Object> withLabels(String labels) {
        return new LinkedHashMap<>(Map.of("metadata", Map.of("labels", labels(labels))));
    }

    private static Map<String, Object> labels(String pairs) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (pairs == null || pairs.isEmpty()) {
            return out;
        }
        for (String pair : List.of(pairs.split(","))) {
            String[] kv = Arrays.copyOf(pair.split("=", 2), 2);
            out.put(kv[0], kv[1] == null ? "" : kv[1]);
        }
        return out;
    }
}
