package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.CredentialsCommand;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.cluster.UpdateClusterCommand;
import com.bettercompute.application.cluster.VersionsQuery;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.ListNodePoolsQuery;
import com.bettercompute.application.nodepool.NodePoolRef;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.domain.usage.UsageRecord;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * The HTTP API of {@code API.md}: every method is {@code POST /api/compute/kubernetesClusters/<method>}
 * with a JSON object; every response carries {@code X-Request-Id}; every error has the one body shape.
 * No input may produce a 500: a 500 is a bug, logged with its request id and shown without internals.
 */
public final class ApiServer {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** One line per request: method, path, status, caller, request id. Never a header or a body. */
    private static final Logger access = LoggerFactory.getLogger("better-compute.access");
    private static final String CALLER = "bc.caller";
    static final String REQUEST_ID = "X-Request-Id";
    static final long MAX_BODY_BYTES = 1024 * 1024;

    private final ApiUseCases uc;
    private final NodePoolUseCases np;
    private final RequestLimits limits;
    private final Javalin app;

    /** With {@code nodePools} also serves {@code /api/compute/kubernetesNodePools/<method>}. */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits) {
        this(useCases, nodePools, limits, Operations.NONE);
    }

    /** With the operator's endpoints and request observation of {@code operations}. */
    public ApiServer(ApiUseCases useCases, NodePoolUseCases nodePools, RequestLimits limits, Operations operations) {
        this.uc = useCases;
        this.np = nodePools;
        this.limits = limits;
        this.app = Javalin.create(config -> {
            limits.install(config);
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            config.routes.before(ctx -> {
                String requestId = UUID.randomUUID().toString();
                ctx.header(REQUEST_ID, requestId);
                org.slf4j.MDC.put(OperatorRoutes.MDC_REQUEST, requestId);
            });
            config.routes.after(ctx -> {
                if (access.isInfoEnabled() && !OperatorRoutes.PATHS.contains(ctx.path())) {
                    access.info("{} {} {} caller={} request={}", ctx.method(), ctx.path(), ctx.statusCode(),
                            Objects.requireNonNullElse(ctx.<String>attribute(CALLER), "-"), ctx.res().getHeader(REQUEST_ID));
                }
            });
            String base = "/api/compute/kubernetesClusters/";
            config.routes.post(base + "create", ctx -> respond(ctx, (caller, body) ->
                    ClusterJson.of(uc.createCluster().create(caller, CreateClusterCommand.from(body)))));
            config.routes.post(base + "list", ctx -> respond(ctx, (caller, body) ->
                    items(uc.listClusters().list(caller, ListClustersQuery.from(body)))));
            config.routes.post(base + "get", ctx -> respond(ctx, (caller, body) ->
                    ClusterJson.of(uc.getCluster().get(caller, ClusterRef.from(body)))));
            config.routes.post(base + "update", ctx -> respond(ctx, (caller, body) ->
                    ClusterJson.of(uc.updateCluster().update(caller, UpdateClusterCommand.from(body)))));
            config.routes.post(base + "delete", ctx -> respond(ctx, (caller, body) ->
                    ClusterJson.of(uc.deleteCluster().delete(caller, ClusterRef.from(body)))));
            config.routes.post(base + "versions", ctx -> respond(ctx, (caller, body) ->
                    VersionsJson.of(uc.listVersions().versions(caller, VersionsQuery.from(body)))));
            config.routes.post(base + "credentials", ctx -> respond(ctx, (caller, body) ->
                    CredentialsJson.of(uc.issueCredentials().issue(caller, CredentialsCommand.from(body)))));
            if (np != null) {
                String pools = "/api/compute/kubernetesNodePools/";
                config.routes.post(pools + "create", ctx -> respond(ctx, (caller, body) ->
                        ClusterJson.nodePool(np.createNodePool().create(caller, CreateNodePoolCommand.from(body)))));
                config.routes.post(pools + "list", ctx -> respond(ctx, (caller, body) ->
                        Map.of("items", np.listNodePools().list(caller, ListNodePoolsQuery.from(body)).stream().map(ClusterJson::nodePool).toList())));
                config.routes.post(pools + "get", ctx -> respond(ctx, (caller, body) ->
                        ClusterJson.nodePool(np.getNodePool().get(caller, NodePoolRef.from(body)))));
                config.routes.post(pools + "update", ctx -> respond(ctx, (caller, body) ->
                        ClusterJson.nodePool(np.updateNodePool().update(caller, UpdateNodePoolCommand.from(body)))));
                config.routes.post(pools + "delete", ctx -> respond(ctx, (caller, body) ->
                        ClusterJson.nodePool(np.deleteNodePool().delete(caller, NodePoolRef.from(body)))));
            }
            config.routes.get("/api/events", this::events);
            config.routes.get("/api/usage", this::usage);
            config.routes.exception(DomainException.class, (e, ctx) -> error(ctx, e));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> httpError(ctx, e.getStatus(), e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> internal(ctx, e));
            config.routes.error(404, ctx -> {
                if (ctx.result() == null || ctx.result().isEmpty()) {
                    write(ctx, 404, ErrorMapper.body(ErrorCode.NOT_FOUND, "No such method: " + ctx.method() + " " + ctx.path() + ".", Map.of()));
                }
            });
            config.routes.error(405, ctx -> write(ctx, 405, ErrorMapper.body(ErrorCode.NOT_FOUND,
                    "Method " + ctx.method() + " is not served here; the API's methods are POST.", Map.of())));
            OperatorRoutes.install(config, operations);
        });
    }

    /** Starts on the host and port (0: any free port) and returns the port. */
    public int start(String host, int port) {
        app.start(host, port);
        return app.port();
    }

    public void stop() {
        app.stop();
    }

    private void respond(Context ctx, BiFunction<Caller, Object, Object> call) {
        Caller caller = authenticate(ctx);
        Object body = Json.parse(ctx.bodyAsBytes());
        Object result = call.apply(caller, body);
        OperatorRoutes.accepted(body);
        write(ctx, 200, result);
    }

    private Caller authenticate(Context ctx) {
        Caller caller = uc.authenticate().byToken(bearer(ctx));
        ctx.attribute(CALLER, caller.id());
        limits.admit(ctx, caller.id());
        return caller;
    }

    private void events(Context ctx) {
        Caller caller = authenticate(ctx);
        checkQuery(ctx, Set.of("after", "limit", "tenantId"));
        long after = number(ctx.queryParam("after"), "after", 0);
        // beyond an int it is out of range all the same; ReadEvents says by how much
        int limit = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE,
                number(ctx.queryParam("limit"), "limit", com.bettercompute.application.event.ReadEvents.DEFAULT_LIMIT)));
        com.bettercompute.application.event.ReadEvents.Page page = uc.readEvents().read(caller, after, limit, ctx.queryParam("tenantId"));
        List<Object> items = new ArrayList<>();
        for (StoredEvent e : page.items()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sequence", e.sequence());
            m.put("type", e.event().type());
            m.put("tenantId", e.event().tenantId());
            m.put("subjectId", e.event().subjectId());
            m.put("occurredAt", e.event().occurredAt().toString());
            m.put("data", e.event().data());
            items.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("next", page.next());
        write(ctx, 200, out);
    }

    private void usage(Context ctx) {
        Caller caller = authenticate(ctx);
        checkQuery(ctx, Set.of("tenantId", "limit"));
        int limit = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, number(ctx.queryParam("limit"), "limit", 1000)));
        List<Object> items = new ArrayList<>();
        for (UsageRecord r : uc.readUsage().read(caller, ctx.queryParam("tenantId"), limit)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", r.kind());
            m.put("tenantId", r.tenantId());
            m.put("clusterId", r.clusterId());
            m.put("hourStart", r.hourStart().toString());
            m.put("quantity", r.quantity());
            m.put("recordedAt", r.recordedAt().toString());
            items.add(m);
        }
        write(ctx, 200, Map.of("items", items));
    }

    /**
     * A query string is read like a body: every parameter known and given once, each percent escape
     * whole and the decoded bytes UTF-8, so a typo or a broken escape never silently does nothing.
     */
    private static void checkQuery(Context ctx, Set<String> known) {
        String query = ctx.queryString();
        if (query == null || query.isEmpty()) {
            return;
        }
        List<FieldProblem> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String pair : query.split("&", -1)) {
            if (pair.isEmpty()) {
                continue; // "a=1&&b=2" or a trailing "&": nothing given
            }
            int eq = pair.indexOf('=');
            String rawName = eq < 0 ? pair : pair.substring(0, eq);
            String name = decode(rawName);
            String value = decode(eq < 0 ? "" : pair.substring(eq + 1));
            if (name == null || value == null) {
                problems.add(new FieldProblem(name == null ? "" : name, "is not valid percent-encoded UTF-8"));
            } else if (!known.contains(name)) {
                problems.add(new FieldProblem(name, "is not a parameter of this method"));
            } else if (!seen.add(name)) {
                problems.add(new FieldProblem(name, "must be given once"));
            }
        }
        if (!problems.isEmpty()) {
            throw Input.invalid(problems);
        }
    }

    /** The decoded text, or null when an escape is broken or the bytes are not UTF-8. */
    private static String decode(String raw) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0 || Character.digit(raw.charAt(i + 2), 16) < 0) {
                    return null;
                }
                bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else if (c == '+') {
                bytes.write(' ');
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** An integer parameter in ASCII digits (Long.parseLong also takes other scripts' digits), or the fallback when absent. */
    private static long number(String text, String name, long fallback) {
        if (text == null || text.isEmpty()) {
            return fallback;
        }
        if (!text.matches("-?[0-9]{1,19}")) {
            throw Input.invalid(name, "must be an integer");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw Input.invalid(name, "must be an integer");
        }
    }

    private static Map<String, Object> items(List<Cluster> clusters) {
        List<Object> items = new ArrayList<>();
        for (Cluster c : clusters) {
            items.add(ClusterJson.of(c));
        }
        return Map.of("items", items);
    }

    /** The bearer token of the request, or null. Never logged. */
    private static String bearer(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return header.substring(7).trim();
    }

    static void write(Context ctx, int status, Object body) {
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    private static void error(Context ctx, DomainException e) {
        if (e.code() == ErrorCode.INTERNAL) {
            internal(ctx, e);
            return;
        }
        write(ctx, ErrorMapper.status(e.code()), ErrorMapper.body(e));
    }

    private static void httpError(Context ctx, int status, String message) {
        if (status == 413) {
            write(ctx, 400, ErrorMapper.body(Input.invalid("", "the body must be at most " + MAX_BODY_BYTES + " bytes")));
        } else if (status == 404) {
            write(ctx, 404, ErrorMapper.body(ErrorCode.NOT_FOUND, "No such method: " + ctx.method() + " " + ctx.path() + ".", Map.of()));
        } else if (status >= 400 && status < 500) {
            write(ctx, 400, ErrorMapper.body(ErrorCode.INVALID_INPUT, "The request could not be read.", Map.of()));
        } else {
            internal(ctx, new IllegalStateException("HTTP " + status + ": " + message));
        }
    }

    private static void internal(Context ctx, Exception e) {
        String requestId = ctx.res().getHeader(REQUEST_ID);
        log.error("internal error serving {} {} (request {})", ctx.method(), ctx.path(), requestId, e);
        write(ctx, 500, ErrorMapper.body(ErrorCode.INTERNAL,
                "An unexpected error occurred; it has been logged with request id " + requestId + ".",
                Map.of("requestId", requestId == null ? "" : requestId)));
    }
}
