package com.bettercompute.adapters.gke.simulator;

import com.google.cloud.compute.v1.Address;
import com.google.cloud.compute.v1.Backend;
import com.google.cloud.compute.v1.BackendService;
import com.google.cloud.compute.v1.ForwardingRule;
import com.google.cloud.compute.v1.InstanceGroup;
import com.google.cloud.compute.v1.InstanceGroupsAddInstancesRequest;
import com.google.cloud.compute.v1.InstanceGroupsListInstances;
import com.google.cloud.compute.v1.InstanceGroupsRemoveInstancesRequest;
import com.google.cloud.compute.v1.InstanceReference;
import com.google.cloud.compute.v1.InstanceWithNamedPorts;
import com.google.cloud.compute.v1.Operation;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.ListValue;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Compute Engine REST API ({@code /compute/v1/...}) over {@link ComputeEngine}, for what the product uses and
 * what {@code gcloud compute} asks to show it: addresses, forwarding rules, backend services and health checks
 * (regional), unmanaged instance groups (zonal) and their instances — list, aggregated list, insert, get, update,
 * patch, delete — and operations. Every change is done when it is answered: its operation is {@code DONE} at once
 * (gcloud then makes no {@code wait} call, and the Java client's poll finds it done); {@code GET} and
 * {@code POST .../wait} of an operation answer it again. gcloud's multipart batch ({@code POST /batch/compute/v1})
 * runs each part through the same routes. Errors are Google's JSON errors with {@code errors[]} and {@code status}.
 */
final class ComputeRest {
    static final String PREFIX = "/compute/v1/";
    static final String BATCH = "/batch/compute/v1";
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
    private static final Pattern AGGREGATED = Pattern.compile("projects/([^/]+)/aggregated/([^/]+)");
    private static final Pattern SCOPED = Pattern.compile("projects/([^/]+)/(regions|zones)/([^/]+)/([^/]+)(?:/([^/]+))?(?:/([^/]+))?");
    private static final Pattern GLOBAL_OPERATION = Pattern.compile("projects/([^/]+)/global/operations/([^/]+)(?:/(wait))?");

    /** An answer: its HTTP status and JSON body. */
    record Answer(int status, String body) {
    }

    private final ComputeEngine engine;
    private final Faults faults;
    private final Map<String, Operation> operations = new ConcurrentHashMap<>();
    private final AtomicLong operationIds = new AtomicLong();

    ComputeRest(ComputeEngine engine, Faults faults) {
        this.engine = engine;
        this.faults = faults;
    }

    /**
     * Serves one request. {@code base} is the simulator's own {@code http://host:port} as the client reached it:
     * links are served as full URLs on it, as Compute Engine serves them on its own.
     */
    Answer handle(String method, String rawPath, String body, String base, String contentType) {
        try {
            if (rawPath.equals(BATCH)) {
                return ComputeBatch.answer(body, contentType, (m, p, b) -> handle(m, p, b, base, "application/json"));
            }
            return new Answer(200, route(method, rawPath.substring(PREFIX.length()), body, base + PREFIX));
        } catch (StatusRuntimeException e) {
            return error(e.getStatus());
        } catch (InvalidProtocolBufferException e) {
            return error(Status.INVALID_ARGUMENT.withDescription("Invalid JSON payload received. " + e.getMessage()));
        } catch (IllegalArgumentException e) {
            return error(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        }
    }

    private String route(String method, String path, String body, String urlBase) throws InvalidProtocolBufferException {
        Matcher m = AGGREGATED.matcher(path);
        if (m.matches() && method.equals("GET")) {
            return aggregated(m.group(1), m.group(2), urlBase);
        }
        m = GLOBAL_OPERATION.matcher(path);
        if (m.matches()) {
            return operation(m.group(2), method, m.group(3));
        }
        m = SCOPED.matcher(path);
        if (m.matches()) {
            if (m.group(4).equals("operations")) {
                return operation(m.group(5), method, m.group(6));
            }
            ComputeEngine.Kind kind = ComputeEngine.Kind.of(m.group(2), m.group(4));
            if (kind != null) {
                return resource(method, kind, m.group(1), m.group(3), m.group(5), m.group(6), body, urlBase);
            }
        }
        throw notFound(path);
    }

    private static StatusRuntimeException notFound(String path) {
        return Status.NOT_FOUND.withDescription("The requested URL /compute/v1/" + path + " was not found on this server.")
                .asRuntimeException();
    }

    private String resource(String method, ComputeEngine.Kind kind, String project, String scope, String name, String verb,
                            String body, String urlBase) throws InvalidProtocolBufferException {
        String call = verb != null ? verb : name == null ? (method.equals("GET") ? "list" : "insert")
                : switch (method) {
                    case "GET" -> "get";
                    case "DELETE" -> "delete";
                    case "PATCH" -> "patch";
                    default -> "update";
                };
        faults.beforeCall("compute." + kind.collection + "." + call);
        String target = name == null ? null : ComputeEngine.path(project, kind, scope, name);
        switch (call) {
            case "list" -> {
                return list(kind, project, scope, urlBase);
            }
            case "insert" -> {
                Message stored = engine.insert(kind, project, scope, parse(kind, body));
                return done("insert", self(stored), project, kind, scope, urlBase);
            }
            case "get" -> {
                return PRINTER.print(linked(engine.get(kind, target), urlBase));
            }
            case "delete" -> {
                engine.delete(kind, target);
                return done("delete", target, project, kind, scope, urlBase);
            }
            case "update", "patch" -> {
                if (kind != ComputeEngine.Kind.BACKEND_SERVICES && kind != ComputeEngine.Kind.HEALTH_CHECKS) {
                    break;
                }
                Message change = parse(kind, body);
                engine.change(kind, target, had -> {
                    Message.Builder next = call.equals("update") ? change.toBuilder() : had.toBuilder().mergeFrom(change);
                    if (kind == ComputeEngine.Kind.BACKEND_SERVICES) {
                        BackendService.Builder b = (BackendService.Builder) next;
                        List<Backend> backends = (call.equals("patch") ? ((BackendService) change).getBackendsList().isEmpty()
                                ? ((BackendService) had).getBackendsList() : ((BackendService) change).getBackendsList()
                                : ((BackendService) change).getBackendsList());
                        List<String> checks = (call.equals("patch") && ((BackendService) change).getHealthChecksList().isEmpty()
                                ? ((BackendService) had).getHealthChecksList() : ((BackendService) change).getHealthChecksList());
                        b.clearBackends().clearHealthChecks();
                        backends.forEach(x -> b.addBackends(x.toBuilder().setGroup(ComputeEngine.partial(x.getGroup()))));
                        checks.forEach(h -> b.addHealthChecks(ComputeEngine.partial(h)));
                    }
                    keep(had, next);
                    return next.build();
                });
                return done(call, target, project, kind, scope, urlBase);
            }
            case "addInstances", "removeInstances" -> {
                if (kind != ComputeEngine.Kind.INSTANCE_GROUPS || !method.equals("POST")) {
                    break;
                }
                List<InstanceReference> refs;
                if (call.equals("addInstances")) {
                    InstanceGroupsAddInstancesRequest.Builder r = InstanceGroupsAddInstancesRequest.newBuilder();
                    PARSER.merge(body, r);
                    refs = r.getInstancesList();
                } else {
                    InstanceGroupsRemoveInstancesRequest.Builder r = InstanceGroupsRemoveInstancesRequest.newBuilder();
                    PARSER.merge(body, r);
                    refs = r.getInstancesList();
                }
                engine.members(target, refs.stream().map(InstanceReference::getInstance).toList(), call.equals("addInstances"));
                return done(call, target, project, kind, scope, urlBase);
            }
            case "listInstances" -> {
                if (kind != ComputeEngine.Kind.INSTANCE_GROUPS) {
                    break;
                }
                InstanceGroupsListInstances.Builder out = InstanceGroupsListInstances.newBuilder()
                        .setKind("compute#instanceGroupsListInstances");
                engine.members(target).forEach(i -> out.addItems(InstanceWithNamedPorts.newBuilder().setInstance(urlBase + i)
                        .setStatus("RUNNING")));
                return PRINTER.print(out.build());
            }
            default -> {
                // below
            }
        }
        throw Status.UNIMPLEMENTED.withDescription("Method " + method + " " + call + " is not supported on " + kind.collection + ".")
                .asRuntimeException();
    }

    /** The name, id, kind and links a change never alters. */
    private static void keep(Message had, Message.Builder next) {
        for (String field : List.of("name", "id", "self_link", "region", "kind", "creation_timestamp")) {
            var f = had.getDescriptorForType().findFieldByName(field);
            if (f != null && had.hasField(f)) {
                next.setField(f, had.getField(f));
            }
        }
    }

    private static Message parse(ComputeEngine.Kind kind, String body) throws InvalidProtocolBufferException {
        Message.Builder b = kind.builder();
        PARSER.merge(body == null || body.isBlank() ? "{}" : body, b);
        return b.build();
    }

    private String list(ComputeEngine.Kind kind, String project, String scope, String urlBase) throws InvalidProtocolBufferException {
        ListValue.Builder items = ListValue.newBuilder();
        for (Message m : engine.list(kind, project, scope)) {
            items.addValues(value(linked(m, urlBase)));
        }
        Struct.Builder out = Struct.newBuilder().putFields("kind", text(kind.kindName() + "List"))
                .putFields("selfLink", text(urlBase + "projects/" + project + "/" + kind.scope + "/" + scope + "/" + kind.collection))
                .putFields("items", Value.newBuilder().setListValue(items).build());
        return PRINTER.print(out.build());
    }

    /** {@code {"items": {"regions/R": {"<collection>": [...]}}}}, only scopes that hold some. */
    private String aggregated(String project, String collection, String urlBase) throws InvalidProtocolBufferException {
        Map<String, ListValue.Builder> byScope = new TreeMap<>();
        boolean known = false;
        for (ComputeEngine.Kind kind : ComputeEngine.Kind.values()) {
            if (!kind.collection.equals(collection)) {
                continue;
            }
            known = true;
            for (Message m : engine.list(kind, project, null)) {
                String[] p = self(m).split("/");
                byScope.computeIfAbsent(p[2] + "/" + p[3], s -> ListValue.newBuilder()).addValues(value(linked(m, urlBase)));
            }
        }
        if (!known) {
            throw Status.NOT_FOUND.withDescription("The simulator serves no aggregated list of " + collection + ".").asRuntimeException();
        }
        Struct.Builder items = Struct.newBuilder();
        byScope.forEach((scope, list) -> items.putFields(scope, Value.newBuilder().setStructValue(Struct.newBuilder()
                .putFields(collection, Value.newBuilder().setListValue(list).build())).build()));
        String kindName = collection.equals("addresses") ? "address" : collection.substring(0, collection.length() - 1);
        return PRINTER.print(Struct.newBuilder().putFields("kind", text("compute#" + kindName + "AggregatedList"))
                .putFields("selfLink", text(urlBase + "projects/" + project + "/aggregated/" + collection))
                .putFields("items", Value.newBuilder().setStructValue(items).build()).build());
    }

    private static Value value(Message m) throws InvalidProtocolBufferException {
        Struct.Builder s = Struct.newBuilder();
        PARSER.merge(PRINTER.print(m), s);
        return Value.newBuilder().setStructValue(s).build();
    }

    private static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    /** A DONE operation for a change just made, kept for GET and wait. */
    private String done(String type, String target, String project, ComputeEngine.Kind kind, String scope, String urlBase)
            throws InvalidProtocolBufferException {
        long id = operationIds.incrementAndGet();
        String name = "operation-" + id;
        String scopePath = "projects/" + project + "/" + kind.scope + "/" + scope;
        Operation.Builder op = Operation.newBuilder().setKind("compute#operation").setId(id).setName(name).setOperationType(type)
                .setTargetLink(urlBase + target).setStatus(Operation.Status.DONE).setProgress(100)
                .setSelfLink(urlBase + scopePath + "/operations/" + name);
        if (kind.scope.equals("regions")) {
            op.setRegion(urlBase + scopePath);
        } else {
            op.setZone(urlBase + scopePath);
        }
        Operation built = op.build();
        operations.put(name, built);
        return PRINTER.print(built);
    }

    private String operation(String name, String method, String verb) throws InvalidProtocolBufferException {
        Operation op = name == null ? null : operations.get(name);
        boolean asked = "wait".equals(verb) ? method.equals("POST") : verb == null && method.equals("GET");
        if (op == null || !asked) {
            throw Status.NOT_FOUND.withDescription("The resource 'operations/" + name + "' was not found").asRuntimeException();
        }
        return PRINTER.print(op);
    }

    /** The resource as served: its links full URLs on {@code urlBase}; an address IN_USE, with its users, when a rule uses it. */
    private Message linked(Message m, String urlBase) {
        if (m instanceof Address a) {
            Address.Builder b = a.toBuilder().setSelfLink(urlBase + a.getSelfLink()).setRegion(urlBase + a.getRegion());
            for (Message r : engine.list(ComputeEngine.Kind.FORWARDING_RULES, a.getSelfLink().split("/")[1], null)) {
                if (((ForwardingRule) r).getIPAddress().equals(a.getAddress())) {
                    b.setStatus("IN_USE").addUsers(urlBase + self(r));
                }
            }
            return b.build();
        }
        if (m instanceof ForwardingRule r) {
            ForwardingRule.Builder b = r.toBuilder().setSelfLink(urlBase + r.getSelfLink()).setRegion(urlBase + r.getRegion());
            if (r.hasBackendService()) {
                b.setBackendService(urlBase + r.getBackendService());
            }
            if (r.hasTarget()) {
                b.setTarget(urlBase + r.getTarget());
            }
            return b.build();
        }
        if (m instanceof BackendService s) {
            BackendService.Builder b = s.toBuilder().setSelfLink(urlBase + s.getSelfLink()).setRegion(urlBase + s.getRegion())
                    .clearBackends().clearHealthChecks();
            s.getBackendsList().forEach(x -> b.addBackends(x.toBuilder().setGroup(urlBase + x.getGroup())));
            s.getHealthChecksList().forEach(h -> b.addHealthChecks(urlBase + h));
            return b.build();
        }
        if (m instanceof InstanceGroup g) {
            return g.toBuilder().setSelfLink(urlBase + g.getSelfLink()).setZone(urlBase + g.getZone()).build();
        }
        if (m instanceof com.google.cloud.compute.v1.HealthCheck h) {
            return h.toBuilder().setSelfLink(urlBase + h.getSelfLink()).setRegion(urlBase + h.getRegion()).build();
        }
        return m;
    }

    private static String self(Message m) {
        return (String) m.getField(m.getDescriptorForType().findFieldByName("self_link"));
    }

    /** Compute Engine's error body: {@code error.code}, {@code message}, {@code status} and {@code errors[]}. */
    static Answer error(Status status) {
        int http = RestFrontEnd.httpStatus(status.getCode());
        String message = status.getDescription() == null ? status.getCode().name() : status.getDescription();
        String reason = switch (status.getCode()) {
            case NOT_FOUND -> "notFound";
            case ALREADY_EXISTS -> "alreadyExists";
            case FAILED_PRECONDITION -> "resourceInUseByAnotherResource";
            case RESOURCE_EXHAUSTED -> "quotaExceeded";
            case INVALID_ARGUMENT -> "invalid";
            default -> "backendError";
        };
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("message", message);
        inner.put("domain", "global");
        inner.put("reason", reason);
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", http);
        error.put("message", message);
        error.put("errors", List.of(inner));
        error.put("status", status.getCode().name());
        return new Answer(http, Json.write(Map.of("error", error)));
    }
}
