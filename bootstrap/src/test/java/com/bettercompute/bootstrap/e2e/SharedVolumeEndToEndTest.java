package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.bootstrap.e2e.RunningServer.ALICE;
import static com.bettercompute.bootstrap.e2e.NodePoolsEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster's shared volume through the real wiring on the embedded default (the GKE simulator and its Filestore API
 * in-process), over HTTP: made with the cluster and shown by its {@code get}, listed under {@code /api/k8s/volumes},
 * its bytes moving when a file is written into the share's directory, never deleted by an API token
 * ({@code session-required}), preserved when its cluster is deleted — and {@code gcloud filestore instances list}
 * shows the instance, when gcloud is on the machine. Inside the cluster: the platform's DaemonSet mounts it on every
 * node, a pod writing under {@code hostPath: /mnt/shared} fills it, and {@code kubectl} (when on the machine) shows the
 * ConfigMap {@code shared-volume} and is refused its delete and edit ({@code StationOwned}).
 */
class SharedVolumeEndToEndTest {
    /** One server for the tests here (a start is most of a test's time); each test names its own cluster. */
    static RunningServer server;
    static final Path HOME = Path.of("target", "shared-volume-e2e", Long.toString(System.nanoTime()));

    @BeforeAll
    static void start() throws IOException {
        Files.createDirectories(HOME);
        String catalog = new String(RunningServer.class.getResourceAsStream("/e2e-catalog.yaml").readAllBytes(), StandardCharsets.UTF_8)
                + "\nstorage:\n  sharedVolumePools: [" + RunningServer.POOL + "]\n  sampleEvery: 1s\n"
                + "  billing:\n    - {site: us-central1, pricePerGiBMonth: \"0.20\"}\n";
        Path file = HOME.resolve("catalog.yaml");
        Files.writeString(file, catalog);
        server = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2()).withCatalog(file)
                .withProvider("simulator", null, 1, 1, 2));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void a_volume_made_with_its_cluster_is_listed_holds_what_is_written_refuses_tokens_and_outlives_its_cluster() throws Exception {
        String id = server.call("create", ALICE, ClustersApiContract.standard("acme", "train")).json().get("id").asText();
        JsonNode ready = await(() -> get(id), c -> c.get("state").asText().equals("ready"), "cluster ready");
        JsonNode volume = ready.get("sharedVolume");
        assertThat(volume.get("path").asText()).isEqualTo("/mnt/shared");
        assertThat(volume.get("label").asText()).isEqualTo("train-shared");
        assertThat(volume.get("sizeGiB").asInt()).isEqualTo(2048);
        String storageName = volume.get("storageName").asText();

        JsonNode listed = volume(storageName);
        assertThat(listed.get("label").asText()).isEqualTo("train-shared");
        assertThat(listed.get("storage_name").asText()).isEqualTo(storageName);
        assertThat(listed.get("cluster").asText()).isEqualTo("train");
        assertThat(listed.get("charge_per_month").asText()).isEqualTo("0.00");

        FilestoreSimulator filestore = server.server().filestoreSimulator().orElseThrow();
        Path kubeconfig = HOME.resolve("train.kubeconfig");
        try (KubernetesClient alice = MarketJobEndToEndTest.client(server, ALICE, ready, kubeconfig)) {
            // inside the cluster: the platform's ConfigMap shows the volume, read-only to the tenant
            if (Programs.find("kubectl").isPresent()) {
                JsonNode shown = await(() -> configMap(kubeconfig), c -> c.has("data"), "kubectl get configmap shared-volume");
                assertThat(shown.get("data").get("label").asText()).isEqualTo("train-shared");
                assertThat(shown.get("data").get("storageName").asText()).isEqualTo(storageName);
                assertThat(shown.get("data").get("path").asText()).isEqualTo("/mnt/shared");
                assertThat(shown.get("data").get("sizeGiB").asText()).isEqualTo("2048");
                LaunchAdmissionKubectlTest.Run delete = LaunchAdmissionKubectlTest.kubectl(kubeconfig, "delete", "configmap", "shared-volume",
                        "-n", "better-compute-system");
                assertThat(delete.exit()).as(delete.out()).isNotZero();
                assertThat(delete.out()).contains("denied the request").contains("StationOwned");
                LaunchAdmissionKubectlTest.Run edit = LaunchAdmissionKubectlTest.kubectl(kubeconfig, "patch", "configmap", "shared-volume",
                        "-n", "better-compute-system", "--type", "merge", "-p", "{\"data\":{\"path\":\"/elsewhere\"}}");
                assertThat(edit.exit()).as(edit.out()).isNotZero();
                assertThat(edit.out()).contains("StationOwned");
                assertThat(configMap(kubeconfig).get("data").get("path").asText()).isEqualTo("/mnt/shared");
            }
            // every node mounts the volume (the GPU nodes' taint tolerated); a pod writing under its hostPath fills it
            await(() -> RunningServer.JSON.valueToTree(alice.apps().daemonSets().inNamespace("kube-system").withName("shared-volume-mount")
                    .get()), d -> d.path("status").path("numberReady").asInt() == 3, "the mount on the CPU worker and both GPU nodes");
            alice.resource(WRITER).create();
        }
        JsonNode holding = await(() -> volume(storageName), v -> v.get("bytes").asLong() == 1 << 20, "the bytes a pod wrote");
        assertThat(holding.get("charge_per_month").asText()).isEqualTo("0.000195");

        RunningServer.Reply refused = server.delete("/api/k8s/volumes?volume=" + storageName + "&confirm=" + storageName, ALICE);
        assertThat(refused.status()).isEqualTo(403);
        JsonNode error = refused.json().get("error");
        assertThat(error.get("code").asText()).isEqualTo("ACCESS_DENIED");
        assertThat(error.get("details").get("reason").asText()).isEqualTo("session-required");
        assertThat(server.delete("/api/k8s/volumes", ALICE).status()).as("refused before the query is read").isEqualTo(403);

        server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id));
        await(() -> get(id), c -> c.get("state").asText().equals("deleted"), "cluster deleted");
        JsonNode preserved = await(() -> volume(storageName), v -> v.get("state").asText().equals("preserved"), "volume preserved");
        assertThat(preserved.get("cluster").isNull()).as("preserved, no cluster").isTrue();
        assertThat(Files.exists(filestore.shareDirectory("platform-prod", "us-central1-a", storageName).resolve("checkpoint.bin"))).isTrue();
        assertThat(events(storageName)).containsExactly("kubernetes.volume.created", "kubernetes.volume.attached",
                "kubernetes.volume.preserved");

        List<String> listedByGcloud = gcloudFilestoreList(filestore);
        if (listedByGcloud != null) {
            assertThat(listedByGcloud).anyMatch(line -> line.contains(storageName) && line.contains("BASIC_HDD") && line.contains("2048"));
        }
    }

    @Test
    void the_cluster_delete_with_delete_volume_destroys_the_volume_with_its_files() {
        String id = server.call("create", ALICE, ClustersApiContract.standard("acme", "scratch")).json().get("id").asText();
        String storageName = await(() -> get(id), c -> c.get("state").asText().equals("ready"), "cluster ready")
                .get("sharedVolume").get("storageName").asText();
        RunningServer.Reply deleting = server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id, "deleteVolume", true));
        assertThat(deleting.status()).isEqualTo(200);
        await(() -> get(id), c -> c.get("state").asText().equals("deleted"), "cluster deleted");
        await(() -> server.get("/api/k8s/volumes", ALICE).json(), v -> v.get("items").findValuesAsText("storage_name").stream()
                .noneMatch(storageName::equals), "the volume gone");
        assertThat(events(storageName)).containsExactly("kubernetes.volume.created", "kubernetes.volume.attached",
                "kubernetes.volume.deleting", "kubernetes.volume.deleted");
        assertThat(server.server().filestoreSimulator().orElseThrow().instanceNames()).noneMatch(n -> n.endsWith(storageName));
    }

    /** A pod on the CPU worker writing a checkpoint of 1 MiB into the shared volume through a hostPath (as the simulated kubelet does). */
    static final String WRITER = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: writer
              namespace: default
              annotations: {sim.better-compute.dev/writes: "/data/checkpoint.bin=1048576"}
            spec:
              nodeSelector: {cloud.google.com/gke-nodepool: bc-cpu-worker}
              containers:
                - name: train
                  image: trainer
                  volumeMounts: [{name: shared, mountPath: /data}]
              volumes: [{name: shared, hostPath: {path: /mnt/shared, type: Directory}}]
            """;

    // ------------------------------------------------------------------ helpers

    /** {@code kubectl get configmap shared-volume -n better-compute-system -o json}: the object, or an empty one while it is not there. */
    static JsonNode configMap(Path kubeconfig) {
        try {
            LaunchAdmissionKubectlTest.Run r = LaunchAdmissionKubectlTest.kubectl(kubeconfig, "get", "configmap", "shared-volume", "-n",
                    "better-compute-system", "-o", "json");
            return r.exit() == 0 ? RunningServer.JSON.readTree(r.out()) : RunningServer.JSON.createObjectNode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    JsonNode get(String id) {
        return server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).json();
    }

    /** The volume of {@code GET /api/k8s/volumes} with this storage name. */
    JsonNode volume(String storageName) {
        RunningServer.Reply r = server.get("/api/k8s/volumes", ALICE);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        for (JsonNode v : r.json().get("items")) {
            if (v.get("storage_name").asText().equals(storageName)) {
                return v;
            }
        }
        throw new AssertionError("no volume " + storageName + " listed: " + r.text());
    }

    /** The types of the organization's events about the volume of this storage name, oldest first. */
    List<String> events(String storageName) {
        List<String> types = new ArrayList<>();
        for (JsonNode e : server.get("/api/events?tenantId=acme&limit=1000", ALICE).json().get("items")) {
            if (e.path("data").path("storageName").asText().equals(storageName)) {
                types.add(e.get("type").asText());
            }
        }
        return types;
    }

    /** {@code gcloud filestore instances list} against the simulator (a private gcloud configuration); null without gcloud. */
    List<String> gcloudFilestoreList(FilestoreSimulator filestore) throws IOException, InterruptedException {
        String gcloud = Programs.find("gcloud").orElse(null);
        if (gcloud == null) {
            return null;
        }
        ProcessBuilder builder = new ProcessBuilder(gcloud, "filestore", "instances", "list", "--location", "us-central1-a");
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("CLOUDSDK_") || k.startsWith("GOOGLE_"));
        env.put("CLOUDSDK_CONFIG", HOME.resolve("gcloud").toAbsolutePath().toString());
        env.put("CLOUDSDK_CORE_PROJECT", "platform-prod");
        env.put("CLOUDSDK_CORE_DISABLE_PROMPTS", "1");
        env.put("CLOUDSDK_AUTH_ACCESS_TOKEN", "simulator-does-not-check");
        env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_FILE", filestore.url() + "/");
        env.put("CLOUDSDK_CORE_DISABLE_USAGE_REPORTING", "true");
        env.put("CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK", "true");
        Path out = HOME.resolve("gcloud-out.txt");
        Path err = HOME.resolve("gcloud-err.txt");
        Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("gcloud did not finish: " + Files.readString(err));
        }
        assertThat(p.exitValue()).as("gcloud failed:%n%s", Files.readString(err)).isZero();
        return Files.readAllLines(out);
    }
}
