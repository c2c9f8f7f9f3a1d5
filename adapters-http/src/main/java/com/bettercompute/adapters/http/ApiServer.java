package com.bettercompute.adapters.http;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.adapters.http.console.Console;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The HTTP API of {@code API.md}: every method is {@code POST /api/compute/kubernetesClusters/<method>}
 * with a JSON object; every response carries {@code X-Request-Id}; every error has the one body shape.
 * No input may produce a 500: a 500 is a bug, logged with its request id and shown without internals.
 *
 * <p>The routes are per resource ({@link ClusterRoutes}, {@link NodePoolRoutes}, {@link EventRoutes}); each
 * is installed through one {@link Router}, whose table is also the OpenAPI document at
 * {@value OpenApi#PATH}. Filters that run before every route are installed in {@link #filters}.
 */
public final class ApiServer {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** One line per request: method, path, status, caller, request id. Never a header or a body. */
    private static final Logger access = LoggerFactory.getLogger("better-compute.access");
    static final String REQUEST_ID = "X-Request-Id";
    static final long MAX_BODY_BYTES = 1024 * 1024;

    private final Javalin app;
    private List<Router.Route> routes;
    private FeedStreams feedStreams;

    /** With {@code nodePools} also serves {@code /api/compute/kubernetesNodePools/<method>}; no operator endpoints. */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits) {
        this(useCases, nodePools, limits, Operations.NONE);
    }

    /** With the operator's endpoints and request observation of {@code operations}. */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations) {
        this(useCases, nodePools, limits, operations, null);
    }

    /** With {@code market} also serves the market routes ({@link MarketRoutes}, {@link OperatorMarketRoutes}). */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations,
                     MarketUseCases market) {
        this(useCases, nodePools, limits, operations, market, null, null);
    }

    /**
     * With {@code console} (which needs {@code market}) also serves the web console under {@value Console#BASE},
     * over the same use cases; its live pages follow the market feed's own stream.
     */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations,
                     MarketUseCases market, Console console) {
        this(useCases, nodePools, limits, operations, market, null, console);
    }

    /**
     * With {@code signIn} also serves the OpenID Connect provider ({@link OidcRoutes}) and how a person
     * connects ({@link ConnectRoutes}); with {@code console} (which needs {@code market}) the web console under
     * {@value Console#BASE}, over the same use cases, its live pages following the market feed's own stream.
     */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations,
                     MarketUseCases market, SignInUseCases signIn, Console console) {
        this(useCases, nodePools, limits, operations, market, signIn, console, null);
    }

    /** With {@code volumes} also serves the shared volumes ({@link VolumeRoutes}) and shows them on the clusters' routes. */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations,
                     MarketUseCases market, SignInUseCases signIn, Console console, VolumeUseCases volumes) {
        this(useCases, nodePools, limits, operations, market, signIn, console, volumes, null);
    }

    /** With {@code loadBalancers} also serves the operator's list of who holds which address ({@link LoadBalancerRoutes}). */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations,
                     MarketUseCases market, SignInUseCases signIn, Console console, VolumeUseCases volumes,
                     ListLoadBalancers loadBalancers) {
        this.app = Javalin.create(config -> {
            limits.install(config);
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            config.http.prefer405over404 = true;
            config.jetty.modifyServer(server -> server.setErrorHandler(new HttpRefusal.JsonErrors()));
            filters(config);
            Authentication authentication = new Authentication(useCases.authenticate(), limits);
            Router router = new Router(config.routes, authentication);
            ClusterRoutes.install(router, useCases, volumes);
            if (volumes != null) {
                VolumeRoutes.install(router, volumes);
            }
            if (loadBalancers != null) {
                LoadBalancerRoutes.install(router, loadBalancers);
            }
            if (nodePools != null) {
                NodePoolRoutes.install(router, nodePools);
            }
            EventRoutes.install(router, useCases.readEvents(), useCases.readUsage(), market == null ? null : market.gpuUsage());
            if (market != null) {
                feedStreams = new FeedStreams(market.feed(), java.time.Duration.ofSeconds(1));
                MarketRoutes.install(router, market, feedStreams);
                OperatorMarketRoutes.install(router, market);
            }
            if (signIn != null) {
                OidcRoutes.install(config.routes, signIn, authentication);
                ConnectRoutes.install(config.routes, signIn, authentication);
            }
            if (console != null) {
                FeedStreams streams = Objects.requireNonNull(feedStreams, "the console needs the market");
                // a person's requests are logged and counted by principal as the API's are
                console.install(config.routes, streams::serve, (ctx, principal) -> {
                    ctx.attribute(Authentication.CALLER, principal);
                    limits.admit(ctx, principal);
                });
            }
            routes = router.table();
            byte[] document = OpenApi.bytes(OpenApi.document(routes));
            router.raw(OpenApi.PATH, ctx -> ctx.contentType("application/json").result(document));
            errors(config, console);
            OperatorRoutes.install(config, operations);
        });
    }

    /** The one place where what runs around every request is installed: the request id and the access log. */
    private static void filters(JavalinConfig config) {
        config.routes.before(ctx -> {
            String requestId = requestId();
            ctx.header(REQUEST_ID, requestId);
            org.slf4j.MDC.put(OperatorRoutes.MDC_REQUEST, requestId);
        });
        config.routes.after(ctx -> {
            if (access.isInfoEnabled() && !OperatorRoutes.PATHS.contains(ctx.path())) {
                access.info("{} {} {} caller={} request={}", ctx.method(), ctx.path(), ctx.statusCode(),
                        Objects.requireNonNullElse(ctx.<String>attribute(Authentication.CALLER), "-"), ctx.res().getHeader(REQUEST_ID));
            }
        });
    }

    /**
     * A random version-4 UUID from the thread's {@link ThreadLocalRandom}: a request id must be unique, not
     * unguessable (it grants nothing), and {@link UUID#randomUUID()} takes every request through the one
     * {@code SecureRandom}.
     */
    static String requestId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong() & ~0xF000L | 0x4000L;
        long low = random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }

    private static void errors(JavalinConfig config, Console console) {
        config.routes.exception(DomainException.class, (e, ctx) -> error(ctx, e));
        config.routes.exception(HttpRefusal.Refused.class, (e, ctx) -> e.refusal.write(ctx, e.getMessage(), e.details));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() == 404 && console != null && Console.owns(ctx.path())) {
                console.notFound(ctx);
            } else {
                httpError(ctx, e);
            }
        });
        config.routes.exception(Exception.class, (e, ctx) -> internal(ctx, e));
        config.routes.error(404, ctx -> {
            if ((ctx.result() == null || ctx.result().isEmpty()) && console != null && Console.owns(ctx.path())) {
                console.notFound(ctx);
            } else if (ctx.result() == null || ctx.result().isEmpty()) {
                Responses.json(ctx, 404, ErrorMapper.body(ErrorCode.NOT_FOUND, "No such method: " + ctx.method() + " " + ctx.path() + ".", Map.of()));
            }
        });
    }

    /** Starts on the host and port (0: any free port) and returns the port. */
    public int start(String host, int port) {
        app.start(host, port);
        return app.port();
    }

    public void stop() {
        if (feedStreams != null) {
            feedStreams.close();
        }
        app.stop();
    }

    /** Writes {@code body} as the JSON answer (the operator's endpoints answer through it too). */
    static void write(Context ctx, int status, Object body) {
        Responses.json(ctx, status, body);
    }

    /** The routes served, as the OpenAPI document lists them. */
    List<Router.Route> routes() {
        return routes;
    }

    private static void error(Context ctx, DomainException e) {
        if (e.code() == ErrorCode.INVALID_INPUT) {
            e = located(ctx, e);
        }
        if (e.code() == ErrorCode.INTERNAL) {
            internal(ctx, e);
            return;
        }
        Responses.json(ctx, ErrorMapper.status(e.code()), ErrorMapper.body(e));
    }

    /**
     * The refusal with each field's location: a problem a use case found names no location, and is then the
     * body's on a route with a body and the query's on one without.
     */
    @SuppressWarnings("unchecked")
    private static DomainException located(Context ctx, DomainException e) {
        if (!(e.details().get("fields") instanceof List<?> fields) || fields.stream().allMatch(f -> f instanceof Map<?, ?> m && m.containsKey("in"))) {
            return e;
        }
        String in = ctx.method().name().equals("GET") || ctx.method().name().equals("DELETE") ? "query" : "body";
        List<Map<String, Object>> located = new java.util.ArrayList<>();
        for (Object f : fields) {
            Map<String, Object> copy = new java.util.LinkedHashMap<>();
            copy.put("field", ((Map<String, Object>) f).get("field"));
            copy.put("in", in);
            ((Map<String, Object>) f).forEach(copy::putIfAbsent);
            located.add(copy);
        }
        Map<String, Object> details = new java.util.LinkedHashMap<>(e.details());
        details.put("fields", located);
        return new DomainException(e.code(), e.getMessage(), details);
    }

    private static void httpError(Context ctx, HttpResponseException e) {
        int status = e.getStatus();
        if (status == 413) {
            HttpRefusal.PAYLOAD_TOO_LARGE.write(ctx, "The body must be at most " + MAX_BODY_BYTES + " bytes.", Map.of("limit", MAX_BODY_BYTES));
        } else if (status == 405) {
            String allow = e.getDetails().getOrDefault("availableMethods", e.getDetails().getOrDefault("Available methods", ""));
            ctx.header("Allow", allow.replace(" ", ""). replace(",", ", "));
            HttpRefusal.METHOD_NOT_ALLOWED.write(ctx, "Method " + ctx.method() + " is not served at " + ctx.path() + "; it takes " + allow + ".",
                    Map.of("allowed", List.of(allow.replace(" ", "").split(","))));
        } else if (status == 404) {
            Responses.json(ctx, 404, ErrorMapper.body(ErrorCode.NOT_FOUND, "No such method: " + ctx.method() + " " + ctx.path() + ".", Map.of()));
        } else if (status >= 400 && status < 500) {
            Responses.json(ctx, 400, ErrorMapper.body(ErrorCode.INVALID_INPUT, "The request could not be read.", Map.of()));
        } else {
            internal(ctx, new IllegalStateException("HTTP " + status + ": " + e.getMessage()));
        }
    }

    private static void internal(Context ctx, Exception e) {
        String requestId = ctx.res().getHeader(REQUEST_ID);
        log.error("internal error serving {} {} (request {})", ctx.method(), ctx.path(), requestId, e);
        Responses.json(ctx, 500, ErrorMapper.body(ErrorCode.INTERNAL,
                "An unexpected error occurred; it has been logged with request id " + requestId + ".",
                Map.of("requestId", requestId == null ? "" : requestId)));
    }
}
