package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.cluster.ClusterWorld;
import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.application.cluster.ListVersions;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.fakes.InMemoryTenantClusterClient;
import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.UpdateNodePool;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.usage.ReadUsage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The HTTP adapter as served, over the application's use cases on in-memory fakes ({@link ClusterWorld}'s
 * catalog: tenants {@code acme} and {@code globex}, their principals, and the operator {@code service:ops}),
 * started on a free port of the loopback address.
 */
final class ApiWorld implements AutoCloseable {
    static final String ALICE = "token-user:alice@acme.example";
    static final String BOB = "token-user:bob@acme.example";
    static final String CAROL = "token-user:carol@globex.example";
    static final String DAVE = "token-user:dave@acme.example";
    static final String OPS = "token-service:ops";
    static final String POOL = ClusterWorld.POOL;
    static final ObjectMapper JSON = new ObjectMapper();
    /** Every exchange is also checked against the served OpenAPI document. */
    private static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build());

    final ClusterWorld world = new ClusterWorld();
    final ApiServer server;
    final int port;

    private ApiWorld() {
        InMemoryPorts p = world.ports;
        InMemoryClusterProvider provider = new InMemoryClusterProvider(p.clock(), Duration.ZERO);
        ApiUseCases useCases = new ApiUseCases(world.authenticate, world.create, world.list, world.get, world.update, world.delete,
                new ListVersions(p.catalog(), world.authorizer, account -> provider),
                new ReadEvents(p.outbox(), new ReadableClusters(p.clusters(), world.authorizer)),
                new ReadUsage(p.usage(), new ReadableClusters(p.clusters(), world.authorizer)),
                new IssueCredentials(p.transactions(), p.clusters(), p.catalog(), p.outbox(), world.authorizer,
                        account -> provider, new InMemoryTenantClusterClient(p.clock()), 3600, p.clock()));
        NodePoolUseCases nodePools = new NodePoolUseCases(
                new CreateNodePool(p.transactions(), p.clusters(), p.catalog(), p.outbox(), world.authorizer, p.clock()),
                new ListNodePools(p.clusters(), world.authorizer),
                new GetNodePool(p.clusters(), world.authorizer),
                new UpdateNodePool(p.transactions(), p.clusters(), world.authorizer, p.clock()),
                new DeleteNodePool(p.transactions(), p.clusters(), p.outbox(), world.authorizer, p.clock()));
        // far above what the fuzz sends: these tests are about answers, not about one client's share
        server = new ApiServer(useCases, nodePools, new RequestLimits(
                new RequestLimits.Settings(10_000, 1_000_000, java.time.Duration.ofSeconds(10)), java.time.Clock.systemUTC()));
        port = server.start("127.0.0.1", 0);
    }

    static ApiWorld start() {
        return new ApiWorld();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** An answer: status, the request id header, the body. */
    record Reply(int status, String requestId, String contentType, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(body, e);
            }
        }
    }

    /** {@code POST /api/compute/kubernetesClusters/<method>} with the body written as JSON. */
    Reply call(String method, String token, Object body) {
        return post(ClusterRoutes.BASE + method, token, new String(Bodies.json(body), java.nio.charset.StandardCharsets.UTF_8));
    }

    Reply post(String path, String token, String body) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), token);
    }

    Reply get(String pathAndQuery, String token) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl() + pathAndQuery)).GET(), token);
    }

    private Reply send(HttpRequest.Builder request, String token) {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> r = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.headers().firstValue(ApiServer.REQUEST_ID).orElse(null),
                    r.headers().firstValue("Content-Type").orElse(null), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        com.bettercompute.adapters.http.contract.ContractCheck.forget(baseUrl());
        server.stop();
    }
}
