package com.bettercompute.adapters.gke.simulator;

import com.google.cloud.common.OperationMetadata;
import com.google.cloud.filestore.v1.FileShareConfig;
import com.google.cloud.filestore.v1.Instance;
import com.google.cloud.filestore.v1.ListInstancesResponse;
import com.google.cloud.filestore.v1.NetworkConfig;
import com.google.longrunning.Operation;
import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.Code;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Filestore's v1 REST API (what the product and {@code gcloud filestore} use) on a port of its own, beside the GKE
 * simulator: the container API and Filestore share path shapes ({@code /v1/projects/P/locations/L/operations/OP}), so
 * each answers on its own port rather than guessing whose operation a path names. Point {@code gcloud} at it with
 * {@code CLOUDSDK_API_ENDPOINT_OVERRIDES_FILE=http://127.0.0.1:<port>/}.
 *
 * <p>Each instance's file share is a real directory, {@code <state>/filestore/<project>/<zone>/<instance>/}: what is
 * written there is what the share holds, and the Cloud Monitoring metric {@code file.googleapis.com/nfs/server/used_bytes}
 * (served here at {@code /v3/projects/P/timeSeries}) reports its size. Creates and deletes take the operation duration
 * on the clock. Instances and operations are saved under the state directory and served again after a restart.
 */
public final class FilestoreSimulator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FilestoreSimulator.class);
    private static final Pattern INSTANCES = Pattern.compile("/v1/projects/([^/]+)/locations/([^/]+)/instances");
    private static final Pattern INSTANCE = Pattern.compile("/v1/projects/([^/]+)/locations/([^/]+)/instances/([^/]+)");
    private static final Pattern OPERATION = Pattern.compile("/v1/(projects/([^/]+)/locations/([^/]+)/operations/[^/]+)");
    private static final Pattern TIME_SERIES = Pattern.compile("/v3/projects/([^/]+)/timeSeries");
    private static final Pattern INSTANCE_NAME_FILTER = Pattern.compile("resource\\.labels\\.instance_name\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern INSTANCE_ID = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");
    /** The smallest share of the tiers the simulator serves, as Filestore's BASIC tiers have. */
    static final long MIN_CAPACITY_GB = 1024;
    public static final String USED_BYTES_METRIC = "file.googleapis.com/nfs/server/used_bytes";
    private static final JsonFormat.TypeRegistry TYPES = JsonFormat.TypeRegistry.newBuilder()
            .add(Instance.getDescriptor()).add(OperationMetadata.getDescriptor()).add(Empty.getDescriptor()).build();
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().usingTypeRegistry(TYPES);
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().usingTypeRegistry(TYPES);

    /** An operation: done at {@code doneAt}; its effect applied once, then it answers as finished. */
    private record Op(String name, String instance, Instant instanceCreated, boolean delete, Instant doneAt, String error) {
        /** An operation acts on the instance it started on, never on one made later under the same name. */
        boolean on(Instance i) {
            return timestamp(instanceCreated).equals(i.getCreateTime());
        }
    }

    private final Clock clock;
    private final Path root;
    private final Path stateFile;
    private volatile Duration operationDuration;
    private final Map<String, Instance> instances = new LinkedHashMap<>();
    private final Map<String, Op> operations = new LinkedHashMap<>();
    private final Deque<String> failingOperations = new ArrayDeque<>();
    private final HttpServer server;
    private final ExecutorService executor;
    private int sequence;

    private FilestoreSimulator(Clock clock, Duration operationDuration, int port, Path state) throws IOException {
        this.clock = clock;
        this.operationDuration = operationDuration;
        this.root = state == null ? Files.createTempDirectory("filestore-simulator") : state.resolve("filestore");
        Files.createDirectories(root);
        this.stateFile = state == null ? null : root.resolve("state.json");
        load();
        this.server = LoopbackHttpServer.create(port);
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "filestore-simulator");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts on {@code port} (0: any free one), keeping state under {@code state} (null: a temporary directory, not kept). */
    public static FilestoreSimulator start(Clock clock, Duration operationDuration, int port, Path state) {
        try {
            return new FilestoreSimulator(clock, operationDuration, port, state);
        } catch (IOException e) {
            throw new UncheckedIOException("the Filestore simulator could not start: " + e.getMessage(), e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>}: the Java client's endpoint; gcloud's override adds a {@code /}. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** The line that tells where it answers and where the shares are: what {@code --filestore-endpoint} takes is its URL. */
    public String banner() {
        return "filestore simulator: " + url() + " (shares under " + root + ")";
    }

    /** Where the shares' directories are: {@code <project>/<zone>/<instance>/} under it. */
    public Path shareRoot() {
        return root;
    }

    /** The directory of an instance's file share: write a file here and the share holds its bytes. */
    public Path shareDirectory(String project, String location, String instance) {
        return root.resolve(project).resolve(location).resolve(instance);
    }

    /** The next {@code count} operations started end with this error (a create leaves its instance in ERROR). */
    public synchronized void failNextOperations(int count, String message) {
        for (int i = 0; i < count; i++) {
            failingOperations.add(message);
        }
    }

    public void operationDuration(Duration d) {
        operationDuration = d;
    }

    /** The instances' full names. */
    public synchronized List<String> instanceNames() {
        settle();
        return List.copyOf(instances.keySet());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    // ---------------------------------------------------------------- the API

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            try {
                RestFrontEnd.send(exchange, 200, serve(method, path, query, body));
            } catch (StatusRuntimeException e) {
                RestFrontEnd.sendError(exchange, e.getStatus());
            } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
                RestFrontEnd.sendError(exchange, Status.INVALID_ARGUMENT.withDescription("Invalid request: " + e.getMessage()));
            } catch (RuntimeException e) {
                LOG.error("filestore simulator: unexpected failure on {} {}", method, path, e);
                RestFrontEnd.sendError(exchange, Status.INTERNAL.withDescription("Internal error in the Filestore simulator."));
            }
        }
    }

    private synchronized String serve(String method, String path, Map<String, String> query, String body) throws IOException {
        settle();
        Matcher m;
        if ((m = INSTANCES.matcher(path)).matches()) {
            if (method.equals("GET")) {
                return PRINTER.print(list(m.group(1), m.group(2)));
            }
            if (method.equals("POST")) {
                return PRINTER.print(create(m.group(1), m.group(2), query.get("instanceId"), body));
            }
        } else if ((m = INSTANCE.matcher(path)).matches()) {
            String name = "projects/" + m.group(1) + "/locations/" + m.group(2) + "/instances/" + m.group(3);
            if (method.equals("GET")) {
                return PRINTER.print(existing(name));
            }
            if (method.equals("DELETE")) {
                return PRINTER.print(delete(name));
            }
        } else if ((m = OPERATION.matcher(path)).matches() && method.equals("GET")) {
            Op op = operations.get(m.group(1));
            if (op == null) {
                throw Status.NOT_FOUND.withDescription("Resource '" + m.group(1) + "' was not found").asRuntimeException();
            }
            return PRINTER.print(operation(op));
        } else if ((m = TIME_SERIES.matcher(path)).matches() && method.equals("GET")) {
            return usedBytes(m.group(1), query.getOrDefault("filter", ""));
        }
        throw Status.NOT_FOUND.withDescription("The requested URL " + path + " was not found on this server.").asRuntimeException();
    }

    private ListInstancesResponse list(String project, String location) {
        String prefix = "projects/" + project + "/locations/";
        return ListInstancesResponse.newBuilder().addAllInstances(instances.values().stream()
                .filter(i -> i.getName().startsWith(prefix) && (location.equals("-") || i.getName().startsWith(prefix + location + "/")))
                .toList()).build();
    }

    private Instance existing(String name) {
        Instance i = instances.get(name);
        if (i == null) {
            throw Status.NOT_FOUND.withDescription("Resource '" + name + "' was not found").asRuntimeException();
        }
        return i;
    }

    private Operation create(String project, String location, String id, String body) throws IOException {
        if (id == null || !INSTANCE_ID.matcher(id).matches()) {
            throw Status.INVALID_ARGUMENT.withDescription("instanceId must match " + INSTANCE_ID.pattern() + ", not " + id).asRuntimeException();
        }
        Instance.Builder b = Instance.newBuilder();
        PARSER.ignoringUnknownFields().merge(body.isBlank() ? "{}" : body, b);
        String name = "projects/" + project + "/locations/" + location + "/instances/" + id;
        if (instances.containsKey(name)) {
            throw Status.ALREADY_EXISTS.withDescription("Resource '" + name + "' already exists").asRuntimeException();
        }
        if (b.getFileSharesCount() != 1) {
            throw Status.INVALID_ARGUMENT.withDescription("An instance has exactly one file share.").asRuntimeException();
        }
        FileShareConfig share = b.getFileShares(0);
        if (share.getCapacityGb() < MIN_CAPACITY_GB) {
            throw Status.INVALID_ARGUMENT.withDescription("The capacity of a " + b.getTier() + " file share is at least " + MIN_CAPACITY_GB
                    + " GB, not " + share.getCapacityGb() + ".").asRuntimeException();
        }
        String address = "10.99." + (Math.abs(name.hashCode()) % 250) + "." + (2 + Math.abs(name.hashCode() / 250) % 250);
        List<NetworkConfig> networks = b.getNetworksList().stream().map(n -> n.toBuilder().clearIpAddresses().addIpAddresses(address).build()).toList();
        Instance instance = b.setName(name).setState(Instance.State.CREATING).setCreateTime(timestamp(clock.instant()))
                .clearNetworks().addAllNetworks(networks.isEmpty() ? List.of(NetworkConfig.newBuilder().setNetwork("default")
                        .addIpAddresses(address).build()) : networks).build();
        instances.put(name, instance);
        Files.createDirectories(shareDirectory(project, location, id));
        Op op = start(name, false);
        save();
        return operation(op);
    }

    private Operation delete(String name) throws IOException {
        Instance i = existing(name);
        if (i.getState() != Instance.State.DELETING) {
            instances.put(name, i.toBuilder().setState(Instance.State.DELETING).build());
        }
        Op op = start(name, true);
        save();
        return operation(op);
    }

    private Op start(String instance, boolean delete) {
        String[] parts = instance.split("/");
        String name = "projects/" + parts[1] + "/locations/" + parts[3] + "/operations/operation-" + clock.millis() + "-" + (++sequence);
        Instant created = Instant.ofEpochSecond(instances.get(instance).getCreateTime().getSeconds(), instances.get(instance).getCreateTime().getNanos());
        Op op = new Op(name, instance, created, delete, clock.instant().plus(operationDuration), failingOperations.poll());
        operations.put(name, op);
        return op;
    }

    private Operation operation(Op op) {
        boolean done = !clock.instant().isBefore(op.doneAt());
        OperationMetadata.Builder meta = OperationMetadata.newBuilder().setTarget(op.instance()).setVerb(op.delete() ? "delete" : "create")
                .setApiVersion("v1").setCreateTime(timestamp(op.doneAt().minus(operationDuration)));
        Operation.Builder b = Operation.newBuilder().setName(op.name()).setDone(done);
        if (done) {
            meta.setEndTime(timestamp(op.doneAt()));
            if (op.error() != null) {
                b.setError(com.google.rpc.Status.newBuilder().setCode(Code.RESOURCE_EXHAUSTED_VALUE).setMessage(op.error()));
            } else if (op.delete()) {
                b.setResponse(Any.pack(Empty.getDefaultInstance()));
            } else {
                Instance i = instances.get(op.instance());
                b.setResponse(Any.pack(i == null ? Instance.newBuilder().setName(op.instance()).build() : i));
            }
        }
        return b.setMetadata(Any.pack(meta.build())).build();
    }

    /** Applies what the operations that have ended did: a create readies (or breaks) its instance, a delete removes it. */
    private void settle() {
        Instant now = clock.instant();
        boolean changed = false;
        for (Op op : operations.values()) {
            Instance i = instances.get(op.instance());
            if (i == null || now.isBefore(op.doneAt()) || !op.on(i)) {
                continue;
            }
            if (op.delete() && i.getState() == Instance.State.DELETING) {
                if (op.error() == null) {
                    instances.remove(op.instance());
                    String[] parts = op.instance().split("/");
                    removeTree(shareDirectory(parts[1], parts[3], parts[5]));
                } else {
                    instances.put(op.instance(), i.toBuilder().setState(Instance.State.READY).build());
                }
                changed = true;
            } else if (!op.delete() && i.getState() == Instance.State.CREATING) {
                instances.put(op.instance(), op.error() == null ? i.toBuilder().setState(Instance.State.READY).build()
                        : i.toBuilder().setState(Instance.State.ERROR).setStatusMessage(op.error()).build());
                changed = true;
            }
        }
        if (changed) {
            save();
        }
    }

    /** The Cloud Monitoring answer for an instance's used bytes: one point, now, the size of its directory. */
    private String usedBytes(String project, String filter) {
        Matcher m = INSTANCE_NAME_FILTER.matcher(filter);
        if (!filter.contains(USED_BYTES_METRIC) || !m.find()) {
            return "{}";
        }
        String instanceName = m.group(1);
        Instance i = instances.values().stream().filter(x -> x.getName().startsWith("projects/" + project + "/")
                && x.getName().endsWith("/instances/" + instanceName) && x.getState() == Instance.State.READY).findFirst().orElse(null);
        if (i == null) {
            return "{}";
        }
        String[] parts = i.getName().split("/");
        long bytes = size(shareDirectory(parts[1], parts[3], parts[5]));
        String now = com.google.protobuf.util.Timestamps.toString(timestamp(clock.instant()));
        return Json.write(Map.of("timeSeries", List.of(Map.of(
                "metric", Map.of("type", USED_BYTES_METRIC),
                "resource", Map.of("type", "filestore_instance", "labels", Map.of("instance_name", instanceName, "location", parts[3])),
                "points", List.of(Map.of("interval", Map.of("startTime", now, "endTime", now), "value", Map.of("int64Value", Long.toString(bytes))))))));
    }

    private static long size(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void removeTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- saved state

    /** Instances and operations, as one JSON document replaced atomically after every change. */
    private void save() {
        if (stateFile == null) {
            return;
        }
        try {
            List<Object> saved = new ArrayList<>();
            for (Instance i : instances.values()) {
                saved.add(Json.tree(PRINTER.print(i)));
            }
            List<Object> ops = new ArrayList<>();
            for (Op op : operations.values()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("name", op.name());
                o.put("instance", op.instance());
                o.put("instanceCreated", op.instanceCreated().toString());
                o.put("delete", op.delete());
                o.put("doneAt", op.doneAt().toString());
                if (op.error() != null) {
                    o.put("error", op.error());
                }
                ops.add(o);
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("sequence", sequence);
            out.put("instances", saved);
            out.put("operations", ops);
            Path tmp = stateFile.resolveSibling("state.json.tmp");
            Files.writeString(tmp, Json.write(out));
            Files.move(tmp, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("the Filestore simulator could not save its state: " + e.getMessage(), e);
        }
    }

    private void load() throws IOException {
        if (stateFile == null || !Files.exists(stateFile)) {
            return;
        }
        com.google.protobuf.Struct.Builder doc = com.google.protobuf.Struct.newBuilder();
        JsonFormat.parser().merge(Files.readString(stateFile), doc);
        var fields = doc.getFieldsMap();
        sequence = (int) fields.get("sequence").getNumberValue();
        for (var v : fields.get("instances").getListValue().getValuesList()) {
            Instance.Builder b = Instance.newBuilder();
            PARSER.merge(JsonFormat.printer().print(v), b);
            instances.put(b.getName(), b.build());
        }
        for (var v : fields.get("operations").getListValue().getValuesList()) {
            var o = v.getStructValue().getFieldsMap();
            Op op = new Op(o.get("name").getStringValue(), o.get("instance").getStringValue(),
                    Instant.parse(o.get("instanceCreated").getStringValue()), o.get("delete").getBoolValue(),
                    Instant.parse(o.get("doneAt").getStringValue()), o.containsKey("error") ? o.get("error").getStringValue() : null);
            operations.put(op.name(), op);
        }
    }

    // ---------------------------------------------------------------- plumbing

    private static Timestamp timestamp(Instant i) {
        return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(key, value);
        }
        return out;
    }
}
