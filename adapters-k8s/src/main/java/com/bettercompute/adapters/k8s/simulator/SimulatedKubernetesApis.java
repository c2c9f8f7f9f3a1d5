package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingList;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes API for each of the GKE simulator's clusters: ONE HTTPS server on loopback for all of
 * them, routing by the path prefix {@code /clusters/<project>/<location>/<cluster>} (which is part of
 * each cluster's endpoint, so a kubeconfig's {@code server} carries it) to one fabric8 CRUD mock per
 * cluster, created on the first request to it — a simulator with thousands of clusters holds only the
 * ones someone talked to. The server's self-signed certificate (valid for {@code localhost} and
 * {@code 127.0.0.1}) is the CA every simulated cluster reports.
 *
 * <p>Added to what the CRUD mock does: every request must carry a bearer token, the admin token of
 * this server ({@link #adminToken()}, the platform's credential) or one minted by TokenRequest for that
 * cluster and not expired (else 401); TokenRequest itself (an HMAC-signed token with its expiry, at
 * least 10 minutes as Kubernetes requires); the discovery documents and {@code /version} that
 * {@code kubectl} needs; one Node per node of each node pool as the GKE simulator has them, following
 * resizes; the built-in ClusterRoles; and a coarse reading of the built-in roles bound to a minted
 * token's service account (403 otherwise) — RBAC as Kubernetes evaluates it, it is not.
 *
 * <p>This is an API-shape stand-in, not Kubernetes: see the project's notes on the fabric8 mock.
 */
public final class SimulatedKubernetesApis implements AutoCloseable {
    /**
     * What the GKE simulator says about a cluster: its node pools and their node counts (all zones),
     * or null when no such cluster runs. Called on requests that read nodes, and to find a cluster
     * on its first request.
     */
    @FunctionalInterface
    public interface NodeSource {
        Map<String, Integer> nodePools(String project, String location, String cluster);
    }

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubernetesApis.class);
    private static final Pattern ROUTE = Pattern.compile("^/clusters/([^/?]+)/([^/?]+)/([^/?]+)(/[^?]*)?(\\?.*)?$");
    private static final Pattern TOKEN_REQUEST = Pattern.compile("^/api/v1/namespaces/([^/]+)/serviceaccounts/([^/]+)/token$");
    private static final String TOKEN_PREFIX = "bcsim.";
    /** What every authenticated caller may read, as {@code system:discovery} grants. */
    private static final Pattern DISCOVERY = Pattern.compile("^/(version|api|apis|api/v1|apis/[^/]+/[^/]+)/?$");
    /** Kubernetes refuses a TokenRequest for less than 10 minutes. */
    static final long MIN_EXPIRATION_SECONDS = 600;
    /** What a TokenRequest without expirationSeconds gets, as on Kubernetes. */
    static final long DEFAULT_EXPIRATION_SECONDS = 3600;
    static final String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";

    /**
     * The mock server logs every request line through java.util.logging at INFO; kept at WARNING here (and
     * held, since JUL keeps loggers weakly). It never logs headers, so no token, but it is noise.
     */
    private static final java.util.logging.Logger MOCK_LOG = quiet();

    private final Clock clock;
    private final NodeSource nodeSource;
    private final MockWebServer server = new MockWebServer();
    private final KubernetesSerialization json = new KubernetesSerialization();
    private final Map<String, SimCluster> clusters = new ConcurrentHashMap<>();
    private final byte[] signingKey;
    private final String adminToken;
    private final String caBase64;
    /** Where clusters' objects and the server's identity are kept; null: in memory only. */
    private final SavedApis saved;
    private final TlsFront front;

    private SimulatedKubernetesApis(Clock clock, NodeSource nodeSource, Path stateDirectory) throws IOException {
        this.clock = clock;
        this.nodeSource = nodeSource;
        this.saved = stateDirectory == null ? null : new SavedApis(stateDirectory, json);
        ServerIdentity identity = saved == null ? null : saved.identity();
        if (identity == null) {
            identity = ServerIdentity.generate(clock);
        }
        this.signingKey = identity.signingKey();
        byte[] admin = new byte[24];
        new SecureRandom().nextBytes(admin);
        // The platform's own credential is new at every start: the platform asks for it again, nobody else holds it.
        this.adminToken = "bcsim-admin." + Base64.getUrlEncoder().withoutPadding().encodeToString(admin);
        this.caBase64 = Base64.getEncoder().encodeToString(identity.certificatePem().getBytes(StandardCharsets.US_ASCII));
        server.setDispatcher(new Router());
        server.start(InetAddress.getLoopbackAddress(), 0);
        try {
            this.front = listen(identity, server.getPort());
            if (saved != null && front.port() != identity.port()) {
                saved.identity(identity.withPort(front.port()));
            }
        } catch (IOException | RuntimeException e) {
            server.shutdown();
            throw e;
        }
    }

    /** On the saved port if there is one (every cluster's endpoint names it), else on any free port. */
    private static TlsFront listen(ServerIdentity identity, int backendPort) throws IOException {
        if (identity.port() != 0) {
            try {
                return TlsFront.start(identity, identity.port(), backendPort);
            } catch (java.net.BindException e) {
                LOG.warn("simulated Kubernetes API: port {} is taken; its clusters' endpoints change to a new port", identity.port());
            }
        }
        return TlsFront.start(identity, 0, backendPort);
    }

    /** Starts the one HTTPS server on a free loopback port, in memory; clusters get their API on first use. */
    public static SimulatedKubernetesApis start(Clock clock, NodeSource nodes) {
        return start(clock, nodes, null);
    }

    /**
     * Starts the one HTTPS server keeping its state in {@code stateDirectory} (null: in memory only): the
     * objects stored in each cluster, saved before each change is answered; the server's certificate
     * (every cluster's CA), its port and the key tokens are signed with, so kubeconfigs and tokens handed
     * out before a restart keep working after it. One server per directory at a time.
     */
    public static SimulatedKubernetesApis start(Clock clock, NodeSource nodes, Path stateDirectory) {
        try {
            return new SimulatedKubernetesApis(clock, nodes, stateDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("the simulated Kubernetes API could not start: " + e.getMessage(), e);
        }
    }

    /** The cluster's endpoint as a provider reports it, without scheme: {@code 127.0.0.1:PORT/clusters/P/L/C}. */
    public String endpointFor(String project, String location, String cluster) {
        return "127.0.0.1:" + front.port() + "/clusters/" + project + "/" + location + "/" + cluster;
    }

    /** The cluster is gone at the provider: its objects are dropped, so a new cluster of the same name starts empty. */
    public void forget(String project, String location, String cluster) {
        String key = clusterKey(project, location, cluster);
        clusters.remove(key);
        if (saved != null) {
            try {
                saved.forget(key);
            } catch (IOException e) {
                LOG.warn("simulated Kubernetes API: the objects of the deleted cluster {} could not be removed: {}", key, e.getMessage());
            }
        }
    }

    /** The CA of every simulated cluster: base64 of the server certificate's PEM, as GKE reports a CA. */
    public String caCertificateBase64() {
        return caBase64;
    }

    /** The platform's credential for every simulated cluster. A secret: never log it. */
    public String adminToken() {
        return adminToken;
    }

    /** How many clusters have had their API started (by a first request). */
    public int startedClusters() {
        return clusters.size();
    }

    @Override
    public void close() {
        front.close();
        server.shutdown();
    }

    // ---------------------------------------------------------------- tokens

    /** Mints a token as TokenRequest does; tests use it for tokens shorter than the API allows. */
    public Minted mint(String project, String location, String cluster, String namespace, String serviceAccount, Duration ttl) {
        Instant expires = clock.instant().plus(ttl).truncatedTo(ChronoUnit.SECONDS);
        byte[] nonce = new byte[12];
        new SecureRandom().nextBytes(nonce);
        String payload = String.join("|", "v1", clusterKey(project, location, cluster), namespace, serviceAccount,
                Long.toString(expires.getEpochSecond()), HexFormat.of().formatHex(nonce));
        String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        return new Minted(TOKEN_PREFIX + encoded + "." + sign(encoded), expires);
    }

    /** A minted token and its expiry. {@link #toString()} hides the token. */
    public record Minted(String token, Instant expiresAt) {
        @Override
        public String toString() {
            return "Minted[token=<redacted>, expiresAt=" + expiresAt + "]";
        }
    }

    private String sign(String encodedPayload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(signingKey, "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(encodedPayload.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** Who a request is: the platform (the admin token), or a service account with a minted token. */
    private record Caller(String namespace, String serviceAccount) {
        static final Caller PLATFORM = new Caller(null, null);
    }

    /** The caller of a request to this cluster, or null: no token, an unknown or forged one, another cluster's, or expired. */
    private Caller authenticate(String authorization, String clusterKey) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return null;
        }
        String token = authorization.substring("Bearer ".length()).trim();
        if (MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), adminToken.getBytes(StandardCharsets.UTF_8))) {
            return Caller.PLATFORM;
        }
        if (!token.startsWith(TOKEN_PREFIX)) {
            return null;
        }
        String[] parts = token.substring(TOKEN_PREFIX.length()).split("\\.", -1);
        if (parts.length != 2 || !MessageDigest.isEqual(sign(parts[0]).getBytes(StandardCharsets.UTF_8), parts[1].getBytes(StandardCharsets.UTF_8))) {
            return null;
        }
        String[] fields;
        try {
            fields = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8).split("\\|", -1);
        } catch (IllegalArgumentException e) {
            return null;
        }
        boolean valid = fields.length == 6 && fields[1].equals(clusterKey)
                && clock.instant().isBefore(Instant.ofEpochSecond(Long.parseLong(fields[4])));
        return valid ? new Caller(fields[2], fields[3]) : null;
    }

    // ---------------------------------------------------------------- routing

    private static String clusterKey(String project, String location, String cluster) {
        return project + "/" + location + "/" + cluster;
    }

    private final class Router extends Dispatcher {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Matcher m = ROUTE.matcher(request.getPath());
            if (!m.matches()) {
                return status(404, "NotFound", "the path names no cluster: use /clusters/<project>/<location>/<cluster>/…");
            }
            String key = clusterKey(m.group(1), m.group(2), m.group(3));
            Caller caller = authenticate(request.getHeader("Authorization"), key);
            if (caller == null) {
                // As kube-apiserver: no hint of why (expired, unknown, another cluster's).
                return status(401, "Unauthorized", "Unauthorized");
            }
            Map<String, Integer> pools = nodeSource.nodePools(m.group(1), m.group(2), m.group(3));
            if (pools == null) {
                clusters.remove(key);
                return status(404, "NotFound", "no running cluster " + key);
            }
            SimCluster cluster = clusters.computeIfAbsent(key, k -> new SimCluster(m.group(1), m.group(2), m.group(3)));
            String path = m.group(4) == null ? "/" : m.group(4);
            String query = m.group(5) == null ? "" : m.group(5);
            try {
                return cluster.dispatch(caller, request, path, query, pools);
            } catch (RuntimeException e) {
                LOG.error("simulated Kubernetes API: unexpected failure on {} {}", request.getMethod(), path, e);
                return status(500, "InternalError", "internal error in the simulated Kubernetes API");
            }
        }
    }

    private final class SimCluster {
        final String project;
        final String location;
        final String name;
        final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
        final Set<String> nodes = new TreeSet<>();

        SimCluster(String project, String location, String name) {
            this.project = project;
            this.location = location;
            this.name = name;
            List<SavedApis.StoredObject> objects = load();
            if (objects != null) {
                restore(objects);
                LOG.info("simulated Kubernetes API restored for cluster {}/{}/{}: {} objects", project, location, name, objects.size());
                return;
            }
            for (String ns : List.of("default", "kube-system", "kube-public")) {
                create("/api/v1/namespaces", json.asJson(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()));
            }
            builtInClusterRoles().forEach(role -> create("/apis/rbac.authorization.k8s.io/v1/clusterroles", role));
            save();
            LOG.info("simulated Kubernetes API started for cluster {}/{}/{}", project, location, name);
        }

        private String key() {
            return clusterKey(project, location, name);
        }

        private List<SavedApis.StoredObject> load() {
            if (saved == null) {
                return null;
            }
            try {
                return saved.objects(key());
            } catch (IOException e) {
                throw new UncheckedIOException("the saved objects of cluster " + key() + " cannot be read: " + e.getMessage(), e);
            }
        }

        /** Puts saved objects back as they were (uids, resource versions and all), and moves the version counter past them. */
        private void restore(List<SavedApis.StoredObject> objects) {
            long newest = 0;
            for (SavedApis.StoredObject object : objects) {
                crud.getMap().put(object.key(), object.json());
                GenericKubernetesResource resource = json.unmarshal(object.json(), GenericKubernetesResource.class);
                String version = resource.getMetadata() == null ? null : resource.getMetadata().getResourceVersion();
                if (version != null && version.matches("\\d{1,18}")) {
                    newest = Math.max(newest, Long.parseLong(version));
                }
                if ("Node".equals(resource.getKind())) {
                    nodes.add(resource.getMetadata().getName());
                }
            }
            while (crud.requestResourceVersion() < newest) {
                // each call takes one version; a cluster holds a few hundred objects at most
            }
        }

        /** Makes the cluster's objects durable as they are now; called before a change is answered. */
        private synchronized void save() {
            if (saved == null) {
                return;
            }
            try {
                saved.objects(key(), crud.getMap());
            } catch (IOException e) {
                throw new UncheckedIOException("the objects of cluster " + key() + " could not be saved: " + e.getMessage(), e);
            }
        }

        MockResponse dispatch(Caller caller, RecordedRequest request, String path, String query, Map<String, Integer> pools) {
            String method = request.getMethod();
            if (caller != Caller.PLATFORM && !DISCOVERY.matcher(path).matches() && !allowed(caller, method, path)) {
                return status(403, "Forbidden", "system:serviceaccount:" + caller.namespace() + ":" + caller.serviceAccount()
                        + " may not " + method + " " + path);
            }
            if ("GET".equals(method)) {
                switch (path) {
                    case "/version", "/version/": return ok(Discovery.VERSION);
                    case "/api", "/api/": return ok(Discovery.API);
                    case "/apis", "/apis/": return ok(Discovery.APIS);
                    case "/api/v1", "/api/v1/": return ok(Discovery.CORE_V1);
                    case "/apis/rbac.authorization.k8s.io/v1": return ok(Discovery.RBAC_V1);
                    case "/apis/authentication.k8s.io/v1": return ok(Discovery.AUTHENTICATION_V1);
                    default: break;
                }
            }
            String contentType = request.getHeader("Content-Type");
            if (contentType != null && contentType.contains("protobuf")) {
                // kubectl's typed commands (create namespace, auth whoami…) send protobuf, which the CRUD mock
                // cannot read; kubectl create -f FILE sends JSON.
                return status(415, "UnsupportedMediaType", "the simulated Kubernetes API reads JSON only; "
                        + "use kubectl create -f FILE (add --validate=false)");
            }
            Matcher token = TOKEN_REQUEST.matcher(path);
            if (token.matches()) {
                return "POST".equals(method) ? tokenRequest(token.group(1), token.group(2), request)
                        : status(405, "MethodNotAllowed", "the token subresource only takes POST");
            }
            if (path.startsWith("/api/v1/nodes") && syncNodes(pools)) {
                save();
            }
            RecordedRequest forwarded = new RecordedRequest(request.getHttpVersion(), request.method(), path + query,
                    request.getHeaders(), request.getBody());
            if ("GET".equals(method)) {
                return crud.dispatch(forwarded);
            }
            // A change and the save of the objects it leaves are one step: a later save never holds less.
            synchronized (this) {
                MockResponse response = crud.dispatch(forwarded);
                if (response.code() < 400) {
                    save();
                }
                return response;
            }
        }

        /**
         * A coarse reading of the built-in roles bound to the account by ClusterRoleBindings: {@code view}
         * reads everything but secrets; {@code edit} and {@code admin} also write namespaced objects except
         * roles and role bindings; {@code cluster-admin} does everything. Enough to tell the roles apart.
         */
        private boolean allowed(Caller caller, String method, String path) {
            Set<String> roles = new TreeSet<>();
            MockResponse bindings = crud.handleGet("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings");
            if (bindings.code() == 200) {
                ClusterRoleBindingList list = json.unmarshal(new String(bindings.getBody().getBytes(), StandardCharsets.UTF_8),
                        ClusterRoleBindingList.class);
                for (ClusterRoleBinding b : list.getItems()) {
                    boolean bound = b.getSubjects() != null && b.getSubjects().stream().anyMatch(sub -> "ServiceAccount".equals(sub.getKind())
                            && caller.serviceAccount().equals(sub.getName()) && caller.namespace().equals(sub.getNamespace()));
                    if (bound && b.getRoleRef() != null) {
                        roles.add(b.getRoleRef().getName());
                    }
                }
            }
            if (roles.contains("cluster-admin")) {
                return true;
            }
            boolean read = method.equals("GET");
            boolean secrets = path.matches(".*/secrets(/.*)?");
            if (read) {
                return (roles.contains("view") && !secrets) || roles.contains("edit") || roles.contains("admin");
            }
            boolean namespaced = path.matches("^/apis?(/[^/]+){0,2}/namespaces/[^/]+/(?!roles|rolebindings)[^/]+(/.*)?$");
            return namespaced && (roles.contains("edit") || roles.contains("admin"));
        }

        private MockResponse tokenRequest(String namespace, String serviceAccount, RecordedRequest request) {
            MockResponse account = crud.handleGet("/api/v1/namespaces/" + namespace + "/serviceaccounts/" + serviceAccount);
            if (account.code() != 200) {
                return status(404, "NotFound", "serviceaccounts \"" + serviceAccount + "\" not found");
            }
            GenericKubernetesResource body;
            try {
                byte[] bytes = request.getBody() == null ? new byte[0] : request.getBody().getBytes();
                body = json.unmarshal(new String(bytes, StandardCharsets.UTF_8), GenericKubernetesResource.class);
            } catch (RuntimeException e) {
                return status(400, "BadRequest", "the body is not a TokenRequest");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = body == null ? null : (Map<String, Object>) body.getAdditionalProperties().get("spec");
            long seconds = DEFAULT_EXPIRATION_SECONDS;
            List<?> audiences = List.of();
            if (spec != null && spec.get("expirationSeconds") instanceof Number n) {
                seconds = n.longValue();
            }
            if (spec != null && spec.get("audiences") instanceof List<?> l) {
                audiences = l;
            }
            if (seconds < MIN_EXPIRATION_SECONDS) {
                return status(422, "Invalid", "spec.expirationSeconds: may not specify a duration less than 10 minutes");
            }
            Minted minted = mint(project, location, name, namespace, serviceAccount, Duration.ofSeconds(seconds));
            Map<String, Object> answer = Map.of(
                    "kind", "TokenRequest",
                    "apiVersion", "authentication.k8s.io/v1",
                    "metadata", Map.of("name", serviceAccount, "namespace", namespace),
                    "spec", Map.of("audiences", audiences, "expirationSeconds", seconds),
                    "status", Map.of("token", minted.token(), "expirationTimestamp", DateTimeFormatter.ISO_INSTANT.format(minted.expiresAt())));
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json").setBody(json.asJson(answer));
        }

        /** Makes the Node objects match the node pools: one per node, named as GKE names them. True if it changed any. */
        private synchronized boolean syncNodes(Map<String, Integer> pools) {
            boolean changed = false;
            Set<String> wanted = new TreeSet<>();
            pools.forEach((pool, count) -> {
                for (int i = 0; i < count; i++) {
                    wanted.add(nodeName(pool, i));
                }
            });
            for (String gone : List.copyOf(nodes)) {
                if (!wanted.contains(gone)) {
                    crud.handleDelete("/api/v1/nodes/" + gone);
                    nodes.remove(gone);
                    changed = true;
                }
            }
            for (Map.Entry<String, Integer> entry : pools.entrySet()) {
                String pool = entry.getKey();
                int count = entry.getValue();
                for (int i = 0; i < count; i++) {
                    String node = nodeName(pool, i);
                    if (nodes.add(node)) {
                        changed = true;
                        create("/api/v1/nodes", json.asJson(new NodeBuilder()
                                .withNewMetadata().withName(node)
                                .addToLabels(NODE_POOL_LABEL, pool).addToLabels("kubernetes.io/hostname", node)
                                .addToLabels("topology.kubernetes.io/region", location).endMetadata()
                                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
                                .withNewNodeInfo().withKubeletVersion("v1.32.0").withOsImage("Container-Optimized OS").endNodeInfo()
                                .endStatus().build()));
                    }
                }
            }
            return changed;
        }

        private String nodeName(String pool, int index) {
            String hash = HexFormat.of().formatHex(sha256(project + "/" + location + "/" + name + "/" + pool)).substring(0, 8);
            String base = "gke-" + name + "-" + pool;
            if (base.length() > 40) {
                base = base.substring(0, 40);
            }
            return base + "-" + hash + "-" + String.format("%04d", index);
        }

        private void create(String path, String body) {
            MockResponse r = crud.handleCreate(new RecordedRequest("HTTP/1.1", HttpMethod.POST, path,
                    new Headers.Builder().add("Content-Type", "application/json").build(), new Buffer(body.getBytes(StandardCharsets.UTF_8))));
            if (r.code() >= 300) {
                throw new IllegalStateException("the CRUD mock refused to create on " + path + ": " + r.code());
            }
        }
    }

    private List<String> builtInClusterRoles() {
        PolicyRule all = new PolicyRuleBuilder().withApiGroups("*").withResources("*").withVerbs("*").build();
        PolicyRule nonResource = new PolicyRuleBuilder().withNonResourceURLs("*").withVerbs("*").build();
        PolicyRule read = new PolicyRuleBuilder().withApiGroups("", "apps", "batch").withResources("*").withVerbs("get", "list", "watch").build();
        PolicyRule write = new PolicyRuleBuilder().withApiGroups("", "apps", "batch")
                .withResources("pods", "services", "configmaps", "secrets", "deployments", "jobs", "statefulsets")
                .withVerbs("create", "delete", "deletecollection", "patch", "update").build();
        return List.of(
                clusterRole("cluster-admin", all, nonResource),
                clusterRole("admin", read, write),
                clusterRole("edit", read, write),
                clusterRole("view", read),
                clusterRole("system:basic-user", new PolicyRuleBuilder().withApiGroups("authorization.k8s.io")
                        .withResources("selfsubjectaccessreviews", "selfsubjectrulesreviews").withVerbs("create").build()),
                clusterRole("system:discovery", new PolicyRuleBuilder().withNonResourceURLs("/api", "/api/*", "/apis", "/apis/*", "/version")
                        .withVerbs("get").build()));
    }

    private String clusterRole(String name, PolicyRule... rules) {
        return json.asJson(new ClusterRoleBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/bootstrapping", "rbac-defaults").endMetadata().withRules(rules).build());
    }

    private static java.util.logging.Logger quiet() {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(MockWebServer.class.getName());
        logger.setLevel(java.util.logging.Level.WARNING);
        return logger;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MockResponse ok(String body) {
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(body);
    }

    private static MockResponse status(int code, String reason, String message) {
        String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                + quote(message) + ",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
