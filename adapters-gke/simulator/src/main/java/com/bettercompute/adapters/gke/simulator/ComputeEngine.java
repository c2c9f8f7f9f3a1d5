package com.bettercompute.adapters.gke.simulator;

import com.google.cloud.compute.v1.Address;
import com.google.cloud.compute.v1.Backend;
import com.google.cloud.compute.v1.BackendService;
import com.google.cloud.compute.v1.ForwardingRule;
import com.google.cloud.compute.v1.HealthCheck;
import com.google.cloud.compute.v1.InstanceGroup;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.ListValue;
import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * The Compute Engine resources the product uses, as the simulator keeps them: regional static addresses (taken
 * from a loopback range, so this machine can really connect to them), regional forwarding rules, regional backend
 * services and health checks, and zonal unmanaged instance groups with their instances — an external passthrough
 * network load balancer. Every resource is the Compute API's own message; links inside them are kept as partial
 * paths ({@code projects/P/regions/R/...}) and served as full URLs on the simulator's own host. Changes are on disk
 * (one JSON file, replaced atomically) before they are answered, and each forwarding rule's listeners follow the
 * rules ({@link ForwardingListeners}).
 */
final class ComputeEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ComputeEngine.class);
    static final String FILE = "compute-state.json";
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

    /** The kinds of resources: their collection name in the API, and whether they live in a region or a zone. */
    enum Kind {
        ADDRESSES("addresses", "regions"), FORWARDING_RULES("forwardingRules", "regions"),
        BACKEND_SERVICES("backendServices", "regions"), HEALTH_CHECKS("healthChecks", "regions"),
        INSTANCE_GROUPS("instanceGroups", "zones");

        final String collection;
        final String scope;

        Kind(String collection, String scope) {
            this.collection = collection;
            this.scope = scope;
        }

        static Kind of(String scope, String collection) {
            for (Kind k : values()) {
                if (k.collection.equals(collection) && k.scope.equals(scope)) {
                    return k;
                }
            }
            return null;
        }

        Message.Builder builder() {
            return switch (this) {
                case ADDRESSES -> Address.newBuilder();
                case FORWARDING_RULES -> ForwardingRule.newBuilder();
                case BACKEND_SERVICES -> BackendService.newBuilder();
                case HEALTH_CHECKS -> HealthCheck.newBuilder();
                case INSTANCE_GROUPS -> InstanceGroup.newBuilder();
            };
        }

        /** The resource's {@code kind}: {@code compute#address}, {@code compute#forwardingRule}, … */
        String kindName() {
            return "compute#" + (this == ADDRESSES ? "address" : collection.substring(0, collection.length() - 1));
        }
    }

    /** By kind, then by partial path ({@code projects/P/regions/R/addresses/N}). */
    private final Map<Kind, Map<String, Message>> resources = new LinkedHashMap<>();
    /** An instance group's instances (partial paths), by the group's partial path. */
    private final Map<String, Set<String>> members = new TreeMap<>();
    private final Path file;
    private final ForwardingListeners listeners;
    private long nextId = 1000;
    private int[] pool = parsePool("127.0.10.0/24");

    ComputeEngine(Path stateDirectory, ForwardingListeners listeners) throws IOException {
        for (Kind k : Kind.values()) {
            resources.put(k, new TreeMap<>());
        }
        this.listeners = listeners;
        listeners.targets(targets());
        this.file = stateDirectory == null ? null : stateDirectory.resolve(FILE);
        if (file != null && Files.exists(file)) {
            load(Files.readString(file, StandardCharsets.UTF_8));
            LOG.info("gke simulator: {} addresses and {} forwarding rules restored from {}",
                    resources.get(Kind.ADDRESSES).size(), resources.get(Kind.FORWARDING_RULES).size(), file);
        }
        for (Message rule : resources.get(Kind.FORWARDING_RULES).values()) {
            listeners.open((ForwardingRule) rule);
        }
    }

    /** Addresses come from this IPv4 range ({@code 127.0.10.0/24} by default); those taken keep theirs. */
    synchronized void addressPool(String cidr) {
        pool = parsePool(cidr);
    }

    private static int[] parsePool(String cidr) {
        String[] parts = cidr.split("/");
        int base = 0;
        for (String o : parts[0].split("\\.")) {
            base = base << 8 | Integer.parseInt(o);
        }
        int size = 1 << (32 - Integer.parseInt(parts[1]));
        return new int[]{base & -size, size};
    }

    static String path(String project, Kind kind, String scope, String name) {
        return "projects/" + project + "/" + kind.scope + "/" + scope + "/" + kind.collection + "/" + name;
    }

    synchronized Message get(Kind kind, String path) {
        Message m = resources.get(kind).get(path);
        if (m == null) {
            throw Status.NOT_FOUND.withDescription("The resource '" + path + "' was not found").asRuntimeException();
        }
        return m;
    }

    /** The resources of a kind in a project, in one scope (null: all of them). */
    synchronized List<Message> list(Kind kind, String project, String scope) {
        String prefix = "projects/" + project + "/" + kind.scope + "/" + (scope == null ? "" : scope + "/");
        return resources.get(kind).entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).map(Map.Entry::getValue).toList();
    }

    /** Inserts a resource: its name, scope, self link and id are set here; an address gets its IP from the range. */
    synchronized Message insert(Kind kind, String project, String scope, Message given) {
        String name = (String) given.getField(given.getDescriptorForType().findFieldByName("name"));
        if (name == null || !name.matches("[a-z]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw Status.INVALID_ARGUMENT.withDescription("Invalid value for field 'resource.name': '" + name
                    + "'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'").asRuntimeException();
        }
        String path = path(project, kind, scope, name);
        if (resources.get(kind).containsKey(path)) {
            throw Status.ALREADY_EXISTS.withDescription("The resource '" + path + "' already exists").asRuntimeException();
        }
        String scopePath = "projects/" + project + "/" + kind.scope + "/" + scope;
        Message stored = switch (kind) {
            case ADDRESSES -> {
                Address a = (Address) given;
                yield a.toBuilder().setId(nextId++).setSelfLink(path).setRegion(scopePath)
                        .setAddress(a.hasAddress() && !a.getAddress().isEmpty() ? a.getAddress() : freeAddress())
                        .setAddressType(a.hasAddressType() ? a.getAddressType() : "EXTERNAL")
                        .setNetworkTier(a.hasNetworkTier() ? a.getNetworkTier() : "PREMIUM").setStatus("RESERVED")
                        .setKind(kind.kindName()).build();
            }
            case FORWARDING_RULES -> {
                ForwardingRule r = (ForwardingRule) given;
                ForwardingRule.Builder b = r.toBuilder().setId(nextId++).setSelfLink(path).setRegion(scopePath)
                        .setIPProtocol(r.hasIPProtocol() ? r.getIPProtocol() : "TCP")
                        .setLoadBalancingScheme(r.hasLoadBalancingScheme() ? r.getLoadBalancingScheme() : "EXTERNAL")
                        .setKind(kind.kindName());
                b.setIPAddress(r.hasIPAddress() ? ipOf(project, scope, r.getIPAddress()) : freeAddress());
                if (r.hasBackendService()) {
                    String service = partial(r.getBackendService());
                    get(Kind.BACKEND_SERVICES, service);
                    b.setBackendService(service);
                }
                if (r.hasTarget()) {
                    b.setTarget(partial(r.getTarget()));
                }
                yield b.build();
            }
            case BACKEND_SERVICES -> {
                BackendService s = (BackendService) given;
                BackendService.Builder b = s.toBuilder().setId(nextId++).setSelfLink(path).setRegion(scopePath)
                        .setKind(kind.kindName()).clearBackends().clearHealthChecks();
                for (Backend backend : s.getBackendsList()) {
                    b.addBackends(backend.toBuilder().setGroup(partial(backend.getGroup())));
                }
                s.getHealthChecksList().forEach(h -> b.addHealthChecks(partial(h)));
                yield b.build();
            }
            case HEALTH_CHECKS -> {
                HealthCheck h = (HealthCheck) given;
                yield h.toBuilder().setId(nextId++).setSelfLink(path).setRegion(scopePath).setKind(kind.kindName()).build();
            }
            case INSTANCE_GROUPS -> {
                InstanceGroup g = (InstanceGroup) given;
                members.put(path, new TreeSet<>());
                yield g.toBuilder().setId(nextId++).setSelfLink(path).setZone("projects/" + project + "/zones/" + scope)
                        .setSize(0).setKind(kind.kindName()).build();
            }
        };
        resources.get(kind).put(path, stored);
        save();
        if (stored instanceof ForwardingRule rule) {
            listeners.open(rule);
        }
        return stored;
    }

    /** Replaces a resource with what {@code change} makes of it (its name, id and links kept). */
    synchronized Message change(Kind kind, String path, UnaryOperator<Message> change) {
        Message changed = change.apply(get(kind, path));
        resources.get(kind).put(path, changed);
        save();
        return changed;
    }

    /** Adds instances to ({@code add}) or removes them from an instance group. */
    synchronized void members(String group, List<String> instances, boolean add) {
        InstanceGroup g = (InstanceGroup) get(Kind.INSTANCE_GROUPS, group);
        Set<String> set = members.computeIfAbsent(group, k -> new TreeSet<>());
        for (String i : instances) {
            if (add) {
                set.add(partial(i));
            } else {
                set.remove(partial(i));
            }
        }
        resources.get(Kind.INSTANCE_GROUPS).put(group, g.toBuilder().setSize(set.size()).build());
        save();
    }

    synchronized List<String> members(String group) {
        get(Kind.INSTANCE_GROUPS, group);
        return List.copyOf(members.getOrDefault(group, Set.of()));
    }

    synchronized void delete(Kind kind, String path) {
        Message gone = get(kind, path);
        String user = switch (kind) {
            case ADDRESSES -> userOf(Kind.FORWARDING_RULES, m -> ((ForwardingRule) m).getIPAddress().equals(((Address) gone).getAddress()));
            case BACKEND_SERVICES -> userOf(Kind.FORWARDING_RULES, m -> path.equals(((ForwardingRule) m).getBackendService()));
            case HEALTH_CHECKS -> userOf(Kind.BACKEND_SERVICES, m -> ((BackendService) m).getHealthChecksList().contains(path));
            case INSTANCE_GROUPS -> userOf(Kind.BACKEND_SERVICES, m -> ((BackendService) m).getBackendsList().stream()
                    .anyMatch(b -> b.getGroup().equals(path)));
            case FORWARDING_RULES -> null;
        };
        if (user != null) {
            throw Status.FAILED_PRECONDITION.withDescription("The resource '" + path + "' is already being used by '" + user + "'")
                    .asRuntimeException();
        }
        resources.get(kind).remove(path);
        members.remove(path);
        save();
        if (gone instanceof ForwardingRule rule) {
            listeners.close(rule);
        }
    }

    private String userOf(Kind kind, java.util.function.Predicate<Message> uses) {
        return resources.get(kind).entrySet().stream().filter(e -> uses.test(e.getValue())).map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /** What the listeners look up at each connection: a rule, its backend service, a health check, a group's members. */
    ForwardingListeners.Targets targets() {
        ComputeEngine engine = this;
        return new ForwardingListeners.Targets() {
            @Override
            public ForwardingRule rule(String path) {
                synchronized (engine) {
                    return (ForwardingRule) resources.get(Kind.FORWARDING_RULES).get(path);
                }
            }

            @Override
            public BackendService backendService(String path) {
                synchronized (engine) {
                    return (BackendService) resources.get(Kind.BACKEND_SERVICES).get(path);
                }
            }

            @Override
            public HealthCheck check(String path) {
                synchronized (engine) {
                    return (HealthCheck) resources.get(Kind.HEALTH_CHECKS).get(path);
                }
            }

            @Override
            public List<String> instances(String group) {
                synchronized (engine) {
                    return List.copyOf(members.getOrDefault(group, Set.of()));
                }
            }
        };
    }

    /** A reference as gcloud or a client sends it (a full URL on any host, a partial path) as a partial path. */
    static String partial(String reference) {
        int at = reference.indexOf("projects/");
        return at < 0 ? reference : reference.substring(at);
    }

    /** An {@code IPAddress} as sent (an IP, or a reference to an address) as the IP it stands for. */
    private String ipOf(String project, String region, String reference) {
        if (reference.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return reference;
        }
        String path = reference.contains("/") ? partial(reference) : path(project, Kind.ADDRESSES, region, reference);
        return ((Address) get(Kind.ADDRESSES, path)).getAddress();
    }

    private String freeAddress() {
        Set<String> taken = new HashSet<>();
        resources.get(Kind.ADDRESSES).values().forEach(a -> taken.add(((Address) a).getAddress()));
        resources.get(Kind.FORWARDING_RULES).values().forEach(r -> taken.add(((ForwardingRule) r).getIPAddress()));
        // the range's first and last addresses are never handed out
        for (int i = 1; i < pool[1] - 1; i++) {
            int ip = pool[0] + i;
            String text = (ip >>> 24 & 255) + "." + (ip >>> 16 & 255) + "." + (ip >>> 8 & 255) + "." + (ip & 255);
            if (!taken.contains(text)) {
                return text;
            }
        }
        throw Status.RESOURCE_EXHAUSTED.withDescription("Quota 'STATIC_ADDRESSES' exceeded. Limit: " + Math.max(0, pool[1] - 2)
                + " (the simulator's address range is full)").asRuntimeException();
    }

    // ---------------------------------------------------------------- the state on disk

    private void save() {
        if (file == null) {
            return;
        }
        Struct.Builder root = Struct.newBuilder();
        root.putFields("nextId", Value.newBuilder().setNumberValue(nextId).build());
        try {
            for (Kind k : Kind.values()) {
                ListValue.Builder items = ListValue.newBuilder();
                for (Message m : resources.get(k).values()) {
                    items.addValues(Value.newBuilder().setStringValue(PRINTER.print(m)));
                }
                root.putFields(k.name(), Value.newBuilder().setListValue(items).build());
            }
            Struct.Builder groups = Struct.newBuilder();
            members.forEach((group, set) -> {
                ListValue.Builder l = ListValue.newBuilder();
                set.forEach(i -> l.addValues(Value.newBuilder().setStringValue(i)));
                groups.putFields(group, Value.newBuilder().setListValue(l).build());
            });
            root.putFields("members", Value.newBuilder().setStructValue(groups).build());
            Path tmp = file.resolveSibling(FILE + ".tmp");
            Files.writeString(tmp, PRINTER.print(root), StandardCharsets.UTF_8);
            try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                c.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("the simulator's Compute Engine state could not be saved: " + e.getMessage(), e);
        }
    }

    private void load(String text) throws InvalidProtocolBufferException {
        Struct.Builder root = Struct.newBuilder();
        PARSER.merge(text, root);
        nextId = (long) root.getFieldsOrDefault("nextId", Value.newBuilder().setNumberValue(1000).build()).getNumberValue();
        for (Kind k : Kind.values()) {
            Value items = root.getFieldsMap().get(k.name());
            if (items == null) {
                continue;
            }
            for (Value v : items.getListValue().getValuesList()) {
                Message.Builder b = k.builder();
                PARSER.merge(v.getStringValue(), b);
                Message m = b.build();
                resources.get(k).put((String) m.getField(m.getDescriptorForType().findFieldByName("self_link")), m);
            }
        }
        Value groups = root.getFieldsMap().get("members");
        if (groups != null) {
            groups.getStructValue().getFieldsMap().forEach((group, list) -> {
                Set<String> set = new TreeSet<>();
                list.getListValue().getValuesList().forEach(v -> set.add(v.getStringValue()));
                members.put(group, set);
            });
        }
    }

    @Override
    public void close() {
        listeners.closeAll();
    }
}
