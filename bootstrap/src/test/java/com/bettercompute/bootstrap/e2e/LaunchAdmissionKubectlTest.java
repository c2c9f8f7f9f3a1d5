package com.bettercompute.bootstrap.e2e;

import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16 as a tenant meets it: the real {@code kubectl} against a market-managed cluster of the embedded
 * default, whose simulated API server calls the webhooks the platform registered there. Each rule refuses
 * at {@code kubectl apply} with kube-apiserver's words and the rule's numbers; a Job written with no queue
 * name and no {@code suspend} is taken, with Kueue's queue label, {@code suspend: true} and the GPU worker
 * taint's toleration added; the platform's Kueue objects refuse the tenant's edits; the operator's packing
 * switch refuses new sub-node pods from that moment and leaves the running ones alone. A sub-node pod waits
 * (never Provisioned) until a base load block node is Ready in the cluster, then runs there beside another,
 * while a third that no longer fits the block node waits.
 */
class LaunchAdmissionKubectlTest {
    static final ResourceDefinitionContext WEBHOOKS = new ResourceDefinitionContext.Builder()
            .withGroup("admissionregistration.k8s.io").withVersion("v1").withKind("ValidatingWebhookConfiguration")
            .withPlural("validatingwebhookconfigurations").withNamespaced(false).build();

    record Run(int exit, String out) {}

    @Test
    void kubectl_apply_is_refused_with_the_rules_numbers_and_a_plain_job_is_made_kueues() throws Exception {
        Assumptions.assumeTrue(Programs.find("kubectl").isPresent(), "kubectl is not on the PATH");
        try (RunningServer s = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(MarketJobEndToEndTest.catalog()).withProvider("simulator", null, 1, 1, 2).withMarketTickSeconds(1))) {
            JsonNode train = MarketJobEndToEndTest.readyCluster(s, RunningServer.ALICE, "acme", "train");
            Path dir = Files.createTempDirectory("admission-kubectl");
            Path kubeconfig = dir.resolve("acme.kubeconfig");
            try (KubernetesClient a = MarketJobEndToEndTest.client(s, RunningServer.ALICE, train, kubeconfig)) {
                MarketJobEndToEndTest.platformObjectsAreIn(a);
                await("the platform's webhooks registered", () -> a.genericKubernetesResources(WEBHOOKS)
                        .withName("better-compute-market").get());

                Run small = apply(dir, kubeconfig, job("small", 1, "4", null));
                assertThat(small.exit()).as(small.out()).isNotZero();
                assertThat(small.out()).contains("admission webhook \"workloads.admission.nationalcompute.com\" denied the request")
                        .contains("JobSizeTooSmall").contains("8");

                // 2 × 20.00 USD × 16 GPUs = 640 USD against a balance of 500.
                Run dear = apply(dir, kubeconfig, job("dear", 2, "8", "20.00"));
                assertThat(dear.exit()).as(dear.out()).isNotZero();
                assertThat(dear.out()).contains("denied the request").contains("BalanceTooLow").contains("640").contains("500");

                Run plain = apply(dir, kubeconfig, job("plain", 2, "8", null));
                assertThat(plain.exit()).as(plain.out()).isZero();
                JsonNode made = RunningServer.JSON.readTree(kubectl(kubeconfig, "get", "job", "plain", "-o", "json").out());
                assertThat(made.at("/metadata/labels/kueue.x-k8s.io~1queue-name").asText()).isNotBlank();
                assertThat(made.at("/spec/suspend").asBoolean()).isTrue();
                assertThat(made.at("/spec/template/spec/tolerations").findValuesAsText("key")).contains("nationalcompute.com/gpu-worker");

                Run station = kubectl(kubeconfig, "delete", "clusterqueue", "market");
                assertThat(station.exit()).as(station.out()).isNotZero();
                assertThat(station.out()).contains("denied the request").contains("StationOwned");
                assertThat(a.genericKubernetesResources(MarketInTenantClusterEndToEndTest.KUEUE_QUEUES).withName("market").get()).isNotNull();
                Run label = kubectl(kubeconfig, "label", "resourceflavors", "--all", "mine=yes");
                assertThat(label.exit()).as(label.out()).isNotZero();
                assertThat(label.out()).contains("StationOwned");

                packing(s, train, true);
                Run packed = apply(dir, kubeconfig, pod("packed", "4"));
                assertThat(packed.exit()).as(packed.out()).isZero();
                await("without a live block the sub-node job waits for it", () -> kubectl(kubeconfig, "get", "provisioningrequests",
                        "-o", "jsonpath={.items[*].status.conditions[?(@.type==\"Provisioned\")].reason}").out().contains("WaitingForBaseLoadBlock")
                        ? true : null);
                assertThat(podNode(kubeconfig, "packed")).as("placed on no node").isEmpty();

                block(s, train, 1);
                String blockNode = await("the block node Ready in the cluster", () -> {
                    String out = kubectl(kubeconfig, "get", "nodes", "-l", "nationalcompute.com/base-load-block=true", "-o",
                            "jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}").out().strip();
                    return out.lines().count() == 1 && out.endsWith(" True") ? out.substring(0, out.indexOf(' ')) : null;
                });
                assertThat(apply(dir, kubeconfig, pod("beside", "4")).exit()).isZero();
                assertThat(apply(dir, kubeconfig, pod("third", "4")).exit()).isZero();
                await("two 4-GPU pods Running side by side on the 8-GPU block node", () ->
                        "Running".equals(podPhase(kubeconfig, "packed")) && "Running".equals(podPhase(kubeconfig, "beside")) ? true : null);
                assertThat(List.of(podNode(kubeconfig, "packed"), podNode(kubeconfig, "beside"))).containsOnly(blockNode);
                assertThat(podPhase(kubeconfig, "third")).as("the block node is full: the third waits").isNotEqualTo("Running");
                assertThat(podNode(kubeconfig, "third")).isEmpty();

                packing(s, train, false);
                Run unpacked = apply(dir, kubeconfig, pod("unpacked", "4"));
                assertThat(unpacked.exit()).as(unpacked.out()).isNotZero();
                assertThat(unpacked.out()).contains("JobSizeTooSmall").contains("packing");
                assertThat(a.pods().inNamespace("default").withName("packed").get())
                        .as("a running sub-node pod is never touched by the switch").isNotNull();
                assertThat(a.pods().inNamespace("default").withName("packed").get().getMetadata().getDeletionTimestamp()).isNull();
            }
        }
    }

    static void packing(RunningServer s, JsonNode cluster, boolean on) throws Exception {
        MarketApiEndToEndTest.Reply r = MarketApiEndToEndTest.send(s, "PUT", "/api/operator/market/clusters", RunningServer.OPS,
                "{\"cluster_id\":\"" + cluster.get("id").asText() + "\",\"packing\":" + on + "}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    static void block(RunningServer s, JsonNode cluster, int nodes) throws Exception {
        MarketApiEndToEndTest.Reply r = MarketApiEndToEndTest.send(s, "PUT", "/api/operator/market/clusters", RunningServer.OPS,
                "{\"cluster_id\":\"" + cluster.get("id").asText() + "\",\"packing\":true,"
                        + "\"block\":{\"pool\":\"us-central1/h100-8x\",\"nodes\":" + nodes + "}}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    static String podPhase(Path kubeconfig, String pod) {
        return kubectl(kubeconfig, "get", "pod", pod, "-o", "jsonpath={.status.phase}").out().strip();
    }

    static String podNode(Path kubeconfig, String pod) {
        return kubectl(kubeconfig, "get", "pod", pod, "-o", "jsonpath={.spec.nodeName}").out().strip();
    }

    static String job(String name, int pods, String gpusPerPod, String limit) {
        return Manifests.gpuJob(name, pods, gpusPerPod,
                limit == null ? null : "labels: {nationalcompute.com/limit-price: \"" + limit + "\"}");
    }

    static String pod(String name, String gpus) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: default
                spec:
                  nodeSelector: {nationalcompute.com/node-class: h100-8x}
                  containers:
                    - name: serve
                      image: server
                      resources: {limits: {nvidia.com/gpu: "%s"}}
                """.formatted(name, gpus);
    }

    static Run apply(Path dir, Path kubeconfig, String manifest) throws Exception {
        Path file = Files.createTempFile(dir, "manifest", ".yaml");
        Files.writeString(file, manifest, StandardCharsets.UTF_8);
        return kubectl(kubeconfig, "apply", "-f", file.toString());
    }

    /** Unchecked, so a wait's probe can call it. */
    static Run kubectl(Path kubeconfig, String... args) {
        List<String> command = new ArrayList<>(List.of(Programs.find("kubectl").orElseThrow(), "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl finished").isTrue();
            return new Run(p.exitValue(), out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
