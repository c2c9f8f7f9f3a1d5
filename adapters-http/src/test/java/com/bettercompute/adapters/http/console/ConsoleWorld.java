package com.bettercompute.adapters.http.console;

import com.bettercompute.adapters.http.ApiServer;
import com.bettercompute.adapters.http.ApiUseCases;
import com.bettercompute.adapters.http.MarketApiWorld;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.NodePoolUseCases;
import com.bettercompute.adapters.http.Operations;
import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.application.fakes.InMemoryConsoleSessionRepository;
import com.bettercompute.application.fakes.InMemoryLoadBalancerRepository;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.market.ReadMarketCluster;
import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.UpdateNodePool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The API server with its console over the market's use cases on in-memory fakes ({@link MarketWorld}: acme
 * and globex, each with a ready market-managed cluster {@code train}; the clock is the world's own), on a
 * free port of the loopback address; and a browser's part in plain HTTP: a cookie, forms, no redirects followed.
 */
final class ConsoleWorld implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");

    final MarketWorld w = new MarketWorld();
    final InMemoryConsoleSessionRepository sessions = new InMemoryConsoleSessionRepository();
    final InMemoryLoadBalancerRepository loadBalancers = new InMemoryLoadBalancerRepository(w.ports.store());
    final ApiServer server;
    final int port;

    ConsoleWorld() {
        InMemoryPorts p = w.ports;
        var a = w.authorizer;
        ApiUseCases api = MarketApiWorld.apiUseCases(w);
        NodePoolUseCases nodePools = new NodePoolUseCases(
                new CreateNodePool(p.transactions(), p.clusters(), p.catalog(), p.outbox(), a, p.clock()),
                new ListNodePools(p.clusters(), a), new GetNodePool(p.clusters(), a),
                new UpdateNodePool(p.transactions(), p.clusters(), a, p.clock()),
                new DeleteNodePool(p.transactions(), p.clusters(), p.outbox(), a, p.clock()));
        MarketUseCases market = MarketApiWorld.marketUseCases(w);
        Console console = new Console(api, nodePools, market,
                new ConsoleUseCases(w.callers, new ReadMarketCluster(w.callers, w.markets),
                        new ConsoleSessions(sessions, p.clock()), new ListLoadBalancers(loadBalancers, p.clusters(), a)), p.clock());
        server = new ApiServer(api, nodePools, new RequestLimits(RequestLimits.Settings.defaults(), java.time.Clock.systemUTC()),
                Operations.NONE, market, console);
        port = server.start("127.0.0.1", 0);
    }

    /** An answer as a browser gets it. */
    record Page(int status, Map<String, java.util.List<String>> headers, String body) {
        String header(String name) {
            return headers.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), java.util.List.of()).stream().findFirst().orElse(null);
        }

        String location() {
            return header("location");
        }

        /** The session's CSRF token, as the page's forms carry it. */
        String csrf() {
            Matcher m = CSRF.matcher(body);
            if (!m.find()) {
                throw new AssertionError("no form with a CSRF token on the page:\n" + body);
            }
            return m.group(1);
        }
    }

    /** A browser: its session cookie, once signed in. */
    final class Browser {
        String cookie;
        final Map<String, String> extraHeaders = new LinkedHashMap<>();

        Page get(String path) {
            return send(HttpRequest.newBuilder(uri(path)).GET());
        }

        Page post(String path, Map<String, String> form) {
            String body = form.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                    .collect(Collectors.joining("&"));
            return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
        }

        /** Signs in with the token, keeping the session cookie; the answer of the sign-in post. */
        Page signIn(String token) {
            Page p = post("/console/sign-in", Map.of("token", token, "next", ""));
            String set = p.header("set-cookie");
            if (set != null && set.startsWith(Console.COOKIE + "=")) {
                cookie = set.substring(0, set.indexOf(';'));
            }
            return p;
        }

        private Page send(HttpRequest.Builder r) {
            r.timeout(Duration.ofSeconds(30));
            if (cookie != null) {
                r.header("Cookie", cookie);
            }
            extraHeaders.forEach(r::header);
            try {
                HttpResponse<String> res = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
                return new Page(res.statusCode(), res.headers().map(), res.body());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    Browser browser() {
        return new Browser();
    }

    /** A browser signed in with the token. */
    Browser signedIn(String token) {
        Browser b = browser();
        Page p = b.signIn(token);
        if (p.status() != 303 || b.cookie == null) {
            throw new AssertionError("sign-in failed: " + p.status() + "\n" + p.body());
        }
        return b;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop();
    }
}
