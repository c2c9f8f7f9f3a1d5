package com.bettercompute.adapters.http;

import io.javalin.config.JavalinConfig;
import io.javalin.router.Endpoint;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.slf4j.MDC;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operator's endpoints ({@code /healthz}, {@code /readyz}, {@code /metrics}), the timing of every
 * request, and the request's logging context (MDC {@code requestId}, {@code tenantId}, {@code clusterId}).
 * Unauthenticated: they say nothing about any tenant.
 */
final class OperatorRoutes {
    static final String MDC_REQUEST = "requestId";
    static final String MDC_TENANT = "tenantId";
    static final String MDC_CLUSTER = "clusterId";
    private static final String COMPLETION = "bc.completion";
    /** Probed and scraped every few seconds: not worth an access log line each (their metrics count them). */
    static final Set<String> PATHS = Set.of("/healthz", "/readyz", "/metrics");

    private OperatorRoutes() {}

    /** How long a stop waits for the requests under way (new connections are refused at once). */
    static final long STOP_MILLIS = 5_000;

    /**
     * The operator's routes and the timing of every request; and a stop that lets requests under way finish.
     * Install it last: its after-handler clears the logging context, once the access log line is written.
     */
    static void install(JavalinConfig config, Operations ops) {
        config.jetty.modifyServer(server -> server.setStopTimeout(STOP_MILLIS));
        config.jetty.modifyServletContextHandler(context -> context.insertHandler(new GracefulHandler()));
        config.routes.before(ctx -> {
            // a thread serves many requests: nothing of the last one may stay (the request id is set anew)
            MDC.remove(MDC_TENANT);
            MDC.remove(MDC_CLUSTER);
            ctx.attribute(COMPLETION, ops.arrived());
        });
        config.routes.after(ctx -> {
            Operations.Completion completion = ctx.attribute(COMPLETION);
            if (completion != null) {
                Endpoint matched = ctx.endpoints().matchedHttpEndpoint();
                completion.answered(matched == null ? "unmatched" : matched.path, ctx.method().name(), ctx.statusCode());
            }
            MDC.clear();
        });
        config.routes.get("/healthz", ctx -> ApiServer.write(ctx, 200, Map.of("status", "alive")));
        config.routes.get("/readyz", ctx -> {
            Map<String, String> missing = ops.missing();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", missing.isEmpty() ? "ready" : "unavailable");
            if (!missing.isEmpty()) {
                body.put("missing", missing);
            }
            ApiServer.write(ctx, missing.isEmpty() ? 200 : 503, body);
        });
        config.routes.get("/metrics", ctx -> ctx.status(200).contentType("text/plain; version=0.0.4; charset=utf-8").result(ops.scrape()));
    }

    /**
     * The tenant and cluster a request was about, as its body names them, for the log lines written after the
     * server accepted the call (the access line): only then are they known to be a tenant and a cluster, and
     * not whatever a client put there, which may be a token.
     */
    static void accepted(Object command) {
        if (command instanceof Record record) {
            for (IdAccessor id : ID_ACCESSORS.get(record.getClass())) {
                try {
                    put(id.mdcKey(), id.accessor().invoke(record));
                } catch (ReflectiveOperationException e) {
                    // a command without readable ids logs without them
                }
            }
        }
    }

    /** A record component that names the request's tenant or cluster, and the MDC key it goes to. */
    private record IdAccessor(String mdcKey, java.lang.reflect.Method accessor) {}

    /** Each command type's id components, found once per type (a request only reads them). */
    private static final ClassValue<List<IdAccessor>> ID_ACCESSORS = new ClassValue<>() {
        @Override
        protected List<IdAccessor> computeValue(Class<?> type) {
            if (!type.isRecord()) {
                return List.of();
            }
            return java.util.Arrays.stream(type.getRecordComponents())
                    .filter(c -> c.getName().equals("tenantId") || c.getName().equals("clusterId"))
                    .map(c -> new IdAccessor(c.getName().equals("tenantId") ? MDC_TENANT : MDC_CLUSTER, c.getAccessor()))
                    .toList();
        }
    };

    private static void put(String key, Object value) {
        if (value instanceof String text && !text.isEmpty()) {
            MDC.put(key, text);
        }
    }
}
