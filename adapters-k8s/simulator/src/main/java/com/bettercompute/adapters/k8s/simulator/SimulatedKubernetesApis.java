package com.bettercompute.adapters.k8s.simulator;

import com.bettercompute.domain.catalog.Locations;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.text.ParseException;
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
 * <p>Added to what the CRUD mock does: every request must carry a bearer token (else 401): the admin token
 * of this server ({@link #adminToken()}, the platform's credential), a ServiceAccount token minted by
 * TokenRequest for that cluster, in force and whose account still stands, or an ID token of an issuer the
 * cluster's Identity Service configuration names ({@link IdentityService}); TokenRequest itself (RS256 JWTs with the cluster as
 * their issuer, at least 10 minutes as Kubernetes requires), with each cluster's public OIDC discovery
 * document and JWKS; TokenReview; the discovery documents and {@code /version} that {@code kubectl}
 * needs; one Node per node of each node pool as the GKE simulator has them, following resizes; the
 * built-in ClusterRoles; and a coarse reading of the built-in roles bound to the caller's user, groups or
 * service account ({@link Rbac}; 403 with kube-apiserver's message otherwise).
 *
 * <p>Writes go through the admission webhooks registered in the cluster as kube-apiserver sends them
 * ({@link AdmissionWebhooks}), the simulated Job controller's pods included.
 *
 * <p>This is an API-shape stand-in, not Kubernetes: see the project's notes on the fabric8 mock.
 */
public final class SimulatedKubernetesApis implements AutoCloseable {
    /**
     * What the GKE simulator says about a cluster: its node pools as the nodes they make, or null when no
     * such cluster runs. Called on requests that read nodes, at every {@link #step()}, and to find a
     * cluster on its first request.
     */
    @FunctionalInterface
    public interface NodeSource {
        Map<String, NodePool> nodePools(String project, String location, String cluster);

        /**
         * The cluster's control plane version as its provider names it ({@code 1.33.5-gke.1080000}), what
         * {@code /version} reports; null when not known (the simulated server's own, {@code v1.32.0}).
         */
        default String masterVersion(String project, String location, String cluster) {
            return null;
        }

        /**
         * Whether the cluster has Identity Service for GKE enabled: then its API serves the {@code ClientConfig} kind and
         * holds the {@code default} one in {@code kube-public}, and trusts the ID tokens of the issuers that object names
         * (and no other). False when not known.
         */
        default boolean identityService(String project, String location, String cluster) {
            return false;
        }

        /** Pools known by their node counts only: plain nodes, no labels, taints or GPUs. */
        static NodeSource ofCounts(Counts counts) {
            return (project, location, cluster) -> {
                Map<String, Integer> byPool = counts.nodeCounts(project, location, cluster);
                if (byPool == null) {
                    return null;
                }
                Map<String, NodePool> out = new java.util.LinkedHashMap<>();
                byPool.forEach((pool, nodes) -> out.put(pool, NodePool.plain(nodes)));
                return out;
            };
        }

        /** Node counts by pool, or null when no such cluster runs. */
        @FunctionalInterface
        interface Counts {
            Map<String, Integer> nodeCounts(String project, String location, String cluster);
        }
    }

    /**
     * A node pool as its nodes show it: how many, the labels and taints GKE copies from the pool's node
     * config to each node, the GPUs each node has (its {@code nvidia.com/gpu} capacity), and the pool's GKE
     * version, which its nodes' kubelets report ({@code v} before it); null when not known.
     */
    public record NodePool(int nodes, Map<String, String> labels, List<Taint> taints, int gpusPerNode, String machineType,
                           String version) {
        public NodePool {
            labels = Map.copyOf(labels);
            taints = List.copyOf(taints);
        }

        public NodePool(int nodes, Map<String, String> labels, List<Taint> taints, int gpusPerNode, String machineType) {
            this(nodes, labels, taints, gpusPerNode, machineType, null);
        }

        public static NodePool plain(int nodes) {
            return new NodePool(nodes, Map.of(), List.of(), 0, "e2-standard-4");
        }

        /** What {@code kubectl get nodes} shows as VERSION: {@code v1.33.5-gke.1080000} for GKE's 1.33.5-gke.1080000. */
        String kubeletVersion() {
            // a pool of no known version: the simulated API server's own
            return version == null || version.isBlank() ? Discovery.KUBERNETES_VERSION : "v" + version;
        }
    }

    /**
     * The well-known topology labels of a node in a cluster of this location: its region, and for a zonal
     * cluster its zone ({@code us-central1-a} is in {@code us-central1}); a regional cluster's nodes are
     * spread over zones the simulator does not track, so they carry the region only.
     */
    static Map<String, String> topology(String location) {
        if (Locations.isZone(location)) {
            return Map.of("topology.kubernetes.io/region", Locations.regionOfZone(location),
                    "topology.kubernetes.io/zone", location);
        }
        return Map.of("topology.kubernetes.io/region", location);
    }

    /** A node taint as Kubernetes writes it: effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}. */
    public record Taint(String key, String value, String effect) {}

    /**
     * How the simulated clusters behave in time: a new node turns Ready {@code nodeReadyAfter} after it
     * appears; {@code provisioningBackoffBase} replaces the ProvisioningRequestConfig's back-off base
     * (Kueue's default 60 s) when not null, so a retried request comes sooner in tests and demos.
     */
    public record Settings(Duration nodeReadyAfter, Duration provisioningBackoffBase) {
        public static final Settings DEFAULTS = new Settings(Duration.ZERO, null);
    }

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubernetesApis.class);
    private static final Pattern ROUTE = Pattern.compile("^/clusters/([^/?]+)/([^/?]+)/([^/?]+)(/[^?]*)?(\\?.*)?$");
    private static final Pattern TOKEN_REQUEST = Pattern.compile("^/api/v1/namespaces/([^/]+)/serviceaccounts/([^/]+)/token$");
    private static final Pattern EVICTION = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction$");
    private static final Pattern POD_LOG = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/log$");
    private static final Pattern GROUP_VERSION = Pattern.compile("^/apis/([^/]+/[^/]+)/?$");
    private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    private static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    private static final String OIDC_DISCOVERY = "/.well-known/openid-configuration";
    private static final String OIDC_JWKS = "/openid/v1/jwks";
    /** Controller rounds per reconcile: enough for a change to go from Kueue through the Job to its pods and back. */
    private static final int MAX_ROUNDS = 6;
    /** Kubernetes refuses a TokenRequest for less than 10 minutes. */
    static final long MIN_EXPIRATION_SECONDS = 600;
    /** What a TokenRequest without expirationSeconds gets, as on Kubernetes. */
    static final long DEFAULT_EXPIRATION_SECONDS = 3600;
    static final String NODE_POOL_LABEL = "cloud.google.com/gke-nodepool";
    /** The node role labels, which only someone allowed to edit nodes may set, never the node's own kubelet. */
    static final String NODE_ROLE_PREFIX = "node-role.kubernetes.io/";
    /**
     * The user the admin token authenticates, as admission webhooks see it in {@code request.userInfo}
     * (a tenant's service account is {@code system:serviceaccount:<namespace>:<name>}).
     */
    public static final String PLATFORM_USER = "better-compute-platform";
    private static final AdmissionWebhooks.User PLATFORM_USER_INFO = new AdmissionWebhooks.User(PLATFORM_USER, null, List.of("system:authenticated"));
    /** Who the simulated Job controller's writes are, as kube-controller-manager's are with per-controller credentials. */
    private static final AdmissionWebhooks.User JOB_CONTROLLER = AdmissionWebhooks.User.serviceAccount("kube-system", "job-controller", null);
    /** How often a PATCH is admitted again when the object changed between its admission and its write. */
    private static final int PATCH_ATTEMPTS = 3;
    /** How many CRUD mock servers answer behind the TLS front (each on its own event loop). */
    private static final int BACKENDS = 4;

    /**
     * The mock server logs every request line through java.util.logging at INFO; kept at WARNING here (and
     * held, since JUL keeps loggers weakly). It never logs headers, so no token, but it is noise.
     */
    private static final java.util.logging.Logger MOCK_LOG = quiet();

    private final Clock clock;
    private final NodeSource nodeSource;
    private final Settings settings;
    /**
     * The CRUD mocks' HTTP servers behind the TLS front. Each answers on one Vert.x event loop, which a
     * request holds while its admission webhooks are called; with several, a webhook calling back into
     * the API and the other clusters' requests are served by another (see {@link #leastBusyBackend()}).
     */
    private final List<Backend> backends = new java.util.ArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger nextBackend = new java.util.concurrent.atomic.AtomicInteger();
    private final KubernetesSerialization json = new KubernetesSerialization();
    private final AdmissionWebhooks admission = new AdmissionWebhooks(json);
    private final Map<String, SimCluster> clusters = new ConcurrentHashMap<>();
    /** Each cluster as the issuer of its ServiceAccount tokens. */
    private final ServiceAccountIssuer serviceAccounts;
    /** Where the nodes find the NFS exports pods mount; none until {@link #nfsExports} says. */
    private volatile NfsExports nfsExports = NfsExports.NONE;
    /** The issuers the clusters' Identity Service configurations name, by URL: each one's keys read and cached once for all. */
    private final Map<String, OidcAuthenticator> issuers = new ConcurrentHashMap<>();
    /** Issuers a configuration named that cannot be trusted (not https off loopback), logged once each. */
    private final Set<String> untrusted = ConcurrentHashMap.newKeySet();
    private final String adminToken;
    private final String caBase64;
    /** Where clusters' objects and the server's identity are kept; null: in memory only. */
    private final SavedApis saved;
    private final TlsFront front;

    private SimulatedKubernetesApis(Clock clock, NodeSource nodeSource, Path stateDirectory, Settings settings) throws IOException {
        this.clock = clock;
        this.nodeSource = nodeSource;
        this.settings = settings;
        this.saved = stateDirectory == null ? null : new SavedApis(stateDirectory, json);
        ServerIdentity identity = saved == null ? null : saved.identity();
        if (identity == null) {
            identity = ServerIdentity.generate(clock);
        }
        byte[] admin = new byte[24];
        new SecureRandom().nextBytes(admin);
        // The platform's own credential is new at every start: the platform asks for it again, nobody else holds it.
        this.adminToken = "bcsim-admin." + Base64.getUrlEncoder().withoutPadding().encodeToString(admin);
        this.caBase64 = Base64.getEncoder().encodeToString(identity.certificatePem().getBytes(StandardCharsets.US_ASCII));
        try {
            for (int i = 0; i < BACKENDS; i++) {
                Router router = new Router();
                MockWebServer server = new MockWebServer();
                server.setDispatcher(router);
                backends.add(new Backend(server, router));
                server.start(InetAddress.getLoopbackAddress(), 0);
            }
            this.front = listen(identity, this::leastBusyBackend);
            this.serviceAccounts = new ServiceAccountIssuer(clock, identity.serviceAccountKey(), front.port());
            if (saved != null && front.port() != identity.port()) {
                saved.identity(identity.withPort(front.port()));
            }
        } catch (IOException | RuntimeException e) {
            backends.forEach(b -> b.server().shutdown());
            throw e;
        }
    }

    /** One of the CRUD mocks' HTTP servers and the router it dispatches with. */
    private record Backend(MockWebServer server, Router router) {}

    /**
     * The port of a backend answering no request now (the fewest, taking turns among equals): a new
     * connection — a webhook's call back into the API among them — is not queued behind a request that
     * waits for its webhooks. A kept-alive connection stays on its backend.
     */
    private int leastBusyBackend() {
        int start = nextBackend.getAndIncrement();
        Backend best = null;
        for (int i = 0; i < backends.size(); i++) {
            Backend candidate = backends.get(Math.floorMod(start + i, backends.size()));
            if (best == null || candidate.router().busy.get() < best.router().busy.get()) {
                best = candidate;
            }
        }
        return best.server().getPort();
    }

    /** On the saved port if there is one (every cluster's endpoint names it), else on any free port. */
    private static TlsFront listen(ServerIdentity identity, java.util.function.IntSupplier backendPort) throws IOException {
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
        return start(clock, nodes, stateDirectory, Settings.DEFAULTS);
    }

    /** As {@link #start(Clock, NodeSource, Path)}, with these timings. */
    public static SimulatedKubernetesApis start(Clock clock, NodeSource nodes, Path stateDirectory, Settings settings) {
        try {
            return new SimulatedKubernetesApis(clock, nodes, stateDirectory, settings);
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

    /**
     * Where every cluster's nodes find the NFS exports their pods mount (the Filestore simulator's shares, on the
     * embedded default): a {@code hostPath} a pod mounts an export onto is that export's directory on that node.
     */
    public void nfsExports(NfsExports exports) {
        this.nfsExports = exports == null ? NfsExports.NONE : exports;
    }

    /** The CA of every simulated cluster: base64 of the server certificate's PEM, as GKE reports a CA. */
    public String caCertificateBase64() {
        return caBase64;
    }

    /** The platform's credential for every simulated cluster. A secret: never log it. */
    public String adminToken() {
        return adminToken;
    }

    /**
     * One round of what the clusters' controllers do, at the clock's time: nodes follow their pools and turn
     * Ready, Kueue queues and admits, the Job controller, the scheduler and the kubelets run pods, graceful
     * deletions come due. Changes made by a request are acted on at once; this moves what only time moves.
     * Call it regularly (the server does, every second); a cluster whose provider cluster is gone is left alone.
     */
    /**
     * What kube-proxy on a node answers to a health check on {@code port}: kube-proxy's own health port (10256) is
     * healthy while the node is Ready; a Service's {@code healthCheckNodePort} is healthy when the node runs a Running
     * pod the Service selects. False for a node no started cluster has.
     */
    public boolean nodeServes(String node, int port) {
        for (SimCluster cluster : clusters.values()) {
            synchronized (cluster) {
                if (cluster.nodes.contains(node)) {
                    return cluster.services.serves(node, port);
                }
            }
        }
        return false;
    }

    public void step() {
        for (SimCluster cluster : clusters.values()) {
            Map<String, NodePool> pools = nodeSource.nodePools(cluster.project, cluster.location, cluster.name);
            if (pools == null) {
                continue;
            }
            try {
                cluster.step(pools);
                cluster.admitJobPods();
            } catch (RuntimeException e) {
                LOG.error("simulated Kubernetes API: the controllers of cluster {} failed a round", cluster.key(), e);
            }
        }
    }

    /** How many clusters have had their API started (by a first request). */
    public int startedClusters() {
        return clusters.size();
    }

    @Override
    public void close() {
        front.close();
        backends.forEach(b -> b.server().shutdown());
    }

    // ---------------------------------------------------------------- tokens

    /** Mints a token as TokenRequest does (audience: the cluster itself); tests use it for tokens shorter than the API allows. */
    public Minted mint(String project, String location, String cluster, String namespace, String serviceAccount, Duration ttl) {
        SimCluster started = clusters.get(clusterKey(project, location, cluster));
        Map<String, Object> account = started == null ? null
                : started.store.get("/api/v1/namespaces/" + namespace + "/serviceaccounts/" + serviceAccount);
        String uid = account == null ? null : Obj.str(account, "metadata", "uid");
        return serviceAccounts.mint(clusterKey(project, location, cluster), namespace, serviceAccount, uid, List.of(), ttl);
    }

    /** A minted token and its expiry. {@link #toString()} hides the token. */
    public record Minted(String token, Instant expiresAt) {
        @Override
        public String toString() {
            return "Minted[token=<redacted>, expiresAt=" + expiresAt + "]";
        }
    }

    /** The issuer's authenticator, or null when a configuration named an issuer that cannot be trusted. */
    private OidcAuthenticator issuer(String url) {
        OidcAuthenticator known = issuers.get(url);
        if (known != null) {
            return known;
        }
        try {
            return issuers.computeIfAbsent(url, u -> OidcAuthenticator.trusting(URI.create(u), clock));
        } catch (IllegalArgumentException e) {
            if (untrusted.add(url)) {
                LOG.warn("simulated Kubernetes API: a ClientConfig names an issuer whose ID tokens are refused: {}", e.getMessage());
            }
            return null;
        }
    }

    /** The cluster's API, started on this first need of it; null when the provider runs no such cluster. */
    private SimCluster started(String project, String location, String cluster) {
        SimCluster known = clusters.get(clusterKey(project, location, cluster));
        if (known != null || nodeSource.nodePools(project, location, cluster) == null) {
            return known;
        }
        return clusters.computeIfAbsent(clusterKey(project, location, cluster), k -> new SimCluster(project, location, cluster));
    }

    /** The audience an ID token for this cluster must carry. */
    public static String audienceOf(String project, String location, String cluster) {
        return "projects/" + project + "/locations/" + location + "/clusters/" + cluster;
    }

    /** The issuer of the cluster's ServiceAccount tokens: its discovery document is at {@code <issuer>/.well-known/openid-configuration}. */
    public String serviceAccountIssuer(String project, String location, String cluster) {
        return serviceAccounts.issuer(clusterKey(project, location, cluster));
    }

    /**
     * Who the token is in this cluster and the audiences (among {@code audiences}) it was accepted for, or null:
     * not a token of this server, forged, another cluster's, expired, or for none of the audiences. Tokens that
     * know no audience (the admin token, ID tokens, which carry the cluster's own) count for the API's audience
     * (the cluster's issuer) alone, as kube-apiserver counts them.
     */
    private ServiceAccountIssuer.Verified authenticate(String token, String project, String location, String cluster, Set<String> audiences) {
        String key = clusterKey(project, location, cluster);
        List<String> api = audiences.contains(serviceAccounts.issuer(key)) ? List.of(serviceAccounts.issuer(key)) : List.of();
        if (MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), adminToken.getBytes(StandardCharsets.UTF_8))) {
            return api.isEmpty() ? null : new ServiceAccountIssuer.Verified(Caller.PLATFORM, api);
        }
        SignedJWT jwt;
        String issuer;
        try {
            jwt = SignedJWT.parse(token);
            issuer = jwt.getJWTClaimsSet().getIssuer();
        } catch (ParseException | RuntimeException e) {
            // anyone can send anything: what is not a signed JWT is no one
            return null;
        }
        if (serviceAccounts.issued(issuer)) {
            return serviceAccounts.verify(jwt, key, audiences);
        }
        SimCluster started = api.isEmpty() || issuer == null ? null : started(project, location, cluster);
        if (started == null) {
            return null;
        }
        for (OidcAuthenticator.Rules rules : started.identityServiceRules()) {
            OidcAuthenticator oidc = issuer.equals(rules.issuer()) ? issuer(rules.issuer()) : null;
            Caller person = oidc == null ? null : oidc.authenticate(jwt, rules);
            if (person != null) {
                return new ServiceAccountIssuer.Verified(person, api);
            }
        }
        return null;
    }

    private static String bearer(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return null;
        }
        String token = authorization.substring("Bearer ".length()).trim();
        return token.isEmpty() ? null : token;
    }

    // ---------------------------------------------------------------- routing

    private static String clusterKey(String project, String location, String cluster) {
        return project + "/" + location + "/" + cluster;
    }

    private final class Router extends Dispatcher {
        /** Requests this router is answering now (its server's one event loop answers one at a time). */
        final java.util.concurrent.atomic.AtomicInteger busy = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            busy.incrementAndGet();
            try {
                return route(request);
            } finally {
                busy.decrementAndGet();
            }
        }

        private MockResponse route(RecordedRequest request) {
            Matcher m = ROUTE.matcher(request.getPath());
            if (!m.matches()) {
                return status(404, "NotFound", "the path names no cluster: use /clusters/<project>/<location>/<cluster>/…");
            }
            String key = clusterKey(m.group(1), m.group(2), m.group(3));
            String path = m.group(4) == null ? "/" : m.group(4);
            if ("GET".equals(request.getMethod()) && (path.equals(OIDC_DISCOVERY) || path.equals(OIDC_JWKS))) {
                // Public, as GKE serves them: anyone may verify a workload's token outside the cluster.
                if (nodeSource.nodePools(m.group(1), m.group(2), m.group(3)) == null) {
                    return status(404, "NotFound", "no running cluster " + key);
                }
                return path.equals(OIDC_JWKS)
                        ? new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/jwk-set+json").setBody(serviceAccounts.jwks())
                        : ok(json.asJson(serviceAccounts.discovery(key)));
            }
            String token = bearer(request.getHeader("Authorization"));
            ServiceAccountIssuer.Verified verified = token == null ? null
                    : authenticate(token, m.group(1), m.group(2), m.group(3), Set.of(serviceAccounts.issuer(key)));
            if (verified == null) {
                // As kube-apiserver: no hint of why (expired, unknown, another cluster's).
                return status(401, "Unauthorized", "Unauthorized");
            }
            Caller caller = verified.caller();
            Map<String, NodePool> pools = nodeSource.nodePools(m.group(1), m.group(2), m.group(3));
            if (pools == null) {
                clusters.remove(key);
                return status(404, "NotFound", "no running cluster " + key);
            }
            SimCluster cluster = clusters.computeIfAbsent(key, k -> new SimCluster(m.group(1), m.group(2), m.group(3)));
            cluster.stepFirst(pools);
            String query = m.group(5) == null ? "" : m.group(5);
            try {
                MockResponse response = cluster.dispatch(caller, request, path, query, pools);
                if (response.getWebSocketListener() == null && response.header("Content-Type") == null) {
                    // The CRUD mock names no content type; client-go then reads the body as what it asked for first,
                    // protobuf for kubectl's typed calls (describe) — say JSON, which it is.
                    response.setHeader("Content-Type", "application/json");
                }
                return response;
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
        /** Whether the nodes were synced once since this cluster's API started (or was restored). */
        boolean synced;
        /** Whether the controllers have stepped once since this cluster's API started (or was restored). */
        private volatile boolean stepped;
        final ClusterStore store = new ClusterStore(crud, json);
        final SimulatedPods pods = new SimulatedPods(store, settings.nodeReadyAfter(), this::podAdmissionWanted);
        final SimulatedServices services = new SimulatedServices(store);
        final SimulatedKueue kueue = new SimulatedKueue(store, pods, settings.provisioningBackoffBase());
        final SimulatedDeployments deployments = new SimulatedDeployments(store, pods);
        final SimulatedStatefulSets statefulSets = new SimulatedStatefulSets(store, pods);
        final SimulatedDaemonSets daemonSets = new SimulatedDaemonSets(store, pods);
        final SimulatedJobSets jobSets = new SimulatedJobSets(store);
        final SimulatedMpiJobs mpiJobs = new SimulatedMpiJobs(store, pods);
        final SimulatedHostPaths hostPaths = new SimulatedHostPaths(store, () -> nfsExports);

        SimCluster(String project, String location, String name) {
            this.project = project;
            this.location = location;
            this.name = name;
            SavedApis.SavedCluster objects = load();
            if (objects != null) {
                restore(objects);
                synced = true;
                LOG.info("simulated Kubernetes API restored for cluster {}/{}/{}: {} objects", project, location, name,
                        objects.objects().size());
                return;
            }
            for (String ns : List.of("default", "kube-system", "kube-public")) {
                create("/api/v1/namespaces", json.asJson(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()));
            }
            builtInClusterRoles().forEach(role -> create("/apis/rbac.authorization.k8s.io/v1/clusterroles", role));
            // Kueue, JobSet and the MPI Operator are not here: they run once someone installs them, as on GKE.
            save();
            LOG.info("simulated Kubernetes API started for cluster {}/{}/{}", project, location, name);
        }

        private String key() {
            return clusterKey(project, location, name);
        }

        private SavedApis.SavedCluster load() {
            if (saved == null) {
                return null;
            }
            try {
                return saved.cluster(key());
            } catch (IOException e) {
                throw new UncheckedIOException("the saved objects of cluster " + key() + " cannot be read: " + e.getMessage(), e);
            }
        }

        /**
         * Puts saved objects back as they were (uids, resource versions and all), and moves the version counter past
         * them and the uid counter past every uid the cluster ever had.
         */
        private void restore(SavedApis.SavedCluster objects) {
            long newest = 0;
            long uidsBelow = objects.uidsBelow();
            for (SavedApis.StoredObject object : objects.objects()) {
                crud.getMap().put(object.key(), object.json());
                GenericKubernetesResource resource = json.unmarshal(object.json(), GenericKubernetesResource.class);
                String version = resource.getMetadata() == null ? null : resource.getMetadata().getResourceVersion();
                if (version != null && version.matches("\\d{1,18}")) {
                    newest = Math.max(newest, Long.parseLong(version));
                }
                uidsBelow = Math.max(uidsBelow, Uids.counted(resource.getMetadata() == null ? null : resource.getMetadata().getUid()) + 1);
                if ("Node".equals(resource.getKind())) {
                    nodes.add(resource.getMetadata().getName());
                }
                if ("CustomResourceDefinition".equals(resource.getKind())) {
                    // The mock learns a CRD's status subresource when the CRD is created through it, not from its map.
                    crud.expectCustomResource(CustomResourceDefinitionContext.fromCrd(json.unmarshal(object.json(),
                            io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class)));
                }
            }
            while (crud.requestResourceVersion() < newest) {
                // each call takes one version; a cluster holds a few hundred objects at most
            }
            Uids.skipBelow(uidsBelow);
        }

        /** Makes the cluster's objects durable as they are now; called before a change is answered. */
        private synchronized void save() {
            if (saved == null) {
                return;
            }
            try {
                saved.cluster(key(), crud.getMap(), Uids.above());
            } catch (IOException e) {
                throw new UncheckedIOException("the objects of cluster " + key() + " could not be saved: " + e.getMessage(), e);
            }
        }

        /** One round of the simulated controllers over this cluster's objects, then a save if anything changed. */
        synchronized void step(Map<String, NodePool> pools) {
            syncNodes(pools);
            installIdentityService();
            reconcile();
            stepped = true;
        }

        /**
         * The controllers' first step, before the first request is answered: a request arriving while another runs it
         * waits for it, so no caller sees the cluster before its nodes and add-ons (the Identity Service kinds among them)
         * are there.
         */
        void stepFirst(Map<String, NodePool> pools) {
            if (stepped) {
                return;
            }
            synchronized (this) {
                if (!stepped) {
                    step(pools);
                }
            }
        }

        /**
         * What Identity Service for GKE adds to a cluster once it is enabled: the {@code ClientConfig} kind and the
         * {@code default} one; the platform then writes its issuer into it.
         */
        private void installIdentityService() {
            if (!nodeSource.identityService(project, location, name) || store.get(CRDS + "/" + IdentityService.CRD) != null) {
                return;
            }
            String crd = json.asJson(IdentityService.crd());
            create(CRDS, crd);
            crud.expectCustomResource(CustomResourceDefinitionContext.fromCrd(json.unmarshal(crd,
                    io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class)));
            if (store.get(IdentityService.DEFAULT) == null) {
                create(IdentityService.CLIENT_CONFIGS, json.asJson(IdentityService.defaultClientConfig(name,
                        "https://" + endpointFor(project, location, name), caBase64)));
            }
            save();
        }

        /** The OIDC entries of the cluster's Identity Service configuration; none while Identity Service is not enabled. */
        synchronized List<OidcAuthenticator.Rules> identityServiceRules() {
            return nodeSource.identityService(project, location, name) ? IdentityService.rules(store) : List.of();
        }

        /** The controllers' rounds until nothing changes (at most a few: each round's changes feed the next). */
        private synchronized void reconcile() {
            Instant now = clock.instant();
            boolean changed = false;
            // what runs is read once per reconcile: an add-on that turns ready here runs from the next one
            InstalledComponents.Running running = InstalledComponents.read(store);
            for (int round = 0; round < MAX_ROUNDS; round++) {
                // Kueue first: a Job it queues is suspended before the Job controller makes its pods.
                kueue.reconcile(now, running);
                deployments.reconcile(now);
                statefulSets.reconcile(now);
                daemonSets.reconcile(now);
                if (running.jobSet()) {
                    jobSets.reconcile(now);
                }
                if (running.mpiOperator()) {
                    mpiJobs.reconcile(now);
                }
                pods.reconcile(now);
                services.reconcile();
                if (!store.takeChanged()) {
                    break;
                }
                changed = true;
            }
            // the nodes' file systems: what the pods running now mount and write
            hostPaths.reconcile();
            if (changed) {
                save();
            }
        }

        MockResponse dispatch(Caller caller, RecordedRequest request, String path, String query, Map<String, NodePool> pools) {
            String method = request.getMethod();
            if (!stands(caller)) {
                return status(401, "Unauthorized", "Unauthorized");
            }
            RequestAttributes attributes = RequestAttributes.of(method, path, query);
            if (!Rbac.allows(store, caller, attributes)) {
                return forbidden(attributes, caller.user());
            }
            if ("GET".equals(method)) {
                switch (path) {
                    case "/version", "/version/": return ok(Discovery.version(nodeSource.masterVersion(project, location, name)));
                    case "/api", "/api/": return ok(Discovery.API);
                    case "/apis", "/apis/": return ok(json.asJson(Discovery.groups(store.list(CRDS))));
                    case "/api/v1", "/api/v1/": return ok(json.asJson(Discovery.resources("v1", List.of())));
                    default: break;
                }
                if (path.equals("/openapi/v3")) {
                    return ok(json.asJson(Discovery.openApiIndex(store.list(CRDS))));
                }
                if (path.startsWith("/openapi/v3/api/") || path.startsWith("/openapi/v3/apis/")) {
                    String gv = path.substring(path.startsWith("/openapi/v3/api/") ? "/openapi/v3/api/".length() : "/openapi/v3/apis/".length());
                    Map<String, Object> document = Discovery.openApi(gv, store.list(CRDS));
                    if (document != null) {
                        return ok(json.asJson(document));
                    }
                }
                if (!path.startsWith("/api/") && !path.startsWith("/apis/")) {
                    // The CRUD mock answers any path with some list; kube-apiserver says what it does not serve (the
                    // OpenAPI documents among them: kubectl then validates nothing on its side and goes on).
                    return status(404, "NotFound", "the server could not find the requested resource");
                }
                Matcher groupVersion = GROUP_VERSION.matcher(path);
                if (groupVersion.matches()) {
                    Map<String, Object> resources = Discovery.resources(groupVersion.group(1), store.list(CRDS));
                    return resources == null ? status(404, "NotFound", "the server could not find the requested resource")
                            : ok(json.asJson(resources));
                }
            }
            String contentType = request.getHeader("Content-Type");
            if (contentType != null && contentType.contains("protobuf")) {
                // kubectl's typed commands (create namespace, auth whoami…) send protobuf, which the CRUD mock
                // cannot read; kubectl create -f FILE sends JSON.
                return status(415, "UnsupportedMediaType", "the simulated Kubernetes API reads JSON only; "
                        + "use kubectl create -f FILE (add --validate=false)");
            }
            if (path.equals(TOKEN_REVIEWS)) {
                return "POST".equals(method) ? tokenReview(request)
                        : status(405, "MethodNotAllowed", "tokenreviews only take POST");
            }
            Matcher token = TOKEN_REQUEST.matcher(path);
            if (token.matches()) {
                return "POST".equals(method) ? tokenRequest(token.group(1), token.group(2), request)
                        : status(405, "MethodNotAllowed", "the token subresource only takes POST");
            }
            if (path.startsWith("/api/v1/nodes")) {
                synchronized (this) {
                    if (syncNodes(pools)) {
                        reconcile();
                        save();
                    }
                }
            }
            if ("GET".equals(method)) {
                return read(path, query, request);
            }
            String eventsPath = EventForms.corePath(path);
            if (eventsPath != null) {
                return writeEvent(method, eventsPath, query, request);
            }
            RecordedRequest forwarded = new RecordedRequest(request.getHttpVersion(), request.method(), path + query,
                    request.getHeaders(), request.getBody());
            MockResponse response = null;
            List<String> warnings = List.of();
            ApiPath target = ApiPath.of(path);
            for (int attempt = 1; response == null; attempt++) {
                // Admission first, with no lock held: a webhook may call back into this cluster's API.
                Admission admitted = target == null ? null : admit(caller, method, target, query, contentType, request);
                if (admitted == null) {
                    response = write(method, path, contentType, forwarded, request);
                } else if (admitted.verdict() instanceof AdmissionWebhooks.Refused refused) {
                    return withWarnings(new MockResponse().setResponseCode(refused.code()).setHeader("Content-Type", "application/json")
                            .setBody(json.asJson(refused.status())), refused.warnings());
                } else {
                    warnings = admitted.verdict().warnings();
                    MockResponse written = writeAdmitted(method, path, forwarded, admitted);
                    boolean raced = written.code() == 409 && "PATCH".equals(method) && attempt < PATCH_ATTEMPTS;
                    response = raced ? null : written;
                }
            }
            admitJobPods();
            return withWarnings(response, warnings);
        }

        /**
         * A read: a pod's log; an object or a list, filtered by its field selector (which the CRUD mock cannot
         * read but for names), in the {@code events.k8s.io/v1} form when asked so, as the Table {@code kubectl get}
         * asks for. A watch goes to the CRUD mock as it came (core Events only).
         */
        private MockResponse read(String path, String query, RecordedRequest request) {
            Matcher log = POD_LOG.matcher(path);
            if (log.matches()) {
                Map<String, Object> pod = store.get("/api/v1/namespaces/" + log.group(1) + "/pods/" + log.group(2));
                if (pod == null) {
                    return status(404, "NotFound", "pods \"" + log.group(2) + "\" not found");
                }
                PodLogs.Answer answer = PodLogs.of(pod, FieldSelector.param(query, "container"));
                return answer.code() == 200
                        ? new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody(answer.text())
                        : status(answer.code(), "BadRequest", answer.text());
            }
            boolean watch = query.matches(".*[?&]watch=(true|1)(&.*)?");
            String eventsPath = EventForms.corePath(path);
            if (watch && eventsPath != null) {
                return status(405, "MethodNotAllowed", "the simulated Kubernetes API watches Events in their core v1 form only");
            }
            String accept = request.getHeader("Accept");
            String plural = accept != null && accept.contains("as=Table") && !watch ? tablePlural(path) : null;
            FieldSelector selector = watch ? FieldSelector.NONE : FieldSelector.of(query);
            String read = (eventsPath != null ? eventsPath : path) + (selector.none() ? query : FieldSelector.without(query));
            MockResponse answer = crud.dispatch(new RecordedRequest(request.getHttpVersion(), request.method(), read,
                    request.getHeaders(), request.getBody()));
            if (watch || answer.code() != 200 || answer.getBody() == null || plural == null && selector.none() && eventsPath == null) {
                return answer;
            }
            Map<String, Object> body = store.parse(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8));
            if (body.containsKey("items")) {
                body.put("items", Obj.list(body.get("items")).stream().map(Obj::map).filter(selector::matches).toList());
                // the CRUD mock says "List", which a typed client (kubectl describe's Events, a node's pods) cannot read
                ApiPath target = ApiPath.of(eventsPath != null ? eventsPath : path);
                String kind = target == null ? null : Discovery.kindOf(target.group().isEmpty() ? target.version()
                        : target.group() + "/" + target.version(), target.resource(), store.list(CRDS));
                if (kind != null) {
                    body.put("kind", kind + "List");
                }
            }
            if (eventsPath != null) {
                body = EventForms.toEventsApi(body);
            }
            if (plural == null) {
                return ok(json.asJson(body));
            }
            List<Map<String, Object>> items = body.containsKey("items")
                    ? Obj.list(body.get("items")).stream().map(Obj::map).toList() : List.of(body);
            return ok(json.asJson(Tables.table(plural, items, Obj.str(body, "metadata", "resourceVersion"), clock.instant())));
        }

        /** A write of an Event in the {@code events.k8s.io/v1} form: stored in the core form, answered in its own. */
        private MockResponse writeEvent(String method, String corePath, String query, RecordedRequest request) {
            if (!"POST".equals(method) && !"PUT".equals(method) && !"DELETE".equals(method)) {
                return status(405, "MethodNotAllowed", "the simulated Kubernetes API takes events.k8s.io/v1 Events "
                        + "by create, update and delete; patch them in their core v1 form");
            }
            Buffer body = request.getBody();
            if (!"DELETE".equals(method)) {
                Map<String, Object> event;
                try {
                    event = store.parse(new String(body.getBytes(), StandardCharsets.UTF_8));
                } catch (RuntimeException e) {
                    return status(400, "BadRequest", "the body is not an Event");
                }
                body = new Buffer(json.asJson(EventForms.toCore(event)).getBytes(StandardCharsets.UTF_8));
            }
            RecordedRequest core = new RecordedRequest(request.getHttpVersion(), request.method(), corePath + query,
                    new Headers.Builder().add("Content-Type", "application/json").build(), body);
            MockResponse written = write(method, corePath, "application/json", core, core);
            if (written.code() >= 300 || written.getBody() == null || "DELETE".equals(method)) {
                return written;
            }
            Map<String, Object> stored = store.parse(new String(written.getBody().getBytes(), StandardCharsets.UTF_8));
            return new MockResponse().setResponseCode(written.code()).setHeader("Content-Type", "application/json")
                    .setBody(json.asJson(EventForms.toEventsApi(stored)));
        }

        /** A change and the save of the objects it leaves, as one step: a later save never holds less. */
        private synchronized MockResponse write(String method, String path, String contentType, RecordedRequest forwarded, RecordedRequest request) {
            MockResponse response;
            Matcher eviction = EVICTION.matcher(path);
            if (eviction.matches()) {
                response = "POST".equals(method) ? evict(eviction.group(1), eviction.group(2), request)
                        : status(405, "MethodNotAllowed", "the eviction subresource only takes POST");
            } else if ("PATCH".equals(method) && contentType != null
                    && (contentType.startsWith("application/merge-patch+json") || contentType.startsWith("application/strategic-merge-patch+json"))) {
                response = mergePatch(path, contentType, request);
            } else {
                response = crud.dispatch(services.beforeWrite(method, path, forwarded, json));
            }
            if (response.code() < 400) {
                save();
                reconcile();
            }
            return response;
        }

        /** Admission's answer, and the resource version the object had when a PATCH was applied to it for admission. */
        private record Admission(AdmissionWebhooks.Verdict verdict, String resourceVersion) {}

        /**
         * Runs the admission webhooks for a write, or null when none is registered for it (then the write goes on
         * as it came) or this simulator cannot see what the write would store (the CRUD mock answers it).
         * DELETE of a collection is not admitted.
         */
        private Admission admit(Caller caller, String method, ApiPath target, String query, String contentType, RecordedRequest request) {
            String operation = switch (method) {
                case "POST" -> "CREATE";
                case "PUT", "PATCH" -> "UPDATE";
                case "DELETE" -> "DELETE";
                default -> null;
            };
            if (operation == null || target.isWebhookConfiguration() || (target.name() == null && !"CREATE".equals(operation))) {
                return null;
            }
            List<Map<String, Object>> mutating = store.list(AdmissionWebhooks.MUTATING);
            List<Map<String, Object>> validating = store.list(AdmissionWebhooks.VALIDATING);
            WebhookRules.Request bare = new WebhookRules.Request(operation, target.group(), target.version(), target.resource(),
                    target.subResource(), target.namespace(), null, null);
            if (!AdmissionWebhooks.anyRule(mutating, bare) && !AdmissionWebhooks.anyRule(validating, bare)) {
                return null;
            }
            Map<String, Object> old = "CREATE".equals(operation) ? null : store.get(target.objectPath());
            String body = request.getBody() == null ? "" : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
            Map<String, Object> object;
            Map<String, Object> options;
            try {
                switch (operation) {
                    case "CREATE" -> {
                        object = store.parse(body);
                        if (object != null && target.subResource() == null && target.namespace() != null && !"namespaces".equals(target.resource())) {
                            Obj.child(object, "metadata").putIfAbsent("namespace", target.namespace());
                        }
                        options = options("CreateOptions", query);
                    }
                    case "UPDATE" -> {
                        object = old == null ? null : "PATCH".equals(method) ? patched(old, contentType, body) : store.parse(body);
                        options = options("UpdateOptions", query);
                    }
                    default -> {
                        object = null;
                        options = body.isBlank() ? options("DeleteOptions", query) : store.parse(body);
                    }
                }
            } catch (RuntimeException e) {
                return null;
            }
            if (object == null && !"DELETE".equals(operation) || "DELETE".equals(operation) && old == null) {
                return null;
            }
            Map<String, Object> typed = object != null ? object : old;
            String apiVersion = Obj.str(typed, "apiVersion");
            String kindGroup = target.group();
            String kindVersion = target.version();
            if (apiVersion != null) {
                int slash = apiVersion.indexOf('/');
                kindGroup = slash < 0 ? "" : apiVersion.substring(0, slash);
                kindVersion = apiVersion.substring(slash + 1);
            }
            String kind = Obj.str(typed, "kind") == null ? "" : Obj.str(typed, "kind");
            String objectName = target.name() != null ? target.name() : Obj.name(object);
            AdmissionWebhooks.Attributes attributes = new AdmissionWebhooks.Attributes(
                    new WebhookRules.Request(operation, target.group(), target.version(), target.resource(), target.subResource(),
                            target.namespace(), object, old),
                    kindGroup, kindVersion, kind, objectName, user(caller), query.contains("dryRun=All"), options);
            AdmissionWebhooks.Verdict verdict = admission.admit(mutating, validating, attributes, this::namespaceLabels, this::serveLocally);
            return new Admission(verdict, old == null ? null : Obj.str(old, "metadata", "resourceVersion"));
        }

        /** Stores what admission let through: the (mutated) object for a create, an update or a patch; a DELETE as it came. */
        private synchronized MockResponse writeAdmitted(String method, String path, RecordedRequest forwarded, Admission admitted) {
            Map<String, Object> object = services.beforeWrite(method, path, ((AdmissionWebhooks.Admitted) admitted.verdict()).object());
            MockResponse response;
            if ("PATCH".equals(method)) {
                response = storePatched(path, object, admitted.resourceVersion());
            } else if (object == null) {
                response = crud.dispatch(forwarded);
            } else {
                RecordedRequest rewritten = new RecordedRequest(forwarded.getHttpVersion(), forwarded.method(), forwarded.getPath(),
                        new Headers.Builder().add("Content-Type", "application/json").build(),
                        new Buffer(json.asJson(object).getBytes(StandardCharsets.UTF_8)));
                Matcher eviction = EVICTION.matcher(path);
                response = eviction.matches() ? evict(eviction.group(1), eviction.group(2), rewritten) : crud.dispatch(rewritten);
            }
            if (response.code() < 400) {
                save();
                reconcile();
            }
            return response;
        }

        /** The Job controller's pods waiting for admission: admitted with no lock held, then created or refused. */
        void admitJobPods() {
            List<Map<String, Object>> waiting;
            synchronized (this) {
                waiting = pods.takeAwaiting();
            }
            if (waiting.isEmpty()) {
                return;
            }
            List<Map<String, Object>> mutating = store.list(AdmissionWebhooks.MUTATING);
            List<Map<String, Object>> validating = store.list(AdmissionWebhooks.VALIDATING);
            List<AdmissionWebhooks.Verdict> verdicts = new java.util.ArrayList<>();
            Set<Object> refusedJobs = new java.util.HashSet<>();
            try {
                for (Map<String, Object> pod : waiting) {
                    Object job = Obj.map(Obj.list(Obj.at(pod, "metadata", "ownerReferences")).get(0)).get("uid");
                    if (refusedJobs.contains(job)) {
                        // As the Job controller, which stops making a Job's pods at its first error: no call, no event.
                        verdicts.add(null);
                        continue;
                    }
                    AdmissionWebhooks.Attributes attributes = new AdmissionWebhooks.Attributes(podCreate(pod), "", "v1", "Pod",
                            Obj.name(pod), controllerUser(pod), false, options("CreateOptions", ""));
                    AdmissionWebhooks.Verdict verdict = admission.admit(mutating, validating, attributes, this::namespaceLabels,
                            this::serveLocally);
                    if (verdict instanceof AdmissionWebhooks.Refused) {
                        refusedJobs.add(job);
                    }
                    verdicts.add(verdict);
                }
            } finally {
                synchronized (this) {
                    Instant now = clock.instant();
                    for (int i = 0; i < waiting.size(); i++) {
                        AdmissionWebhooks.Verdict verdict = i < verdicts.size() ? verdicts.get(i) : null;
                        if (verdict instanceof AdmissionWebhooks.Admitted admitted) {
                            pods.admitted(waiting.get(i), admitted.object());
                        } else {
                            pods.refused(waiting.get(i), verdict instanceof AdmissionWebhooks.Refused r ? r.message() : null, now);
                        }
                    }
                    reconcile();
                }
            }
        }

        /**
         * The webhook Services of the add-ons this cluster runs as doubles: Kueue's mutations, JobSet's (which add
         * nothing the double needs); a Service of an add-on that is not running has no endpoints.
         */
        private Object serveLocally(String namespace, String service, AdmissionWebhooks.Attributes attributes) {
            InstalledComponents.Running running = InstalledComponents.read(store);
            if (!running.serves(namespace, service)) {
                return new AdmissionWebhooks.NotServed();
            }
            if (InstalledComponents.KUEUE.webhookService().equals(service)) {
                return kueue.mutate(attributes.request().operation(), attributes.kind(), attributes.request().object(), running);
            }
            return null;
        }

        /** Who makes a controller's pods, as kube-controller-manager's per-controller credentials name it. */
        private static AdmissionWebhooks.User controllerUser(Map<String, Object> pod) {
            Map<String, Object> owner = SimulatedPods.controllerOf(pod);
            String kind = owner == null ? "Job" : String.valueOf(owner.get("kind"));
            return switch (kind) {
                case "Job" -> JOB_CONTROLLER;
                case "ReplicaSet" -> AdmissionWebhooks.User.serviceAccount("kube-system", "replicaset-controller", null);
                case "StatefulSet" -> AdmissionWebhooks.User.serviceAccount("kube-system", "statefulset-controller", null);
                case "DaemonSet" -> AdmissionWebhooks.User.serviceAccount("kube-system", "daemon-set-controller", null);
                default -> AdmissionWebhooks.User.serviceAccount("mpi-operator", "mpi-operator", null);
            };
        }

        /** Whether a pod the Job controller makes has webhooks to go through (by their rules; selectors are read at admission). */
        private boolean podAdmissionWanted(Map<String, Object> pod) {
            WebhookRules.Request create = podCreate(pod);
            return AdmissionWebhooks.anyRule(store.list(AdmissionWebhooks.MUTATING), create)
                    || AdmissionWebhooks.anyRule(store.list(AdmissionWebhooks.VALIDATING), create);
        }

        private static WebhookRules.Request podCreate(Map<String, Object> pod) {
            return new WebhookRules.Request("CREATE", "", "v1", "pods", null, Obj.namespace(pod), pod, null);
        }

        private Map<String, Object> namespaceLabels(String namespace) {
            Map<String, Object> labels = new java.util.LinkedHashMap<>(Obj.labels(Obj.map(store.get("/api/v1/namespaces/" + namespace))));
            // kube-apiserver gives every namespace this label, which webhooks' namespace selectors name
            labels.put("kubernetes.io/metadata.name", namespace);
            return labels;
        }

        /** The caller as {@code request.userInfo}: the platform, or the user its token authenticated (a service account, a person). */
        private AdmissionWebhooks.User user(Caller caller) {
            if (caller == Caller.PLATFORM) {
                return PLATFORM_USER_INFO;
            }
            return new AdmissionWebhooks.User(caller.user(), caller.uid(), caller.groups());
        }

        /** The request's options as AdmissionReview carries them: the kind of options, and the field manager if one is named. */
        private static Map<String, Object> options(String kind, String query) {
            Map<String, Object> options = new java.util.LinkedHashMap<>();
            options.put("kind", kind);
            options.put("apiVersion", "meta.k8s.io/v1");
            Matcher manager = Pattern.compile("[?&]fieldManager=([^&]*)").matcher(query);
            if (manager.find()) {
                options.put("fieldManager", java.net.URLDecoder.decode(manager.group(1), StandardCharsets.UTF_8));
            }
            return options;
        }

        /** The resource a GET reads, when it reads a collection or one object of it (no subresource); else null. */
        private static String tablePlural(String path) {
            String[] parts = path.replaceAll("/+$", "").split("/");
            int start = parts.length > 1 && "api".equals(parts[1]) ? 3 : 4;
            if (parts.length <= start) {
                return null;
            }
            List<String> rest = List.of(parts).subList(start, parts.length);
            if ("namespaces".equals(rest.get(0)) && rest.size() >= 3) {
                rest = rest.subList(2, rest.size());
            }
            return rest.size() <= 2 ? rest.get(0) : null;
        }

        /**
         * The Eviction API (policy/v1), which the CRUD mock lacks: the pod gets its deletion time, its grace
         * from now (the request's {@code deleteOptions.gracePeriodSeconds}, else the pod's
         * {@code terminationGracePeriodSeconds}, else 30 s), and goes then. PodDisruptionBudgets are not read.
         */
        private MockResponse evict(String namespace, String pod, RecordedRequest request) {
            Map<String, Object> found = store.get("/api/v1/namespaces/" + namespace + "/pods/" + pod);
            if (found == null) {
                return status(404, "NotFound", "pods \"" + pod + "\" not found");
            }
            Map<String, Object> body;
            try {
                byte[] bytes = request.getBody() == null ? new byte[0] : request.getBody().getBytes();
                body = bytes.length == 0 ? Map.of() : store.parse(new String(bytes, StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                return status(400, "BadRequest", "the body is not an Eviction");
            }
            long grace = Obj.num(body, SimulatedPods.graceOf(found), "deleteOptions", "gracePeriodSeconds");
            pods.terminate(found, grace, clock.instant());
            store.takeChanged();
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json")
                    .setBody(KubeStatus.json(KubeStatus.success(201)));
        }

        /** A JSON merge or strategic merge patch, applied here (see {@link MergePatch}) and stored as an update. */
        private MockResponse mergePatch(String path, String contentType, RecordedRequest request) {
            String objectPath = path.endsWith("/status") ? path.substring(0, path.length() - "/status".length()) : path;
            Map<String, Object> current = store.get(objectPath);
            if (current == null) {
                return status(404, "NotFound", "the object at " + objectPath + " was not found");
            }
            Map<String, Object> patched;
            try {
                patched = patched(current, contentType, new String(request.getBody().getBytes(), StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                return status(400, "BadRequest", "the body is not a JSON object");
            }
            return storePatched(path, patched, Obj.str(current, "metadata", "resourceVersion"));
        }

        /**
         * The object a PATCH leaves when applied to {@code current}: a JSON merge patch, a strategic merge patch
         * (see {@link MergePatch}) or a JSON Patch; null for a patch type this simulator does not apply.
         */
        private Map<String, Object> patched(Map<String, Object> current, String contentType, String body) {
            if (contentType == null) {
                return null;
            }
            if (contentType.startsWith("application/json-patch+json")) {
                JsonNode result = JsonPatch.apply(json.unmarshal(body, JsonNode.class), json.convertValue(current, JsonNode.class));
                return Obj.map(json.convertValue(result, Map.class));
            }
            boolean strategic = contentType.startsWith("application/strategic-merge-patch+json");
            if (!strategic && !contentType.startsWith("application/merge-patch+json")) {
                return null;
            }
            Map<String, Object> patch = store.parse(body);
            return Obj.map(strategic ? MergePatch.strategic(Obj.copy(current), patch) : MergePatch.json(Obj.copy(current), patch));
        }

        /** Stores a patched object (its status alone on a status path) if it is still at {@code resourceVersion}; else 409. */
        private MockResponse storePatched(String path, Map<String, Object> patched, String resourceVersion) {
            boolean status = path.endsWith("/status");
            String objectPath = status ? path.substring(0, path.length() - "/status".length()) : path;
            Obj.child(patched, "metadata").put("resourceVersion", resourceVersion);
            Map<String, Object> stored = status ? store.replaceStatus(objectPath, patched) : store.replace(objectPath, patched);
            store.takeChanged();
            if (stored == null) {
                return status(409, "Conflict", "the object at " + objectPath + " changed; try again");
            }
            return ok(json.asJson(stored));
        }

        private MockResponse withWarnings(MockResponse response, List<String> warnings) {
            // As kube-apiserver passes a webhook's warnings on: kubectl prints each as "Warning: <text>".
            warnings.forEach(w -> response.addHeader("Warning", "299 - " + quote(w)));
            return response;
        }

        /**
         * Whether a ServiceAccount caller's account still stands, as the same account it was minted for (the
         * uid its token names, when it names one): deleting the account revokes its tokens, as on Kubernetes.
         */
        private boolean stands(Caller caller) {
            String[] account = caller.serviceAccount();
            if (account == null) {
                return true;
            }
            Map<String, Object> found = store.get("/api/v1/namespaces/" + account[0] + "/serviceaccounts/" + account[1]);
            return found != null && (caller.uid() == null || caller.uid().equals(Obj.str(found, "metadata", "uid")));
        }

        /**
         * TokenReview: whether {@code spec.token} is a token of this cluster for one of {@code spec.audiences}
         * (none: the API's own), and who it is. The token is not echoed back.
         */
        private MockResponse tokenReview(RecordedRequest request) {
            Map<String, Object> body;
            try {
                byte[] bytes = request.getBody() == null ? new byte[0] : request.getBody().getBytes();
                body = store.parse(new String(bytes, StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                return status(400, "BadRequest", "the body is not a TokenReview");
            }
            String reviewed = Obj.str(body, "spec", "token");
            if (reviewed == null || reviewed.isBlank()) {
                return status(422, "Invalid", "spec.token: Required value");
            }
            List<String> asked = Obj.list(Obj.at(body, "spec", "audiences")).stream().map(String::valueOf).toList();
            Set<String> audiences = asked.isEmpty() ? Set.of(serviceAccounts.issuer(key())) : Set.copyOf(asked);
            ServiceAccountIssuer.Verified verified = authenticate(reviewed, project, location, name, audiences);
            Map<String, Object> status = new java.util.LinkedHashMap<>();
            if (verified != null && stands(verified.caller())) {
                Map<String, Object> user = new java.util.LinkedHashMap<>();
                user.put("username", verified.caller().user());
                if (verified.caller().uid() != null) {
                    user.put("uid", verified.caller().uid());
                }
                user.put("groups", verified.caller().groups());
                status.put("authenticated", true);
                status.put("user", user);
                status.put("audiences", verified.audiences());
            } else {
                status.put("authenticated", false);
                status.put("error", "invalid bearer token");
            }
            Map<String, Object> answer = new java.util.LinkedHashMap<>();
            answer.put("kind", "TokenReview");
            answer.put("apiVersion", "authentication.k8s.io/v1");
            answer.put("metadata", Map.of("creationTimestamp", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString()));
            answer.put("spec", asked.isEmpty() ? Map.of() : Map.of("audiences", asked));
            answer.put("status", status);
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json").setBody(json.asJson(answer));
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
            String uid = Obj.str(store.parse(new String(account.getBody().getBytes(), StandardCharsets.UTF_8)), "metadata", "uid");
            Minted minted = serviceAccounts.mint(key(), namespace, serviceAccount, uid, audiences.stream().map(String::valueOf).toList(),
                    Duration.ofSeconds(seconds));
            Map<String, Object> answer = Map.of(
                    "kind", "TokenRequest",
                    "apiVersion", "authentication.k8s.io/v1",
                    "metadata", Map.of("name", serviceAccount, "namespace", namespace),
                    "spec", Map.of("audiences", audiences, "expirationSeconds", seconds),
                    "status", Map.of("token", minted.token(), "expirationTimestamp", DateTimeFormatter.ISO_INSTANT.format(minted.expiresAt())));
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json").setBody(json.asJson(answer));
        }

        /**
         * Makes the Node objects match the node pools: one per node, named as GKE names them, with the pool's
         * labels and taints and its GPUs; a new node is NotReady until {@link Settings#nodeReadyAfter()} has
         * passed. True if it changed any.
         */
        private synchronized boolean syncNodes(Map<String, NodePool> pools) {
            boolean changed = false;
            Set<String> wanted = new TreeSet<>();
            pools.forEach((pool, shape) -> {
                for (int i = 0; i < shape.nodes(); i++) {
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
            // Nodes there when the cluster's API first answers came up with the cluster: Ready at once.
            boolean ready = settings.nodeReadyAfter().isZero() || !synced;
            synced = true;
            for (Map.Entry<String, NodePool> entry : pools.entrySet()) {
                String pool = entry.getKey();
                NodePool shape = entry.getValue();
                for (int i = 0; i < shape.nodes(); i++) {
                    String node = nodeName(pool, i);
                    if (nodes.add(node)) {
                        changed = true;
                        Map<String, String> capacity = new java.util.LinkedHashMap<>(Map.of("cpu", "4", "memory", "16Gi", "pods", "110"));
                        if (shape.gpusPerNode() > 0) {
                            capacity.put(SimulatedKueue.GPU, Integer.toString(shape.gpusPerNode()));
                        }
                        NodeBuilder built = new NodeBuilder()
                                .withNewMetadata().withName(node)
                                .addToLabels(kubeletLabels(shape.labels()))
                                .addToLabels(NODE_POOL_LABEL, pool).addToLabels("kubernetes.io/hostname", node)
                                .addToLabels("kubernetes.io/os", "linux")
                                .addToLabels("node.kubernetes.io/instance-type", shape.machineType())
                                .addToLabels(topology(location))
                                .addToAnnotations(SimulatedKueue.CREATED_AT, clock.instant().toString())
                                .endMetadata()
                                // as GKE's: gce://<project>/<zone>/<instance> (a regional cluster's: its region, the zone not tracked)
                                .withNewSpec().withProviderID("gce://" + project + "/" + location + "/" + node).withTaints(shape.taints().stream().map(t -> new io.fabric8.kubernetes.api.model.TaintBuilder()
                                        .withKey(t.key()).withValue(t.value()).withEffect(t.effect()).build()).toList()).endSpec()
                                .withNewStatus()
                                .addToCapacity(quantities(capacity)).addToAllocatable(quantities(capacity))
                                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False")
                                .withReason(ready ? "KubeletReady" : "KubeletNotReady")
                                .withMessage(ready ? "kubelet is posting ready status" : "container runtime status check may not have completed yet")
                                .withLastTransitionTime(clock.instant().toString()).endCondition()
                                .withNewNodeInfo().withKubeletVersion(shape.kubeletVersion()).withOsImage("Container-Optimized OS").endNodeInfo()
                                .endStatus();
                        create("/api/v1/nodes", json.asJson(built.build()));
                    }
                }
            }
            return changed;
        }

        /**
         * The labels a kubelet registers its node with: the pool's, less {@code node-role.kubernetes.io/*}, which
         * NodeRestriction keeps a kubelet from giving itself (a real kubelet asked for one does not start at all; this
         * one registers without it). Someone with the right to edit nodes sets them, as the platform does.
         */
        private static Map<String, String> kubeletLabels(Map<String, String> pool) {
            Map<String, String> out = new java.util.LinkedHashMap<>(pool);
            out.keySet().removeIf(k -> k.startsWith(NODE_ROLE_PREFIX));
            return out;
        }

        private static Map<String, io.fabric8.kubernetes.api.model.Quantity> quantities(Map<String, String> values) {
            Map<String, io.fabric8.kubernetes.api.model.Quantity> out = new java.util.LinkedHashMap<>();
            values.forEach((k, v) -> out.put(k, new io.fabric8.kubernetes.api.model.Quantity(v)));
            return out;
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

    /** kube-apiserver's refusal: its message, and the details naming the resource and object. */
    private MockResponse forbidden(RequestAttributes request, String user) {
        Map<String, Object> details = new java.util.LinkedHashMap<>();
        if (!request.name().isEmpty()) {
            details.put("name", request.name());
        }
        if (!request.group().isEmpty()) {
            details.put("group", request.group());
        }
        if (!request.resource().isEmpty()) {
            details.put("kind", request.resource());
        }
        Map<String, Object> fields = new java.util.LinkedHashMap<>();
        fields.put("status", "Failure");
        fields.put("message", request.forbiddenMessage(user));
        fields.put("reason", "Forbidden");
        fields.put("details", details);
        fields.put("code", 403);
        return new MockResponse().setResponseCode(403).setHeader("Content-Type", "application/json")
                .setBody(KubeStatus.json(KubeStatus.of(fields)));
    }

    private static MockResponse status(int code, String reason, String message) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(KubeStatus.json(KubeStatus.failure(code, reason, message)));
    }

    /** An HTTP quoted-string (RFC 9110), the form a Warning header's text takes; not JSON. */
    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
