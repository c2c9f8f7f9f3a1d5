package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.cluster.GetCluster;
import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.application.cluster.ListClusters;
import com.bettercompute.application.cluster.ListVersions;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.cluster.UpdateCluster;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.fakes.InMemoryLoadBalancerRepository;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.fakes.InMemoryTenantClusterClient;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeOutOfService;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The HTTP adapter with every route (the clusters', the node pools', the market's, the shared volumes', the operator's
 * list of load balancers over {@link #loadBalancers}), over the use cases on in-memory fakes ({@link MarketWorld}:
 * tenants acme and globex, each with a ready cluster {@code train} enrolled in the pool {@code us-central1/h100-8x}),
 * started on a free port of the loopback address.
 */
public final class MarketApiWorld implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    /** Every exchange is also checked against the served OpenAPI document. */
    private static final HttpClient HTTP = com.bettercompute.adapters.http.contract.CheckedHttpClient.of(
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build());

    final MarketWorld w = new MarketWorld();
    final InMemoryLoadBalancerRepository loadBalancers = new InMemoryLoadBalancerRepository(w.ports.store());
    final ApiServer server;
    final int port;

    MarketApiWorld() {
        this(10_000);
    }

    /** With each principal allowed {@code concurrentPerPrincipal} requests in flight. */
    MarketApiWorld(int concurrentPerPrincipal) {
        ApiUseCases useCases = apiUseCases(w);
        MarketUseCases market = marketUseCases(w);
        server = new ApiServer(useCases, nodePoolUseCases(w), new RequestLimits(
                new RequestLimits.Settings(concurrentPerPrincipal, 1_000_000, Duration.ofSeconds(10)), java.time.Clock.systemUTC()),
                Operations.NONE, market, null, null, volumeUseCases(w),
                new ListLoadBalancers(loadBalancers, w.ports.clusters(), w.authorizer));
        port = server.start("127.0.0.1", 0);
    }

    /** The shared volumes' use cases over the market world's fakes (no pool provisions volumes: the list starts empty). */
    static VolumeUseCases volumeUseCases(MarketWorld w) {
        InMemoryPorts p = w.ports;
        var volumes = new com.bettercompute.application.fakes.InMemoryVolumeRepository(p.store());
        var ledger = new com.bettercompute.application.fakes.InMemoryStorageLedger(p.store());
        var files = new com.bettercompute.application.port.InMemorySharedVolumeProvider(p.clock(), Duration.ZERO);
        var settings = com.bettercompute.application.volume.StorageSettings.NONE;
        var reconcile = new com.bettercompute.application.volume.ReconcileVolume(p.transactions(), volumes, p.clusters(), p.catalog(),
                p.outbox(), ledger, w.markets, account -> files, settings, com.bettercompute.application.reconcile.Cadence.DEFAULT, p.clock());
        return new VolumeUseCases(new com.bettercompute.application.volume.ListVolumes(volumes, ledger, settings, w.authorizer),
                new com.bettercompute.application.volume.DeleteVolume(volumes, reconcile, w.authorizer, p.clock()), w.callers);
    }

    /** The clusters API's use cases over the market world's fakes. */
    public static ApiUseCases apiUseCases(MarketWorld w) {
        InMemoryPorts p = w.ports;
        var a = w.authorizer;
        InMemoryClusterProvider provider = new InMemoryClusterProvider(p.clock(), Duration.ZERO);
        return new ApiUseCases(w.authenticate,
                new CreateCluster(p.clusters(), p.catalog(), a, p.clock()),
                new ListClusters(p.clusters(), a), new GetCluster(p.clusters(), a),
                new UpdateCluster(p.transactions(), p.clusters(), a, p.clock()),
                new DeleteCluster(p.transactions(), p.clusters(), p.outbox(), a, p.clock()),
                new ListVersions(p.catalog(), a, account -> provider),
                new ReadEvents(p.outbox(), new ReadableClusters(p.clusters(), a)),
                new ReadUsage(p.usage(), new ReadableClusters(p.clusters(), a)),
                new IssueCredentials(p.transactions(), p.clusters(), p.catalog(), p.outbox(), a,
                        account -> provider, new InMemoryTenantClusterClient(p.clock()), 3600, p.clock()));
    }

    /** The node pools' use cases over the market world's fakes. */
    static NodePoolUseCases nodePoolUseCases(MarketWorld w) {
        InMemoryPorts p = w.ports;
        return new NodePoolUseCases(
                new com.bettercompute.application.nodepool.CreateNodePool(p.transactions(), p.clusters(), p.catalog(), p.outbox(), w.authorizer, p.clock()),
                new com.bettercompute.application.nodepool.ListNodePools(p.clusters(), w.authorizer),
                new com.bettercompute.application.nodepool.GetNodePool(p.clusters(), w.authorizer),
                new com.bettercompute.application.nodepool.UpdateNodePool(p.transactions(), p.clusters(), w.authorizer, p.clock()),
                new com.bettercompute.application.nodepool.DeleteNodePool(p.transactions(), p.clusters(), p.outbox(), w.authorizer, p.clock()));
    }

    /** The market's use cases of the world. */
    public static MarketUseCases marketUseCases(MarketWorld w) {
        InMemoryPorts p = w.ports;
        return new MarketUseCases(w.bids, w.requests, w.readFeed, w.balance, w.reserve, w.supply,
                new ReportNodeOutOfService(p.transactions(), w.markets, p.outbox(), p.clock()),
                new ReportNodeBack(p.transactions(), w.markets, p.outbox(), p.clock()),
                w.topUp, w.enrol, w.remove, w.gpuUsage);
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

    Reply send(String method, String pathAndQuery, String token, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> res = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(res.statusCode(), res.headers().firstValue(ApiServer.REQUEST_ID).orElse(null),
                    res.headers().firstValue("Content-Type").orElse(null), res.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The body of an unauthenticated request as the bytes the server wrote. */
    byte[] sendBytes(String method, String pathAndQuery) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                    .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code text} with single quotes as double quotes, so bodies read cleanly in tests. */
    static String q(String text) {
        return text.replace('\'', '"');
    }

    @Override
    public void close() {
        com.bettercompute.adapters.http.contract.ContractCheck.forget("http://127.0.0.1:" + port);
        server.stop();
    }
}
