package com.bettercompute.bootstrap.e2e;

import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static com.bettercompute.bootstrap.e2e.MarketInTenantClusterEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Services of type LoadBalancer while the server is killed with SIGKILL in the middle of serving them, on the embedded
 * default: the server in a process of its own, its GKE simulator (the tenant cluster's Kubernetes API and the Compute
 * Engine API) keeping its world under the test's {@code ./data} and its database on the test PostgreSQL, both of which
 * outlive it. Each cycle deletes some Services and creates others, and kills the server at the k-th change the
 * watches then see in the cluster (a deletion, a finalizer, an Event, an address in a status; k drawn at random), which
 * lands the kill anywhere from before the first row to after the last release. After each restart, once every live
 * Service shows an address and every deleted one is gone, the simulator's Compute Engine API holds exactly one
 * address, one forwarding rule, one backend service and one health check for each live Service, under the name derived
 * from its uid, at the address its status shows and showed before every restart; nothing for a deleted one.
 *
 * <p>More cycles: {@code -Dlb.crash.cycles=10}; another draw: {@code -Dlb.crash.seed=N}.
 */
class LoadBalancerSurvivesSigkillTest {
    static final String PROJECT = "platform-prod";
    static final String NAMESPACE = "default";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;
    ServerProcess server;
    List<String> args;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.kill();
        }
    }

    @Test
    void killed_while_serving_services_it_never_leaks_an_address_gives_one_two_or_changes_one() throws Exception {
        int cycles = Integer.getInteger("lb.crash.cycles", 1);
        long seed = Long.getLong("lb.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        args = List.of("--port", "0", "--db", RunningServer.postgres(), "--catalog", LoadBalancerEndToEndTest.catalog(10).toString(),
                "--sim-operation-seconds", "1", "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "2",
                "--replica-id", "load-balancer-crash-test");
        server = ServerProcess.start(work, work.resolve("server.log"), args);
        JsonNode created = post("create", ClustersApiContract.standard("acme", "edge"));
        String clusterId = created.get("id").asText();
        await("edge is ready", () -> post("get", Map.of("tenantId", "acme", "clusterId", clusterId))
                .path("state").asText().equals("ready") ? true : null);
        String kubeconfig = post("credentials", Map.of("tenantId", "acme", "clusterId", clusterId, "role", "admin"))
                .get("kubeconfig").asText();

        // the Services that live, by name: their uid; the uids of those deleted; each Service's address first seen, by uid
        Map<String, String> live = new TreeMap<>();
        List<String> deleted = new ArrayList<>();
        Map<String, String> firstAddress = new HashMap<>();
        int port = 20_000 + random.nextInt(9_000);
        try (KubernetesClient cluster = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
            for (int cycle = 0; cycle < cycles; cycle++) {
                List<String> deleting = new ArrayList<>(live.keySet());
                Collections.shuffle(deleting, random);
                deleting = deleting.subList(0, cycle == 0 ? 0 : 1 + random.nextInt(Math.min(2, deleting.size())));
                int creating = cycle == 0 ? 3 : 2;
                // each created Service: its finalizer, Ensuring, its address, Ensured; each deleted: the deletion,
                // Deleting, Deleted, its removal. The k-th write lands the kill, the last one after everything.
                int writes = 4 * creating + 4 * deleting.size();
                int killAt = 1 + random.nextInt(writes);
                // a watch begins with every object there is: those are not this cycle's writes
                Writes seen = new Writes(killAt, cluster.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                        .map(e -> e.getMetadata().getUid()).collect(Collectors.toSet()));
                try (Watch services = cluster.services().inNamespace(NAMESPACE).watch(seen.watcher());
                     Watch events = cluster.v1().events().inNamespace(NAMESPACE).watch(seen.watcher())) {
                    for (String name : deleting) {
                        cluster.services().inNamespace(NAMESPACE).withName(name).delete();
                        deleted.add(live.remove(name));
                    }
                    for (int i = 0; i < creating; i++) {
                        String name = "web-" + cycle + "-" + i;
                        Service s = cluster.services().inNamespace(NAMESPACE).resource(service(name, port++)).create();
                        live.put(name, s.getMetadata().getUid());
                    }
                    // a write lost by the watch (or fewer than counted) must not hang the test: it is killed then
                    seen.reached.await(60, TimeUnit.SECONDS);
                    server.kill();
                }
                // an address a Service showed before the kill is its address for good
                String beforeKill = "before kill " + cycle;
                seen.shown.forEach((uid, ips) -> ips.forEach(ip -> keeps(firstAddress, uid, ip, beforeKill)));
                System.out.println("load balancer crash test (seed " + seed + "), cycle " + cycle + ": killed at change "
                        + seen.counted.get() + " (drawn " + killAt + " of about " + writes + "), deleting " + deleting
                        + ", live " + live.keySet());
                server = ServerProcess.start(work, work.resolve("server.log"), args);

                Map<String, String> addresses = await("every live Service served and every deleted one gone after restart " + cycle,
                        Duration.ofSeconds(90), () -> served(cluster, live, deleted));
                String afterRestart = "after restart " + cycle;
                addresses.forEach((uid, ip) -> keeps(firstAddress, uid, ip, afterRestart));
                assertThat(addresses.values()).as("one address per Service").doesNotHaveDuplicates();
                provider(clusterId, addresses);
                operatorList(addresses);
            }
        }
    }

    /** A Service's address is the first one it was seen with. */
    static void keeps(Map<String, String> firstAddress, String uid, String ip, String when) {
        String first = firstAddress.putIfAbsent(uid, ip);
        assertThat(first == null ? ip : first).as("the address of Service uid " + uid + " " + when).isEqualTo(ip);
    }

    /** The changes in the cluster the watches see, with a latch at the k-th, and the addresses Services showed. */
    static final class Writes {
        final CountDownLatch reached;
        final AtomicLong counted = new AtomicLong();
        /** Every address a Service's status showed, by the Service's uid. */
        final Map<String, Set<String>> shown = new ConcurrentHashMap<>();
        /** The uids of the objects there were before. */
        final Set<String> before;

        Writes(int k, Set<String> before) {
            reached = new CountDownLatch(k);
            this.before = before;
        }

        <T extends HasMetadata> Watcher<T> watcher() {
            return new Watcher<>() {
                @Override
                public void eventReceived(Action action, T resource) {
                    // a Service's creation is the test's own write, not the platform's
                    if (action == Action.ADDED && (resource instanceof Service || before.contains(resource.getMetadata().getUid()))) {
                        return;
                    }
                    if (resource instanceof Service s && s.getStatus() != null && s.getStatus().getLoadBalancer() != null
                            && s.getStatus().getLoadBalancer().getIngress() != null && !s.getStatus().getLoadBalancer().getIngress().isEmpty()) {
                        shown.computeIfAbsent(s.getMetadata().getUid(), u -> ConcurrentHashMap.newKeySet())
                                .add(s.getStatus().getLoadBalancer().getIngress().get(0).getIp());
                    }
                    counted.incrementAndGet();
                    reached.countDown();
                }

                @Override
                public void onClose(WatcherException cause) {
                    // the server was killed: the cluster's API went with it
                }
            };
        }
    }

    /**
     * The live Services' addresses by uid once each shows one and every deleted Service is gone from the cluster (its
     * finalizer comes off only after its release); null before.
     */
    static Map<String, String> served(KubernetesClient k, Map<String, String> live, List<String> deleted) {
        Map<String, String> addresses = new LinkedHashMap<>();
        for (Service s : k.services().inNamespace(NAMESPACE).list().getItems()) {
            String uid = s.getMetadata().getUid();
            if (deleted.contains(uid)) {
                return null;
            }
            List<LoadBalancerIngress> ingress = s.getStatus().getLoadBalancer().getIngress();
            if (live.containsValue(uid)) {
                if (ingress == null || ingress.isEmpty()) {
                    return null;
                }
                addresses.put(uid, ingress.get(0).getIp());
            }
        }
        return addresses.size() == live.size() ? addresses : null;
    }

    /**
     * What the simulator's Compute Engine API holds: one address, forwarding rule, backend service and health check
     * per live Service, named from its uid, at its address; nothing else of the platform's load balancers.
     */
    void provider(String clusterId, Map<String, String> addresses) {
        Map<String, String> expected = new TreeMap<>();
        addresses.forEach((uid, ip) -> expected.put(LoadBalancer.providerName(clusterId, uid), ip));
        List<JsonNode> reserved = compute("addresses");
        assertThat(reserved).as("addresses").extracting(a -> a.get("name").asText())
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        reserved.forEach(a -> assertThat(a.get("address").asText()).as(a.get("name").asText()).isEqualTo(expected.get(a.get("name").asText())));
        List<JsonNode> rules = compute("forwardingRules");
        assertThat(rules).as("forwarding rules").extracting(r -> r.get("name").asText())
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        rules.forEach(r -> assertThat(r.get("IPAddress").asText()).as(r.get("name").asText()).isEqualTo(expected.get(r.get("name").asText())));
        assertThat(compute("backendServices")).as("backend services").extracting(b -> b.get("name").asText())
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(compute("healthChecks")).as("health checks").extracting(h -> h.get("name").asText())
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
    }

    /** The operator's list names the same addresses, each serving. */
    void operatorList(Map<String, String> addresses) {
        JsonNode items = get(server.baseUrl() + "/api/operator/load-balancers?tenant=acme", RunningServer.OPS).get("items");
        Map<String, String> listed = new HashMap<>();
        items.forEach(i -> listed.put(i.get("address").asText(), i.get("state").asText()));
        assertThat(listed).as("the operator's list").hasSize(addresses.size())
                .containsOnlyKeys(addresses.values()).allSatisfy((ip, state) -> assertThat(state).isEqualTo("serving"));
    }

    /** The platform's load balancer resources of a kind across the project, as the Compute Engine API lists them. */
    List<JsonNode> compute(String collection) {
        JsonNode list = get(server.simulatorRest() + "/compute/v1/projects/" + PROJECT + "/aggregated/" + collection, null);
        List<JsonNode> found = new ArrayList<>();
        list.path("items").forEach(scope -> scope.path(collection).forEach(r -> {
            if (r.get("name").asText().startsWith(LoadBalancer.PROVIDER_NAME_PREFIX)) {
                found.add(r);
            }
        }));
        return found;
    }

    static Service service(String name, int port) {
        return new ServiceBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withType("LoadBalancer").withLoadBalancerClass(LoadBalancerClass.PLATFORM)
                .addToSelector("app", name).addNewPort().withName("web").withProtocol("TCP").withPort(port)
                .withNewTargetPort(8080).endPort().endSpec().build();
    }

    JsonNode post(String method, Object body) {
        try {
            return MarketJobSurvivesSigkillTest.ok(MarketJobSurvivesSigkillTest.exchange(HttpRequest.newBuilder(
                            URI.create(server.baseUrl() + "/api/compute/kubernetesClusters/" + method))
                    .header("Authorization", "Bearer " + RunningServer.ALICE).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(RunningServer.JSON.writeValueAsString(body)))));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static JsonNode get(String url, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return MarketJobSurvivesSigkillTest.ok(MarketJobSurvivesSigkillTest.exchange(request));
    }
}
