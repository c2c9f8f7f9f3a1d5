package com.bettercompute.bootstrap.e2e;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Launch admission on the real server: AdmissionReview bodies as a cluster's API server posts them, over HTTPS
 * trusting only the platform's CA, to the URLs the platform registers for acme's market-managed cluster
 * (pool us-central1/h100-8x of 8-GPU nodes, 500 USD of credits): each rule refuses with its numbers, the
 * mutating webhook answers its JSONPatch, the operator's packing switch binds from that moment, and the CA and
 * the cluster's URLs survive a restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionWebhookTest {
    private Path dataDir;
    private String db;
    private Path catalog;
    private RunningServer server;
    private String clusterId;
    private AdmissionEndpoints.Webhooks webhooks;
    private HttpClient https;

    @BeforeAll
    void start() throws Exception {
        dataDir = java.nio.file.Files.createTempDirectory("admission-webhook-test");
        db = RunningServer.h2();
        catalog = MarketApiEndToEndTest.catalog();
        server = start(db);
        RunningServer.Reply created = server.call("create", RunningServer.ALICE, "{\"tenantId\":\"acme\",\"name\":\"train\","
                + "\"mode\":\"autopilot\",\"location\":\"us-central1\",\"poolId\":\"" + RunningServer.POOL
                + "\",\"idempotencyKey\":\"train\"}");
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        clusterId = created.json().get("id").asText();
        packing(false);
        webhooks = server.server().admissionEndpoints().webhooks(clusterId).orElseThrow();
        https = trusting(server.server().admissionCaPem());
    }

    private RunningServer start(String database) {
        return RunningServer.start(ServerConfig.defaults().withPort(0).withDb(database).withCatalog(catalog)
                .withProvider("simulator", null, 1, 1, 2).withDataDir(dataDir));
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
        try (var files = java.nio.file.Files.walk(dataDir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }

    private void packing(boolean on) throws Exception {
        MarketApiEndToEndTest.Reply r = MarketApiEndToEndTest.send(server, "PUT", "/api/operator/market/clusters", RunningServer.OPS,
                "{\"cluster_id\":\"" + clusterId + "\",\"max_cluster_gpus\":32,\"packing\":" + on + "}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    static HttpClient trusting(String caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(tls).build();
    }

    private HttpResponse<String> post(String url, String body) throws Exception {
        return https.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode answer(String url, String body) throws Exception {
        HttpResponse<String> r = post(url, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode response = RunningServer.JSON.readTree(r.body()).path("response");
        assertThat(response.path("uid").asText()).isEqualTo("b5b35c1f-6b2e-4d3e-a7a8-1c2d3e4f5a6b");
        return response;
    }

    static String review(String group, String resource, String operation, String user, String object, String oldObject) {
        String name = nameOf(object, oldObject);
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
                 "uid":"b5b35c1f-6b2e-4d3e-a7a8-1c2d3e4f5a6b","kind":{"group":"%1$s","version":"v1","kind":"K"},
                 "resource":{"group":"%1$s","version":"v1","resource":"%2$s"},"requestKind":{"group":"%1$s","version":"v1","kind":"K"},
                 "name":"%7$s","namespace":"default","operation":"%3$s","userInfo":{"username":"%4$s","groups":["system:authenticated"]},
                 "object":%5$s,"oldObject":%6$s,"dryRun":false,"options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}}}"""
                .formatted(group, resource, operation, user, object, oldObject, name);
    }

    private static String nameOf(String object, String oldObject) {
        try {
            return RunningServer.JSON.readTree(object.equals("null") ? oldObject : object).at("/metadata/name").asText();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String job(int pods, int gpus, String limit) {
        String labels = limit == null ? "" : ",\"labels\":{\"nationalcompute.com/limit-price\":\"" + limit + "\"}";
        return """
                {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"train","namespace":"default"%s},
                 "spec":{"parallelism":%d,"template":{"spec":{"restartPolicy":"Never","containers":[
                  {"name":"main","image":"trainer","resources":{"limits":{"nvidia.com/gpu":"%d"}}}]}}}}"""
                .formatted(labels, pods, gpus);
    }

    static String jobPod(int gpus) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"train-x7k2p","namespace":"default","ownerReferences":[
                 {"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"u1","controller":true}]},
                 "spec":{"containers":[{"name":"main","image":"trainer","resources":{"limits":{"nvidia.com/gpu":"%d"}}}]}}"""
                .formatted(gpus);
    }

    @Test
    void a_job_asking_part_of_a_node_is_refused_with_job_size_too_small() throws Exception {
        JsonNode r = answer(webhooks.validateUrl(), review("batch", "jobs", "CREATE", "system:serviceaccount:default:ci",
                job(2, 4, null), "null"));
        assertThat(r.path("allowed").asBoolean()).isFalse();
        assertThat(r.at("/status/code").asInt()).isEqualTo(403);
        assertThat(r.at("/status/reason").asText()).isEqualTo("JobSizeTooSmall");
        assertThat(r.at("/status/message").asText()).isEqualTo("JobSizeTooSmall: Job \"train\", pod template \"template\", "
                + "requests 4 GPUs per pod, which is not a multiple of 8, the GPUs of one node of us-central1/h100-8x. The "
                + "market assigns whole nodes and packing onto the base load block is off for this cluster: request 8 GPUs "
                + "per pod, as several whole-node pods for a multi-node job.");
    }

    @Test
    void a_job_the_balance_cannot_fund_for_two_hours_is_refused_with_both_numbers() throws Exception {
        // 2 h × 100 USD × (2 pods × 8 GPUs) = 3200 USD against the 500 USD of acme's credits
        JsonNode r = answer(webhooks.validateUrl(), review("batch", "jobs", "CREATE", "system:serviceaccount:default:ci",
                job(2, 8, "100"), "null"));
        assertThat(r.at("/status/reason").asText()).isEqualTo("BalanceTooLow");
        assertThat(r.at("/status/message").asText()).isEqualTo("BalanceTooLow: the organization's balance is $500.00, and "
                + "this Job needs a balance of $3200.00 to start: 2 hours × $100.00 per GPU-hour (its "
                + "nationalcompute.com/limit-price label) × 16 GPUs. Top up the organization's credits, or lower the limit "
                + "price or the job's size.");
        assertThat(answer(webhooks.validateUrl(), review("batch", "jobs", "CREATE", "system:serviceaccount:default:ci",
                job(2, 8, "15"), "null")).path("allowed").asBoolean()).as("480 USD fits in 500").isTrue();
    }

    @Test
    void the_mutating_webhook_adds_the_queue_suspend_and_the_toleration() throws Exception {
        JsonNode r = answer(webhooks.mutateUrl(), review("batch", "jobs", "CREATE", "system:serviceaccount:default:ci",
                job(2, 8, null), "null"));
        assertThat(r.path("allowed").asBoolean()).isTrue();
        assertThat(r.path("patchType").asText()).isEqualTo("JSONPatch");
        JsonNode patch = RunningServer.JSON.readTree(Base64.getDecoder().decode(r.path("patch").asText()));
        assertThat(patch.toString()).contains("\"path\":\"/spec/template/spec/tolerations\"", "nationalcompute.com/gpu-worker",
                "\"path\":\"/metadata/labels\"", "kueue.x-k8s.io/queue-name", "\"path\":\"/spec/suspend\"");
    }

    @Test
    void the_platforms_cluster_queue_refuses_a_tenants_edit_and_takes_the_platforms() throws Exception {
        String old = """
                {"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"market",
                 "labels":{"nationalcompute.com/owned-by":"platform"}},"spec":{"resourceGroups":[{"flavors":[]}]}}""";
        String edited = old.replace("\"flavors\":[]", "\"flavors\":[{\"name\":\"gpu-h100-8x\"}]");
        JsonNode tenant = answer(webhooks.validateUrl(), review("kueue.x-k8s.io", "clusterqueues", "UPDATE",
                "system:serviceaccount:default:ci", edited, old));
        assertThat(tenant.at("/status/reason").asText()).isEqualTo("StationOwned");
        assertThat(tenant.at("/status/message").asText()).startsWith("StationOwned: ClusterQueue \"market\" is the platform's");
        JsonNode platform = answer(webhooks.validateUrl(), review("kueue.x-k8s.io", "clusterqueues", "UPDATE",
                "better-compute-platform", edited, old));
        assertThat(platform.path("allowed").asBoolean()).isTrue();
    }

    @Test
    void switching_packing_off_refuses_a_sub_node_job_retry_from_that_moment() throws Exception {
        String retry = review("", "pods", "CREATE", "system:serviceaccount:kube-system:job-controller", jobPod(4), "null");
        packing(true);
        assertThat(answer(webhooks.validateUrl(), retry).path("allowed").asBoolean()).isTrue();
        packing(false);
        // The very next review: the webhook's facts are kept per market version, and the switch saved a new one.
        JsonNode refused = answer(webhooks.validateUrl(), retry);
        assertThat(refused.path("allowed").asBoolean()).isFalse();
        assertThat(refused.at("/status/reason").asText()).isEqualTo("JobSizeTooSmall");
        assertThat(refused.at("/status/message").asText()).startsWith("JobSizeTooSmall: Pod \"train-x7k2p\" requests 4 GPUs per pod");
    }

    @Test
    void a_bad_body_is_a_400_and_a_wrong_token_a_404() throws Exception {
        HttpResponse<String> bad = post(webhooks.validateUrl(), "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"field\":\"request\"");
        String wrong = webhooks.validateUrl().replaceAll("/admission/([^/]+)/[^/]+/", "/admission/$1/not-the-token/");
        assertThat(post(wrong, review("batch", "jobs", "CREATE", "x", job(1, 4, null), "null")).statusCode()).isEqualTo(404);
    }

    @Test
    void a_client_that_does_not_trust_the_platforms_ca_cannot_connect() {
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(webhooks.validateUrl()))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void the_ca_and_the_clusters_urls_survive_a_restart() throws Exception {
        String ca = server.server().admissionCaPem();
        String path = URI.create(webhooks.validateUrl()).getPath();
        server.close();
        server = start(db);
        assertThat(server.server().admissionCaPem()).isEqualTo(ca);
        AdmissionEndpoints.Webhooks again = server.server().admissionEndpoints().webhooks(clusterId).orElseThrow();
        assertThat(URI.create(again.validateUrl()).getPath()).isEqualTo(path);
        webhooks = again;
        assertThat(answer(again.validateUrl(), review("batch", "jobs", "CREATE", "x", job(1, 8, null), "null"))
                .path("allowed").asBoolean()).isTrue();
    }
}
