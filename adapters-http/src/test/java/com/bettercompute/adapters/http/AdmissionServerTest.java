package com.bettercompute.adapters.http;

import com.bettercompute.application.admission.AdmitWorkload;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admission webhooks over HTTPS, trusting only the platform's CA: AdmissionReview bodies in, the answer's
 * uid, allowed, status and JSONPatch out; a body that is not a review is a 400 naming the field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionServerTest {
    static final String TOKEN = "cluster-path-token";
    private final MarketWorld world = new MarketWorld();
    private AdmissionServer server;
    private AdmissionTestClient client;
    private final String path = "/admission/" + MarketWorld.ACME_TRAIN + "/" + TOKEN + "/";

    @BeforeAll
    void start() throws Exception {
        world.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, 64L, false, null));
        AdmissionKeys keys = AdmissionKeys.open(null, List.of("localhost", "127.0.0.1"), Clock.systemUTC());
        AdmissionEndpoints endpoints = new AdmissionEndpoints() {
            @Override
            public Optional<Webhooks> webhooks(String clusterId) {
                return Optional.empty();
            }

            @Override
            public boolean accepts(String clusterId, String token) {
                return clusterId.equals(MarketWorld.ACME_TRAIN) && token.equals(TOKEN);
            }
        };
        server = new AdmissionServer(new AdmitWorkload(world.markets, world.ports.clusters(), Set.of("platform")),
                new MutateWorkload(), endpoints, keys.sslContext());
        int port = server.start("127.0.0.1", 0);
        client = new AdmissionTestClient(keys.caPem(), "https://127.0.0.1:" + port);
    }

    @AfterAll
    void stop() {
        server.stop();
    }

    static String review(String resource, String group, String operation, String object, String oldObject) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
                 "kind":{"group":"%s","version":"v1","kind":"X"},"resource":{"group":"%s","version":"v1","resource":"%s"},
                 "name":"train","namespace":"default","operation":"%s","userInfo":{"username":"alice@acme.example"},
                 "object":%s,"oldObject":%s}}""".formatted(group, group, resource, operation, object, oldObject);
    }

    static String job(int gpus) {
        return """
                {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"train","namespace":"default"},
                 "spec":{"parallelism":2,"completions":2,"template":{"spec":{"restartPolicy":"Never","containers":[
                  {"name":"main","image":"trainer","resources":{"limits":{"nvidia.com/gpu":"%d"}}}]}}}}""".formatted(gpus);
    }

    private JsonNode answer(HttpResponse<String> response) throws Exception {
        assertEquals(200, response.statusCode(), response.body());
        JsonNode root = Json.MAPPER.readTree(response.body());
        assertEquals("admission.k8s.io/v1", root.path("apiVersion").asText());
        assertEquals("AdmissionReview", root.path("kind").asText());
        assertEquals("705ab4f5-6393-11e8-b7cc-42010a800002", root.path("response").path("uid").asText());
        return root.path("response");
    }

    @Test
    void a_partial_node_job_is_refused_with_the_rule_and_the_numbers() throws Exception {
        JsonNode r = answer(client.post(path + "validate", review("jobs", "batch", "CREATE", job(4), "null")));
        assertFalse(r.path("allowed").asBoolean(true));
        assertEquals(403, r.path("status").path("code").asInt());
        assertEquals("JobSizeTooSmall", r.path("status").path("reason").asText());
        assertTrue(r.path("status").path("message").asText().startsWith(
                "JobSizeTooSmall: Job \"train\", pod template \"template\", requests 4 GPUs per pod, which is not a multiple of 8"),
                r.toString());
    }

    @Test
    void a_whole_node_job_is_allowed_and_a_cpu_pod_passes() throws Exception {
        assertTrue(answer(client.post(path + "validate", review("jobs", "batch", "CREATE", job(8), "null"))).path("allowed").asBoolean());
        String pod = """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"prep"},"spec":{"containers":[{"name":"c","image":"x"}]}}""";
        assertTrue(answer(client.post(path + "validate", review("pods", "", "CREATE", pod, "null"))).path("allowed").asBoolean());
    }

    @Test
    void a_gpu_job_gets_the_queue_suspend_and_the_toleration_as_a_json_patch() throws Exception {
        JsonNode r = answer(client.post(path + "mutate", review("jobs", "batch", "CREATE", job(8), "null")));
        assertTrue(r.path("allowed").asBoolean());
        assertEquals("JSONPatch", r.path("patchType").asText());
        String patch = new String(Base64.getDecoder().decode(r.path("patch").asText()), StandardCharsets.UTF_8);
        assertEquals(Json.MAPPER.readTree("""
                [{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"nationalcompute.com/gpu-worker",
                  "operator":"Equal","value":"true","effect":"NoSchedule"}]},
                 {"op":"add","path":"/metadata/labels","value":{"kueue.x-k8s.io/queue-name":"default"}},
                 {"op":"add","path":"/spec/suspend","value":true}]"""), Json.MAPPER.readTree(patch));
    }

    static String service(String type, String cls) {
        return """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"serve","namespace":"default"},
                 "spec":{"type":"%s",%s"ports":[{"port":443,"targetPort":8443}]}}""".formatted(type,
                cls == null ? "" : "\"loadBalancerClass\":\"" + cls + "\",");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} {1} (was {2}) class {3} -> patched {4}")
    @org.junit.jupiter.params.provider.CsvSource(nullValues = "null", value = {
            "CREATE, LoadBalancer, null,         null,              true",
            "UPDATE, LoadBalancer, ClusterIP,    null,              true",
            "UPDATE, LoadBalancer, LoadBalancer, null,              false",
            "CREATE, LoadBalancer, null,         example.com/metal, false",
            "CREATE, ClusterIP,    null,         null,              false"})
    void a_class_less_load_balancer_service_gets_the_platforms_class(String op, String type, String oldType, String cls,
                                                                     boolean patched) throws Exception {
        String old = oldType == null ? "null" : service(oldType, null);
        JsonNode r = answer(client.post(path + "mutate", review("services", "", op, service(type, cls), old)));

        assertTrue(r.path("allowed").asBoolean());
        if (!patched) {
            assertTrue(r.path("patch").isMissingNode(), r.toString());
            return;
        }
        String patch = new String(Base64.getDecoder().decode(r.path("patch").asText()), StandardCharsets.UTF_8);
        assertEquals(Json.MAPPER.readTree("""
                [{"op":"add","path":"/spec/loadBalancerClass","value":"nationalcompute.com/load-balancer"}]"""),
                Json.MAPPER.readTree(patch));
    }

    @Test
    void an_mpijob_counts_its_workers_and_suspends_through_its_run_policy() throws Exception {
        String mpi = """
                {"apiVersion":"kubeflow.org/v2beta1","kind":"MPIJob","metadata":{"name":"mpi","labels":{"team":"a"}},
                 "spec":{"runPolicy":{"cleanPodPolicy":"Running"},"mpiReplicaSpecs":{
                  "Launcher":{"replicas":1,"template":{"spec":{"containers":[{"name":"l","image":"x"}]}}},
                  "Worker":{"replicas":2,"template":{"spec":{"tolerations":[{"key":"other","operator":"Exists"}],
                   "containers":[{"name":"w","image":"x","resources":{"requests":{"nvidia.com/gpu":8}}}]}}}}}}""";
        JsonNode r = answer(client.post(path + "mutate", review("mpijobs", "kubeflow.org", "CREATE", mpi, "null")));
        String patch = new String(Base64.getDecoder().decode(r.path("patch").asText()), StandardCharsets.UTF_8);
        assertEquals(Json.MAPPER.readTree("""
                [{"op":"add","path":"/spec/mpiReplicaSpecs/Worker/template/spec/tolerations/-","value":{
                  "key":"nationalcompute.com/gpu-worker","operator":"Equal","value":"true","effect":"NoSchedule"}},
                 {"op":"add","path":"/metadata/labels/kueue.x-k8s.io~1queue-name","value":"default"},
                 {"op":"add","path":"/spec/runPolicy/suspend","value":true}]"""), Json.MAPPER.readTree(patch));
    }

    @Test
    void a_gpu_deployment_gets_the_toleration_and_the_queue_on_its_pods_template_and_its_replicas_count_for_the_balance() throws Exception {
        String deployment = """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"serve"},"spec":{"replicas":3,
                 "selector":{"matchLabels":{"app":"serve"}},"template":{"metadata":{"labels":{"app":"serve"}},"spec":{
                  "containers":[{"name":"s","image":"x","resources":{"limits":{"nvidia.com/gpu":"8"}}}]}}}}""";
        JsonNode r = answer(client.post(path + "mutate", review("deployments", "apps", "CREATE", deployment, "null")));
        String patch = new String(Base64.getDecoder().decode(r.path("patch").asText()), StandardCharsets.UTF_8);
        assertEquals(Json.MAPPER.readTree("""
                [{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"nationalcompute.com/gpu-worker",
                  "operator":"Equal","value":"true","effect":"NoSchedule"}]},
                 {"op":"add","path":"/metadata/labels","value":{"kueue.x-k8s.io/queue-name":"default"}},
                 {"op":"add","path":"/spec/template/metadata/labels/kueue.x-k8s.io~1queue-name","value":"default"}]"""),
                Json.MAPPER.readTree(patch));
        JsonNode partial = answer(client.post(path + "validate", review("deployments", "apps", "CREATE",
                deployment.replace("\"nvidia.com/gpu\":\"8\"", "\"nvidia.com/gpu\":\"4\""), "null")));
        assertFalse(partial.path("allowed").asBoolean());
        assertTrue(partial.path("status").path("message").asText().contains("Deployment \"train\", pod template \"template\", requests 4"),
                partial.toString());
    }

    @Test
    void a_tenants_edit_of_the_market_cluster_queue_is_station_owned() throws Exception {
        String old = """
                {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"market",
                 "labels":{"nationalcompute.com/owned-by":"platform"}},"spec":{"resourceGroups":[]}}""";
        String edited = old.replace("\"resourceGroups\":[]", "\"resourceGroups\":[{}]");
        JsonNode r = answer(client.post(path + "validate", review("clusterqueues", "kueue.x-k8s.io", "UPDATE", edited, old)));
        assertEquals("StationOwned", r.path("status").path("reason").asText());
        JsonNode deleted = answer(client.post(path + "validate", review("clusterqueues", "kueue.x-k8s.io", "DELETE", "null", old)));
        assertEquals("StationOwned", deleted.path("status").path("reason").asText());
        String finalizer = old.replace("\"name\":\"market\",", "\"name\":\"market\",\"finalizers\":[\"kueue.x-k8s.io/resource-in-use\"],");
        assertTrue(answer(client.post(path + "validate", review("clusterqueues", "kueue.x-k8s.io", "UPDATE", finalizer, old)))
                .path("allowed").asBoolean());
    }

    @Test
    void a_wrong_path_token_is_no_such_webhook() throws Exception {
        HttpResponse<String> r = client.post("/admission/" + MarketWorld.ACME_TRAIN + "/guess/validate",
                review("jobs", "batch", "CREATE", job(4), "null"));
        assertEquals(404, r.statusCode());
        assertFalse(r.body().contains("guess"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "empty body | '' | ''",
            "not JSON | '{' | ''",
            "an array | '[]' | ''",
            "another kind | '{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}' | apiVersion",
            "no request | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}' | request",
            "no uid | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"resource\":{\"resource\":\"jobs\"},\"operation\":\"CREATE\",\"object\":{}}}' | request.uid",
            "an unknown operation | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"resource\":{\"resource\":\"jobs\"},\"operation\":\"MOVE\",\"object\":{}}}' | request.operation",
            "an object that is a string | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"resource\":{\"resource\":\"jobs\"},\"operation\":\"CREATE\",\"object\":\"x\"}}' | request.object",
            "a create without object | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"resource\":{\"group\":\"batch\",\"resource\":\"jobs\"},\"operation\":\"CREATE\"}}' | request.object",
            "a parallelism that is text | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"resource\":{\"group\":\"batch\",\"resource\":\"jobs\"},\"operation\":\"CREATE\",\"object\":{\"spec\":{\"parallelism\":\"x\"}}}}' | spec.parallelism",
            "half a GPU | '{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"resource\":{\"resource\":\"pods\"},\"operation\":\"CREATE\",\"object\":{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"0.5\"}}}]}}}}' | resources.nvidia.com/gpu",
    })
    void a_body_that_is_not_a_review_is_a_400_naming_the_field(String name, String body, String field) throws Exception {
        for (String webhook : List.of("validate", "mutate")) {
            HttpResponse<String> r = client.post(path + webhook, body);
            assertEquals(400, r.statusCode(), r.body());
            JsonNode error = Json.MAPPER.readTree(r.body());
            assertEquals("INVALID_INPUT", error.path("error").path("code").asText(), r.body());
            assertTrue(r.body().contains("\"" + field + "\""), r.body());
        }
    }
}
