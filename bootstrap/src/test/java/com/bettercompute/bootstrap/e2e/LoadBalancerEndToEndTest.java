package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.ServerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static com.bettercompute.bootstrap.e2e.LaunchAdmissionKubectlTest.apply;
import static com.bettercompute.bootstrap.e2e.LaunchAdmissionKubectlTest.kubectl;
import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Service of type LoadBalancer as a tenant and an operator meet it on the embedded default: {@code kubectl apply}
 * of a class-less Service, which the platform's webhook makes the platform's; its address in
 * {@code status.loadBalancer.ingress}; a TCP connection from this machine to that address reaching a node of the
 * cluster, which names itself and the client address it saw; {@code gcloud compute addresses list} and
 * {@code forwarding-rules list} showing what the platform reserved; the skipped UDP port's Warning; a Service of
 * another class left alone; the operator's list naming who holds the address; and {@code kubectl delete} releasing it.
 */
class LoadBalancerEndToEndTest {

    static Path catalog(int clusterCap) throws java.io.IOException {
        Path file = RunningServer.catalogFile();
        Files.writeString(file, Files.readString(file, StandardCharsets.UTF_8) + """
                loadBalancers:
                  clusterCap: %d
                  addressPools:
                    - {region: us-central1, limit: 10}
                """.formatted(clusterCap), StandardCharsets.UTF_8);
        return file;
    }

    /** A range of loopback addresses of this run's own, so that runs side by side never bind the same one. */
    static String ownRange() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return "127." + r.nextInt(20, 250) + "." + r.nextInt(0, 250) + ".0/28";
    }

    static String service(String name, String cls, int tcpPort) {
        return """
                apiVersion: v1
                kind: Service
                metadata:
                  name: %s
                  namespace: default
                spec:
                  type: LoadBalancer
                  %s
                  selector: {app: %s}
                  ports:
                    - {name: https, port: %d, targetPort: 8443, protocol: TCP}
                    - {name: dns, port: 5353, targetPort: 53, protocol: UDP}
                """.formatted(name, cls == null ? "" : "loadBalancerClass: " + cls, name, tcpPort);
    }

    @Test
    void a_load_balancer_service_gets_a_static_address_that_really_forwards_and_is_released_with_it() throws Exception {
        Assumptions.assumeTrue(Programs.find("kubectl").isPresent(), "kubectl is not on the PATH");
        try (RunningServer s = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(catalog(3)).withProvider("simulator", null, 1, 1, 2))) {
            GkeSimulator simulator = s.server().simulator().orElseThrow();
            simulator.addressPool(ownRange());
            JsonNode train = MarketJobEndToEndTest.readyCluster(s, RunningServer.ALICE, "acme", "lb");
            Path dir = Files.createTempDirectory("load-balancer-e2e");
            Path kubeconfig = dir.resolve("acme.kubeconfig");
            try (KubernetesClient k = MarketJobEndToEndTest.client(s, RunningServer.ALICE, train, kubeconfig)) {
                await("the platform's Service webhook", () -> k.admissionRegistration().v1().mutatingWebhookConfigurations()
                        .withName("better-compute-load-balancers").get());
                int port = ThreadLocalRandom.current().nextInt(20_000, 29_000);
                LaunchAdmissionKubectlTest.Run applied = apply(dir, kubeconfig, service("serve", null, port));
                assertThat(applied.exit()).as(applied.out()).isZero();
                apply(dir, kubeconfig, service("metal", "example.com/metal", port + 1));

                Service served = await("serve's address", () -> {
                    Service sv = k.services().inNamespace("default").withName("serve").get();
                    return sv.getStatus().getLoadBalancer().getIngress() == null || sv.getStatus().getLoadBalancer().getIngress().isEmpty()
                            ? null : sv;
                });
                String ip = served.getStatus().getLoadBalancer().getIngress().get(0).getIp();
                assertThat(served.getSpec().getLoadBalancerClass()).isEqualTo("nationalcompute.com/load-balancer");
                assertThat(served.getMetadata().getFinalizers()).contains("nationalcompute.com/load-balancer-cleanup");
                assertThat(served.getSpec().getPorts()).allSatisfy(p -> assertThat(p.getNodePort()).isBetween(30000, 32767));

                // a TCP client on this machine reaches a node of the cluster, which saw the client's own address
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(ip, port), 5_000);
                    socket.setSoTimeout(5_000);
                    String line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
                    assertThat(line).startsWith("node=gke-").endsWith(" client=" + socket.getLocalAddress().getHostAddress() + ":"
                            + socket.getLocalPort());
                }

                String out = kubectl(kubeconfig, "get", "events", "-n", "default", "-o", "json").out();
                List<String> said = new ArrayList<>();
                for (JsonNode e : RunningServer.JSON.readTree(out).path("items")) {
                    if (e.at("/involvedObject/name").asText().equals("serve")) {
                        said.add(e.path("reason").asText() + ": " + e.path("message").asText());
                    }
                }
                assertThat(said).anyMatch(e -> e.startsWith("EnsuredLoadBalancer"))
                        .anyMatch(e -> e.startsWith("UnsupportedProtocol") && e.contains("dns (5353/UDP)"));

                // the operator's list names who holds the address; a tenant's token may not read it
                RunningServer.Reply held = s.get("/api/operator/load-balancers?tenant=acme", RunningServer.OPS);
                assertThat(held.status()).as(held.text()).isEqualTo(200);
                assertThat(held.json().get("items")).anySatisfy(i -> {
                    assertThat(i.get("cluster").asText()).isEqualTo("lb");
                    assertThat(i.get("namespace").asText() + "/" + i.get("service").asText()).isEqualTo("default/serve");
                    assertThat(i.get("address").asText()).isEqualTo(ip);
                    assertThat(i.get("state").asText()).isEqualTo("serving");
                    assertThat(i.get("region").asText()).isEqualTo("us-central1");
                });
                assertThat(s.get("/api/operator/load-balancers", RunningServer.ALICE).status()).isEqualTo(403);

                Service metal = k.services().inNamespace("default").withName("metal").get();
                assertThat(metal.getSpec().getLoadBalancerClass()).isEqualTo("example.com/metal");
                assertThat(metal.getMetadata().getFinalizers()).isNullOrEmpty();
                assertThat(metal.getStatus().getLoadBalancer().getIngress()).isNullOrEmpty();

                Gcloud gcloud = Gcloud.of(simulator, dir);
                if (gcloud != null) {
                    // two gcloud processes at once: each spends seconds starting its Python, not talking to the API
                    var addresses = gcloud.start("compute", "addresses", "list", "--format=value(name,address)");
                    var rules = gcloud.start("compute", "forwarding-rules", "list", "--format=value(name,IPAddress,ports)");
                    assertThat(addresses.get()).contains(ip).contains("bc-lb-");
                    assertThat(rules.get()).contains(ip).contains(Integer.toString(port));
                }

                LaunchAdmissionKubectlTest.Run deleted = kubectl(kubeconfig, "delete", "service", "serve", "--wait=false");
                assertThat(deleted.exit()).as(deleted.out()).isZero();
                await("serve gone once its address is released", () -> k.services().inNamespace("default").withName("serve").get() == null
                        ? true : null);
                // released at the provider: gcloud read the same list above
                assertThat(computeGet(simulator, "/compute/v1/projects/platform-prod/aggregated/addresses")).doesNotContain(ip)
                        .contains("compute#addressAggregatedList");
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(ip, port), 2_000);
                    throw new AssertionError("the released address still listens");
                } catch (java.io.IOException refused) {
                    // released: nothing listens there any more
                }
            }
        }
    }

    /** A GET of the simulator's Compute Engine API, as any client sends it. */
    static String computeGet(GkeSimulator simulator, String path) throws Exception {
        var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(simulator.computeUrl() + path)).GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** gcloud with a private configuration, its Compute Engine API the simulator's; null without gcloud on the PATH. */
    record Gcloud(String program, Path home, String computeUrl) {
        static Gcloud of(GkeSimulator simulator, Path dir) {
            return Programs.find("gcloud").map(g -> new Gcloud(g, dir, simulator.computeUrl())).orElse(null);
        }

        /** Runs gcloud on a thread of its own; the future is its output, once it exited 0. */
        java.util.concurrent.Future<String> start(String... args) {
            java.util.concurrent.FutureTask<String> task = new java.util.concurrent.FutureTask<>(() -> run(args));
            Thread thread = new Thread(task, "gcloud " + String.join(" ", args));
            thread.setDaemon(true);
            thread.start();
            return task;
        }

        String run(String... args) throws Exception {
            List<String> command = new ArrayList<>(List.of(program));
            command.addAll(List.of(args));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            Map<String, String> env = builder.environment();
            env.keySet().removeIf(k -> k.startsWith("CLOUDSDK_") || k.startsWith("GOOGLE_"));
            env.put("CLOUDSDK_CONFIG", home.resolve("gcloud").toString());
            env.put("CLOUDSDK_CORE_PROJECT", "platform-prod");
            env.put("CLOUDSDK_CORE_DISABLE_PROMPTS", "1");
            env.put("CLOUDSDK_AUTH_ACCESS_TOKEN", "simulator-does-not-check");
            env.put("CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE", computeUrl + "/compute/v1/");
            env.put("CLOUDSDK_CORE_DISABLE_USAGE_REPORTING", "true");
            env.put("CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK", "true");
            Process p = builder.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("gcloud finished").isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            return out;
        }
    }
}
