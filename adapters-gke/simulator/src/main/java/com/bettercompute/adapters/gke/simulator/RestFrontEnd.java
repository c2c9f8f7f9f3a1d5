package com.bettercompute.adapters.gke.simulator;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GKE's REST API over the simulator's core: routes from the proto's HTTP rules, JSON through
 * protobuf's JsonFormat (unknown fields refused, enum names in replies), errors as
 * {@code {"error": {"code", "message", "status"}}}. Also answers the Service Usage question gcloud
 * asks before creating, serves the Compute Engine API the product uses ({@link ComputeRest}), and the operators'
 * fault controls under {@code /simulator/}.
 */
final class RestFrontEnd {
    private static final Logger LOG = LoggerFactory.getLogger(RestFrontEnd.class);
    private static final Pattern SERVICE = Pattern.compile("/v1/projects/([^/]+)/services/([^/]+)");
    /** Query parameters every Google API takes and that name no request field. */
    private static final Set<String> SYSTEM_PARAMETERS = Set.of("alt", "prettyPrint", "fields", "key", "quotaUser", "access_token",
            "callback", "upload_protocol", "uploadType", "oauth_token", "userIp", "trace");
    private static final JsonFormat.Parser PARSER = JsonFormat.parser();
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer();

    private final SimulatorCore core;
    private final Faults faults;
    private final GkeSimulator controls;
    /** The Compute Engine API beside GKE's, on the same port. */
    private final ComputeRest compute;
    private final RestRoutes routes = new RestRoutes();
    private final Map<String, Method> methods = new ConcurrentHashMap<>();
    private final HttpServer server;
    private final ExecutorService executor;

    RestFrontEnd(SimulatorCore core, Faults faults, GkeSimulator controls, ComputeRest compute, int port) throws IOException {
        this.compute = compute;
        this.core = core;
        this.faults = faults;
        this.controls = controls;
        this.server = LoopbackHttpServer.create(port);
        this.executor = Executors.newFixedThreadPool(4, r -> {
            Thread thread = new Thread(r, "gke-simulator-rest");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            byte[] body = exchange.getRequestBody().readAllBytes();
            try {
                if (path.startsWith("/simulator/")) {
                    send(exchange, 200, control(method, path, new String(body, StandardCharsets.UTF_8)));
                    return;
                }
                if (path.startsWith(ComputeRest.PREFIX) || path.equals(ComputeRest.BATCH)) {
                    String host = exchange.getRequestHeaders().getFirst("Host");
                    ComputeRest.Answer answer = compute.handle(method, path, new String(body, StandardCharsets.UTF_8),
                            "http://" + (host == null ? "127.0.0.1:" + port() : host), exchange.getRequestHeaders().getFirst("Content-Type"));
                    send(exchange, answer.status(), answer.body(), path.equals(ComputeRest.BATCH)
                            ? "multipart/mixed; boundary=" + ComputeBatch.BOUNDARY : "application/json; charset=UTF-8");
                    return;
                }
                Matcher service = SERVICE.matcher(path);
                if (method.equals("GET") && service.matches()) {
                    Map<String, Object> enabled = new LinkedHashMap<>();
                    enabled.put("name", "projects/" + service.group(1) + "/services/" + service.group(2));
                    enabled.put("state", "ENABLED");
                    send(exchange, 200, Json.write(enabled));
                    return;
                }
                RestRoutes.Route route = routes.find(method, path);
                if (route == null) {
                    throw (routes.pathKnown(path) ? Status.UNIMPLEMENTED.withDescription("Method " + method + " is not allowed on " + path + ".")
                            : Status.NOT_FOUND.withDescription("The requested URL " + path + " was not found on this server."))
                            .asRuntimeException();
                }
                Message request = request(route, path, exchange.getRequestURI().getRawQuery(), new String(body, StandardCharsets.UTF_8));
                faults.beforeCall(route.rpc());
                Message response = invoke(route.rpc(), request);
                send(exchange, 200, PRINTER.print(response));
            } catch (StatusRuntimeException e) {
                sendError(exchange, e.getStatus());
            } catch (InvalidProtocolBufferException e) {
                sendError(exchange, Status.INVALID_ARGUMENT.withDescription("Invalid JSON payload received. " + e.getMessage()));
            } catch (IllegalArgumentException e) {
                sendError(exchange, Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
            } catch (RuntimeException e) {
                LOG.error("gke simulator: unexpected failure on {} {}", method, path, e);
                sendError(exchange, Status.INTERNAL.withDescription("Internal error in the GKE simulator."));
            }
        }
    }

    private Message request(RestRoutes.Route route, String path, String rawQuery, String body) throws InvalidProtocolBufferException {
        Message.Builder builder = route.requestPrototype().newBuilderForType();
        Descriptor descriptor = builder.getDescriptorForType();
        if (!body.isBlank()) {
            if (route.body().equals("*")) {
                PARSER.merge(body, builder);
            } else if (!route.body().isEmpty()) {
                FieldDescriptor field = descriptor.findFieldByName(route.body());
                Message.Builder sub = builder.newBuilderForField(field);
                PARSER.merge(body, sub);
                builder.setField(field, sub.build());
            } else {
                throw new IllegalArgumentException("This method takes no request body.");
            }
        }
        route.match(path).forEach((name, value) -> setScalar(builder, descriptor.findFieldByName(name), decode(value), name));
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (key.startsWith("$") || SYSTEM_PARAMETERS.contains(key)) {
                    continue;
                }
                setScalar(builder, field(descriptor, key), value, key);
            }
        }
        return builder.build();
    }

    private static FieldDescriptor field(Descriptor descriptor, String name) {
        FieldDescriptor field = descriptor.findFieldByName(name);
        if (field != null) {
            return field;
        }
        for (FieldDescriptor candidate : descriptor.getFields()) {
            if (candidate.getJsonName().equals(name)) {
                return candidate;
            }
        }
        return null;
    }

    private static void setScalar(Message.Builder builder, FieldDescriptor field, String value, String name) {
        if (field == null || field.isRepeated() || field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            throw new IllegalArgumentException("Invalid JSON payload received. Unknown name \"" + name + "\": Cannot bind query parameter.");
        }
        Object converted = switch (field.getJavaType()) {
            case STRING -> value;
            case INT -> Integer.parseInt(value);
            case LONG -> Long.parseLong(value);
            case BOOLEAN -> Boolean.parseBoolean(value);
            case ENUM -> {
                EnumValueDescriptor e = field.getEnumType().findValueByName(value);
                if (e == null && value.matches("\\d+")) {
                    e = field.getEnumType().findValueByNumber(Integer.parseInt(value));
                }
                if (e == null) {
                    throw new IllegalArgumentException("Invalid value for enum field \"" + name + "\": \"" + value + "\".");
                }
                yield e;
            }
            default -> throw new IllegalArgumentException("Cannot bind query parameter \"" + name + "\".");
        };
        builder.setField(field, converted);
    }

    private static String decode(String value) {
        return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private Message invoke(String rpc, Message request) {
        Method method = methods.computeIfAbsent(rpc, name -> {
            String javaName = Character.toLowerCase(name.charAt(0)) + name.substring(1);
            try {
                return SimulatorCore.class.getMethod(javaName, request.getClass(), StreamObserver.class);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("no method " + javaName + " on the ClusterManager service", e);
            }
        });
        Collector collector = new Collector();
        try {
            method.invoke(core, request, collector);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        }
        if (collector.error != null) {
            throw collector.error instanceof StatusRuntimeException s ? s : Status.fromThrowable(collector.error).asRuntimeException();
        }
        if (collector.value == null) {
            throw Status.INTERNAL.withDescription("The simulator answered nothing.").asRuntimeException();
        }
        return collector.value;
    }

    /** The core answers synchronously: collect its one reply or its error. */
    private static final class Collector implements StreamObserver<Object> {
        Message value;
        Throwable error;

        @Override
        public void onNext(Object value) {
            this.value = (Message) value;
        }

        @Override
        public void onError(Throwable t) {
            this.error = t;
        }

        @Override
        public void onCompleted() {
        }
    }

    // ---------------------------------------------------------------- operators' fault controls

    private String control(String method, String path, String body) throws InvalidProtocolBufferException {
        Struct.Builder in = Struct.newBuilder();
        if (!body.isBlank()) {
            PARSER.merge(body, in);
        }
        Map<String, Value> args = in.getFieldsMap();
        if (method.equals("GET") && path.equals("/simulator/faults")) {
            return Json.write(controls.describeFaults());
        }
        if (!method.equals("POST")) {
            throw Status.NOT_FOUND.withDescription("Use GET /simulator/faults or POST /simulator/faults/<fault>.").asRuntimeException();
        }
        switch (path) {
            case "/simulator/faults/fail-calls" -> controls.failNextCalls(string(args, "method", "*"), number(args, "count", 1),
                    string(args, "code", "UNAVAILABLE"), string(args, "message", "Injected by the GKE simulator."));
            case "/simulator/faults/fail-operations" -> controls.failNextOperations(number(args, "count", 1),
                    string(args, "message", "Operation failed (injected by the GKE simulator)."));
            case "/simulator/faults/refuse-version" -> controls.refuseVersion(required(args, "version"));
            case "/simulator/faults/exhaust-quota" -> controls.exhaustQuota(string(args, "project", "*"));
            case "/simulator/faults/restore-quota" -> controls.restoreQuota(string(args, "project", "*"));
            case "/simulator/faults/refuse-identity-service" -> controls.refuseIdentityService(string(args, "project", "*"));
            case "/simulator/faults/latency" -> controls.addLatency(Duration.ofMillis(number(args, "millis", 0)));
            case "/simulator/faults/delete-cluster" -> {
                Ref ref = Ref.of(required(args, "name"), null, null, null, null, null).requireCluster();
                if (!controls.deleteClusterBehindTheBack(ref.project(), ref.location(), ref.cluster())) {
                    throw Status.NOT_FOUND.withDescription("Not found: " + ref.clusterPath() + ".").asRuntimeException();
                }
            }
            case "/simulator/faults/release-channel-upgrade" -> {
                Ref ref = Ref.of(required(args, "name"), null, null, null, null, null).requireCluster();
                String version = controls.releaseChannelUpgrade(ref.project(), ref.location(), ref.cluster(), string(args, "version", null));
                return Json.write(Map.of("version", version));
            }
            case "/simulator/faults/clear" -> controls.clearFaults();
            case "/simulator/operation-duration" -> controls.operationDuration(Duration.ofMillis(Math.round(
                    args.containsKey("seconds") ? args.get("seconds").getNumberValue() * 1000 : 0)));
            default -> throw Status.NOT_FOUND.withDescription("No simulator control at " + path + ".").asRuntimeException();
        }
        return Json.write(controls.describeFaults());
    }

    private static String required(Map<String, Value> args, String name) {
        String value = string(args, name, null);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("\"" + name + "\" is required.");
        }
        return value;
    }

    private static String string(Map<String, Value> args, String name, String fallback) {
        Value value = args.get(name);
        return value == null || value.hasNullValue() ? fallback : value.getStringValue();
    }

    private static int number(Map<String, Value> args, String name, int fallback) {
        Value value = args.get(name);
        return value == null || value.hasNullValue() ? fallback : (int) value.getNumberValue();
    }

    // ---------------------------------------------------------------- replies

    static void sendError(HttpExchange exchange, Status status) throws IOException {
        String message = status.getDescription() == null ? status.getCode().name() : status.getDescription();
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", httpStatus(status.getCode()));
        error.put("message", message);
        error.put("status", status.getCode().name());
        String body = Json.write(Map.of("error", error));
        send(exchange, httpStatus(status.getCode()), body);
    }

    /** The HTTP status Google's APIs answer for each gRPC code. */
    static int httpStatus(Status.Code code) {
        return switch (code) {
            case OK -> 200;
            case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> 400;
            case UNAUTHENTICATED -> 401;
            case PERMISSION_DENIED -> 403;
            case NOT_FOUND -> 404;
            case ALREADY_EXISTS, ABORTED -> 409;
            case RESOURCE_EXHAUSTED -> 429;
            case CANCELLED -> 499;
            case UNIMPLEMENTED -> 501;
            case UNAVAILABLE -> 503;
            case DEADLINE_EXCEEDED -> 504;
            default -> 500;
        };
    }

    static void send(HttpExchange exchange, int status, String body) throws IOException {
        send(exchange, status, body, "application/json; charset=UTF-8");
    }

    static void send(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
