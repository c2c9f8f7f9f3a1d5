package com.bettercompute.adapters.gke;

import com.bettercompute.application.port.LoadBalancerProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.domain.loadbalancer.HealthCheck;
import com.google.api.gax.longrunning.OperationFuture;
import com.google.cloud.compute.v1.Address;
import com.google.cloud.compute.v1.AddressesClient;
import com.google.cloud.compute.v1.Backend;
import com.google.cloud.compute.v1.BackendService;
import com.google.cloud.compute.v1.ForwardingRule;
import com.google.cloud.compute.v1.ForwardingRulesClient;
import com.google.cloud.compute.v1.HTTPHealthCheck;
import com.google.cloud.compute.v1.InstanceGroup;
import com.google.cloud.compute.v1.InstanceGroupsAddInstancesRequest;
import com.google.cloud.compute.v1.InstanceGroupsClient;
import com.google.cloud.compute.v1.InstanceGroupsListInstancesRequest;
import com.google.cloud.compute.v1.InstanceGroupsRemoveInstancesRequest;
import com.google.cloud.compute.v1.InstanceReference;
import com.google.cloud.compute.v1.InstanceWithNamedPorts;
import com.google.cloud.compute.v1.Operation;
import com.google.cloud.compute.v1.RegionBackendServicesClient;
import com.google.cloud.compute.v1.RegionHealthChecksClient;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@link LoadBalancerProvider} on the official Compute Engine client (REST: the Java client has no gRPC transport
 * for Compute): an external passthrough network load balancer — a regional static address, a regional HTTP
 * {@link com.google.cloud.compute.v1.HealthCheck}, a regional {@link BackendService} ({@code EXTERNAL}, TCP) of the
 * cluster's unmanaged instance groups (one per zone, shared by the cluster's load balancers), and a forwarding rule of
 * the address's ports. Every call waits for its operation. No library type leaves this class.
 */
public final class ComputeLoadBalancerProvider implements LoadBalancerProvider, AutoCloseable {
    /** How long one operation may take before the call gives up (the next pass asks again). */
    static final long OPERATION_SECONDS = 120;
    /** A forwarding rule takes up to five single ports; more are served as one range from the lowest to the highest. */
    static final int MAX_LISTED_PORTS = 5;

    private final AddressesClient addresses;
    private final ForwardingRulesClient rules;
    private final RegionBackendServicesClient services;
    private final RegionHealthChecksClient checks;
    private final InstanceGroupsClient groups;

    ComputeLoadBalancerProvider(AddressesClient addresses, ForwardingRulesClient rules, RegionBackendServicesClient services,
                                RegionHealthChecksClient checks, InstanceGroupsClient groups) {
        this.addresses = addresses;
        this.rules = rules;
        this.services = services;
        this.checks = checks;
        this.groups = groups;
    }

    /** Real Compute Engine with application-default credentials. */
    public static ComputeLoadBalancerProvider google() {
        return create(null, null);
    }

    /** Real Compute Engine with one account's own credentials (a service-account key file, named by the catalog). */
    public static ComputeLoadBalancerProvider google(java.nio.file.Path credentialsFile) {
        com.google.auth.oauth2.GoogleCredentials credentials;
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(credentialsFile)) {
            credentials = com.google.auth.oauth2.GoogleCredentials.fromStream(in)
                    .createScoped("https://www.googleapis.com/auth/cloud-platform");
        } catch (java.io.IOException e) {
            // the message names the file, never its content
            throw new IllegalArgumentException("the credentials file " + credentialsFile + " cannot be read as Google credentials");
        }
        return create(null, com.google.api.gax.core.FixedCredentialsProvider.create(credentials));
    }

    /**
     * A Compute Engine API at {@code http://HOST:PORT} (the GKE simulator's REST port), plain HTTP and no
     * credentials: exactly that form, no path and no trailing slash (the client adds {@code /compute/v1}).
     */
    public static ComputeLoadBalancerProvider at(String baseUrl) {
        if (!baseUrl.matches("http://[^/\\s]+:\\d{1,5}")) {
            throw new IllegalArgumentException("a Compute Engine endpoint is http://HOST:PORT, not \"" + baseUrl + "\"");
        }
        return create(baseUrl, com.google.api.gax.core.NoCredentialsProvider.create());
    }

    private static ComputeLoadBalancerProvider create(String endpoint, com.google.api.gax.core.CredentialsProvider credentials) {
        try {
            var a = com.google.cloud.compute.v1.AddressesSettings.newBuilder();
            var r = com.google.cloud.compute.v1.ForwardingRulesSettings.newBuilder();
            var s = com.google.cloud.compute.v1.RegionBackendServicesSettings.newBuilder();
            var c = com.google.cloud.compute.v1.RegionHealthChecksSettings.newBuilder();
            var g = com.google.cloud.compute.v1.InstanceGroupsSettings.newBuilder();
            if (endpoint != null) {
                a.setEndpoint(endpoint);
                r.setEndpoint(endpoint);
                s.setEndpoint(endpoint);
                c.setEndpoint(endpoint);
                g.setEndpoint(endpoint);
            }
            if (credentials != null) {
                a.setCredentialsProvider(credentials);
                r.setCredentialsProvider(credentials);
                s.setCredentialsProvider(credentials);
                c.setCredentialsProvider(credentials);
                g.setCredentialsProvider(credentials);
            }
            // Compute Engine's operations mostly end in seconds: first look after 100 ms, not the client's 500 ms
            var poll = com.google.api.gax.longrunning.OperationTimedPollAlgorithm.create(com.google.api.gax.retrying.RetrySettings
                    .newBuilder().setInitialRetryDelayDuration(java.time.Duration.ofMillis(100)).setRetryDelayMultiplier(1.5)
                    .setMaxRetryDelayDuration(java.time.Duration.ofSeconds(10))
                    .setTotalTimeoutDuration(java.time.Duration.ofSeconds(OPERATION_SECONDS)).build());
            a.insertOperationSettings().setPollingAlgorithm(poll);
            a.deleteOperationSettings().setPollingAlgorithm(poll);
            r.insertOperationSettings().setPollingAlgorithm(poll);
            r.deleteOperationSettings().setPollingAlgorithm(poll);
            s.insertOperationSettings().setPollingAlgorithm(poll);
            s.updateOperationSettings().setPollingAlgorithm(poll);
            s.deleteOperationSettings().setPollingAlgorithm(poll);
            c.insertOperationSettings().setPollingAlgorithm(poll);
            c.patchOperationSettings().setPollingAlgorithm(poll);
            c.deleteOperationSettings().setPollingAlgorithm(poll);
            g.insertOperationSettings().setPollingAlgorithm(poll);
            g.deleteOperationSettings().setPollingAlgorithm(poll);
            g.addInstancesOperationSettings().setPollingAlgorithm(poll);
            g.removeInstancesOperationSettings().setPollingAlgorithm(poll);
            return new ComputeLoadBalancerProvider(AddressesClient.create(a.build()), ForwardingRulesClient.create(r.build()),
                    RegionBackendServicesClient.create(s.build()), RegionHealthChecksClient.create(c.build()),
                    InstanceGroupsClient.create(g.build()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("the Compute Engine clients could not be made: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- the address

    @Override
    public String reserveAddress(At at, String description) {
        Optional<Address> had = find(() -> addresses.get(at.project(), at.region(), at.name()));
        if (had.isEmpty()) {
            try {
                await(addresses.insertAsync(at.project(), at.region(), Address.newBuilder().setName(at.name())
                        .setAddressType("EXTERNAL").setNetworkTier("PREMIUM").setDescription(description).build()));
            } catch (ProviderException e) {
                // made meanwhile (by our own earlier call whose answer was lost): adopted below
                if (e.kind() != Kind.ALREADY_EXISTS && e.kind() != Kind.FAILED_PRECONDITION) {
                    throw e;
                }
            }
            had = find(() -> addresses.get(at.project(), at.region(), at.name()));
        }
        String ip = had.map(Address::getAddress).orElse("");
        if (ip.isEmpty()) {
            throw new ProviderException(Kind.UNAVAILABLE, "Address " + at.name() + " has no IP yet; try again.");
        }
        return ip;
    }

    // ---------------------------------------------------------------- forwarding

    @Override
    public void ensureForwarding(At at, String address, Forwarding f) {
        String checkUrl = ensureHealthCheck(at, f.healthCheck());
        Map<String, List<String>> byZone = byZone(f.instances());
        List<String> groupUrls = new ArrayList<>();
        for (Map.Entry<String, List<String>> zone : byZone.entrySet()) {
            groupUrls.add(ensureGroup(at, zone.getKey(), zone.getValue()));
        }
        List<String> dropped = ensureBackendService(at, checkUrl, groupUrls);
        ensureRule(at, address, f.ports());
        for (String group : dropped) {
            // a zone left empty: its group goes when no other load balancer of the cluster still uses it
            deleteGroupIfUnused(at.project(), part(group, "zones"), at.group());
        }
    }

    private String ensureHealthCheck(At at, HealthCheck wanted) {
        com.google.cloud.compute.v1.HealthCheck check = com.google.cloud.compute.v1.HealthCheck.newBuilder().setName(at.name())
                .setType("HTTP").setCheckIntervalSec(8).setTimeoutSec(1).setHealthyThreshold(1).setUnhealthyThreshold(3)
                .setHttpHealthCheck(HTTPHealthCheck.newBuilder().setPort(wanted.port()).setRequestPath(wanted.path())).build();
        Optional<com.google.cloud.compute.v1.HealthCheck> had = find(() -> checks.get(at.project(), at.region(), at.name()));
        if (had.isEmpty()) {
            insert(() -> checks.insertAsync(at.project(), at.region(), check));
        } else if (had.get().getHttpHealthCheck().getPort() != wanted.port()
                || !had.get().getHttpHealthCheck().getRequestPath().equals(wanted.path())) {
            await(checks.patchAsync(at.project(), at.region(), at.name(), check));
        }
        return path(at.project(), "regions", at.region(), "healthChecks", at.name());
    }

    private String ensureGroup(At at, String zone, List<String> instances) {
        Optional<InstanceGroup> had = find(() -> groups.get(at.project(), zone, at.group()));
        if (had.isEmpty()) {
            insert(() -> groups.insertAsync(at.project(), zone, InstanceGroup.newBuilder().setName(at.group())
                    .setDescription("The nodes of one cluster behind its load balancers").build()));
        }
        Set<String> have = members(at.project(), zone, at.group());
        Set<String> want = new TreeSet<>(instances);
        List<InstanceReference> add = want.stream().filter(i -> !have.contains(i)).map(ComputeLoadBalancerProvider::ref).toList();
        List<InstanceReference> remove = have.stream().filter(i -> !want.contains(i)).map(ComputeLoadBalancerProvider::ref).toList();
        if (!add.isEmpty()) {
            await(groups.addInstancesAsync(at.project(), zone, at.group(),
                    InstanceGroupsAddInstancesRequest.newBuilder().addAllInstances(add).build()));
        }
        if (!remove.isEmpty()) {
            await(groups.removeInstancesAsync(at.project(), zone, at.group(),
                    InstanceGroupsRemoveInstancesRequest.newBuilder().addAllInstances(remove).build()));
        }
        return path(at.project(), "zones", zone, "instanceGroups", at.group());
    }

    private Set<String> members(String project, String zone, String group) {
        Set<String> out = new TreeSet<>();
        call(() -> {
            for (InstanceWithNamedPorts i : groups.listInstances(project, zone, group,
                    InstanceGroupsListInstancesRequest.newBuilder().setInstanceState("ALL").build()).iterateAll()) {
                out.add(partial(i.getInstance()));
            }
            return null;
        });
        return out;
    }

    /** Makes the backend service hold exactly {@code groupUrls}; returns the groups it held before and no longer does. */
    private List<String> ensureBackendService(At at, String checkUrl, List<String> groupUrls) {
        BackendService.Builder wanted = BackendService.newBuilder().setName(at.name()).setLoadBalancingScheme("EXTERNAL")
                .setProtocol("TCP").addHealthChecks(checkUrl);
        groupUrls.forEach(g -> wanted.addBackends(Backend.newBuilder().setGroup(g).setBalancingMode("CONNECTION")));
        Optional<BackendService> had = find(() -> services.get(at.project(), at.region(), at.name()));
        if (had.isEmpty()) {
            insert(() -> services.insertAsync(at.project(), at.region(), wanted.build()));
            return List.of();
        }
        Set<String> haveGroups = new TreeSet<>(had.get().getBackendsList().stream().map(b -> partial(b.getGroup())).toList());
        Set<String> haveChecks = new TreeSet<>(had.get().getHealthChecksList().stream().map(ComputeLoadBalancerProvider::partial).toList());
        if (!haveGroups.equals(new TreeSet<>(groupUrls)) || !haveChecks.equals(Set.of(checkUrl))) {
            // a backend service takes an update whole: the fingerprint read makes a concurrent change fail, not vanish
            await(services.updateAsync(at.project(), at.region(), at.name(),
                    wanted.setFingerprint(had.get().getFingerprint()).build()));
        }
        return haveGroups.stream().filter(g -> !groupUrls.contains(g)).toList();
    }

    private void ensureRule(At at, String address, List<Integer> ports) {
        ForwardingRule.Builder wanted = ForwardingRule.newBuilder().setName(at.name()).setIPAddress(address).setIPProtocol("TCP")
                .setLoadBalancingScheme("EXTERNAL").setNetworkTier("PREMIUM")
                .setBackendService(path(at.project(), "regions", at.region(), "backendServices", at.name()));
        if (ports.size() <= MAX_LISTED_PORTS) {
            ports.forEach(p -> wanted.addPorts(Integer.toString(p)));
        } else {
            wanted.setPortRange(ports.get(0) + "-" + ports.get(ports.size() - 1));
        }
        Optional<ForwardingRule> had = find(() -> rules.get(at.project(), at.region(), at.name()));
        if (had.isPresent()) {
            ForwardingRule r = had.get();
            boolean same = r.getIPAddress().equals(address) && r.getPortsList().equals(wanted.getPortsList())
                    && r.getPortRange().equals(wanted.getPortRange())
                    && partial(r.getBackendService()).equals(wanted.getBackendService());
            if (same) {
                return;
            }
            // a forwarding rule's ports cannot be changed in place: it is made again on the same address
            delete(() -> rules.deleteAsync(at.project(), at.region(), at.name()));
        }
        insert(() -> rules.insertAsync(at.project(), at.region(), wanted.build()));
    }

    // ---------------------------------------------------------------- release

    @Override
    public void release(At at, List<String> zones) {
        Set<String> groupZones = new LinkedHashSet<>(zones);
        find(() -> services.get(at.project(), at.region(), at.name()))
                .ifPresent(s -> s.getBackendsList().forEach(b -> groupZones.add(part(b.getGroup(), "zones"))));
        delete(() -> rules.deleteAsync(at.project(), at.region(), at.name()));
        delete(() -> services.deleteAsync(at.project(), at.region(), at.name()));
        delete(() -> checks.deleteAsync(at.project(), at.region(), at.name()));
        delete(() -> addresses.deleteAsync(at.project(), at.region(), at.name()));
        for (String zone : groupZones) {
            deleteGroupIfUnused(at.project(), zone, at.group());
        }
    }

    /** Deletes the group unless a backend service still uses it (it is another load balancer's then). */
    private void deleteGroupIfUnused(String project, String zone, String group) {
        try {
            delete(() -> groups.deleteAsync(project, zone, group));
        } catch (ProviderException e) {
            if (e.kind() != Kind.FAILED_PRECONDITION && e.kind() != Kind.INVALID) {
                throw e;
            }
        }
    }

    // ---------------------------------------------------------------- observe

    @Override
    public Optional<Observed> observe(At at) {
        Optional<Address> address = find(() -> addresses.get(at.project(), at.region(), at.name()));
        Optional<ForwardingRule> rule = find(() -> rules.get(at.project(), at.region(), at.name()));
        if (address.isEmpty() && rule.isEmpty()) {
            return Optional.empty();
        }
        Forwarding forwarding = null;
        if (rule.isPresent()) {
            List<Integer> ports = new ArrayList<>();
            rule.get().getPortsList().forEach(p -> ports.add(Integer.parseInt(p)));
            if (ports.isEmpty() && !rule.get().getPortRange().isEmpty()) {
                String[] range = rule.get().getPortRange().split("-");
                ports.add(Integer.parseInt(range[0]));
                ports.add(Integer.parseInt(range[range.length - 1]));
            }
            Set<String> instances = new TreeSet<>();
            HealthCheck check = null;
            Optional<BackendService> service = find(() -> services.get(at.project(), at.region(), at.name()));
            if (service.isPresent()) {
                for (Backend b : service.get().getBackendsList()) {
                    instances.addAll(members(at.project(), part(b.getGroup(), "zones"), last(b.getGroup())));
                }
                Optional<com.google.cloud.compute.v1.HealthCheck> hc = find(() -> checks.get(at.project(), at.region(), at.name()));
                check = hc.map(h -> new HealthCheck(h.getHttpHealthCheck().getPort(), h.getHttpHealthCheck().getRequestPath())).orElse(null);
            }
            forwarding = new Forwarding(ports.stream().sorted().toList(), List.copyOf(instances), check);
        }
        return Optional.of(new Observed(address.map(Address::getAddress).orElse(null), forwarding));
    }

    // ---------------------------------------------------------------- calls

    private static <T> Optional<T> find(Supplier<T> get) {
        try {
            return Optional.of(call(get));
        } catch (ProviderException e) {
            if (e.kind() == Kind.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** An insert of ours: one that finds its resource there already (our own earlier call) is a success. */
    private static void insert(Supplier<OperationFuture<Operation, Operation>> insert) {
        try {
            await(call(insert));
        } catch (ProviderException e) {
            if (e.kind() != Kind.ALREADY_EXISTS && e.kind() != Kind.FAILED_PRECONDITION) {
                throw e;
            }
        }
    }

    /** A delete of ours: one that finds nothing is a success. */
    private static void delete(Supplier<OperationFuture<Operation, Operation>> delete) {
        try {
            await(call(delete));
        } catch (ProviderException e) {
            if (e.kind() != Kind.NOT_FOUND) {
                throw e;
            }
        }
    }

    private static <T> T call(Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /** Waits for an operation; a failed one is the provider's refusal. */
    private static void await(OperationFuture<Operation, Operation> future) {
        try {
            Operation op = future.get(OPERATION_SECONDS, TimeUnit.SECONDS);
            if (op.hasError() && op.getError().getErrorsCount() > 0) {
                throw new ProviderException(Kind.INVALID, op.getError().getErrors(0).getMessage());
            }
        } catch (ExecutionException e) {
            throw translate(e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause()));
        } catch (TimeoutException e) {
            throw new ProviderException(Kind.UNAVAILABLE, "A Compute Engine operation did not end in " + OPERATION_SECONDS + " s.");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException(Kind.UNAVAILABLE, "Interrupted while waiting for Compute Engine.");
        }
    }

    /**
     * A client failure as a {@link ProviderException}: as GKE's ({@link GkeClusterProvider#translate}), except that
     * Compute Engine answers a name taken with 409 (ABORTED to the client), which is ALREADY_EXISTS here.
     */
    static ProviderException translate(RuntimeException e) {
        ProviderException p = GkeClusterProvider.translate(e);
        String message = p.getMessage() == null ? "" : p.getMessage();
        if (p.kind() == Kind.FAILED_PRECONDITION && message.contains("already exists")) {
            return new ProviderException(Kind.ALREADY_EXISTS, message);
        }
        if (p.kind() == Kind.INVALID && message.contains("already being used")) {
            return new ProviderException(Kind.FAILED_PRECONDITION, message);
        }
        return p;
    }

    // ---------------------------------------------------------------- names

    private static String path(String project, String scopes, String scope, String collection, String name) {
        return "projects/" + project + "/" + scopes + "/" + scope + "/" + collection + "/" + name;
    }

    /** A link as Compute Engine returns it (a full URL) as a partial path, {@code projects/...}. */
    static String partial(String link) {
        int at = link.indexOf("projects/");
        return at < 0 ? link : link.substring(at);
    }

    private static String part(String link, String after) {
        String[] p = partial(link).split("/");
        for (int i = 0; i + 1 < p.length; i++) {
            if (p[i].equals(after)) {
                return p[i + 1];
            }
        }
        throw new ProviderException(Kind.INTERNAL, "No " + after + " in " + link);
    }

    private static String last(String link) {
        return link.substring(link.lastIndexOf('/') + 1);
    }

    private static InstanceReference ref(String instance) {
        return InstanceReference.newBuilder().setInstance(instance).build();
    }

    /** Instances ({@code projects/P/zones/Z/instances/N}) by zone, zones sorted. */
    static Map<String, List<String>> byZone(Collection<String> instances) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String i : instances) {
            out.computeIfAbsent(part(i, "zones"), z -> new ArrayList<>()).add(partial(i));
        }
        return out;
    }

    @Override
    public void close() {
        addresses.close();
        rules.close();
        services.close();
        checks.close();
        groups.close();
    }
}
