package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.ServiceAccountToken;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ClusterProviders;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.event.DomainEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code kubernetesClusters.credentials}: a short-lived kubeconfig for the caller, with a token the
 * tenant cluster mints for a service account of the caller and the role. Decided as {@code connect} on
 * the cluster, and also {@code update} for {@code edit} and {@code delete} for {@code admin}, each with
 * the caller's own bindings. Publishes {@code kubernetes.cluster.credentials-issued}; the token is
 * never stored, logged or published.
 */
public final class IssueCredentials {
    private static final Logger LOG = LoggerFactory.getLogger(IssueCredentials.class);

    private final Transactions tx;
    private final CatalogRepository catalog;
    private final EventOutbox outbox;
    private final ClusterLookup lookup;
    private final ClusterProviders providers;
    private final TenantClusterClient clusters;
    private final int defaultTtlSeconds;
    private final Clock clock;

    /**
     * @param defaultTtlSeconds the module's {@code credentialTtlSeconds}: how long a token lives when the
     *                          caller does not say, within {@link CredentialsCommand#MIN_TTL_SECONDS} and
     *                          {@link CredentialsCommand#MAX_TTL_SECONDS}
     */
    public IssueCredentials(Transactions tx, ClusterRepository repository, CatalogRepository catalog, EventOutbox outbox,
                            Authorizer authorizer, ClusterProviders providers, TenantClusterClient clusters,
                            int defaultTtlSeconds, Clock clock) {
        if (defaultTtlSeconds < CredentialsCommand.MIN_TTL_SECONDS || defaultTtlSeconds > CredentialsCommand.MAX_TTL_SECONDS) {
            throw new IllegalArgumentException("credentialTtlSeconds must be between " + CredentialsCommand.MIN_TTL_SECONDS
                    + " and " + CredentialsCommand.MAX_TTL_SECONDS + ", not " + defaultTtlSeconds);
        }
        this.tx = tx;
        this.catalog = catalog;
        this.outbox = outbox;
        this.lookup = new ClusterLookup(repository, authorizer);
        this.providers = providers;
        this.clusters = clusters;
        this.defaultTtlSeconds = defaultTtlSeconds;
        this.clock = clock;
    }

    /** A kubeconfig and what it holds; {@link #toString()} never shows the kubeconfig (it holds a token). */
    public record Credentials(Kubeconfig kubeconfig, Instant expiresAt, CredentialRole role) {
        @Override
        public String toString() {
            return "Credentials[kubeconfig=<redacted>, expiresAt=" + expiresAt + ", role=" + role.wire() + "]";
        }
    }

    public Credentials issue(Caller caller, CredentialsCommand command) {
        Cluster cluster = lookup.require(caller, command.ref(), Action.CONNECT);
        if (command.role().alsoNeeds() != Action.CONNECT) {
            lookup.require(caller, command.role().alsoNeeds(), cluster);
        }
        requireReachable(cluster);
        int ttl = command.ttlSeconds() == null ? defaultTtlSeconds : command.ttlSeconds();
        String account = serviceAccount(caller.id(), command.role());
        ClusterConnection connection = new ClusterConnection(serverUrl(cluster.endpoint()), cluster.progress().caCertificate(),
                platformToken(cluster));
        ServiceAccountToken token;
        try {
            clusters.ensureServiceAccount(connection, account, command.role().clusterRole());
            token = clusters.requestToken(connection, account, ttl, null);
        } catch (ProviderException e) {
            throw e.toDomainException();
        }
        String name = "bc-" + cluster.tenantId() + "-" + cluster.name() + "-" + command.role().wire();
        Kubeconfig kubeconfig = Kubeconfig.withToken(name, connection.endpointUrl(), connection.caCertificateBase64(), token.token());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        DomainEvent issued = event(cluster, caller, command.role(), account, ttl, token.expiresAt(), now);
        tx.inTransaction(() -> {
            outbox.append(issued);
            return null;
        });
        LOG.info("credentials issued: cluster={} role={} subject={} identity={} expiresAt={}",
                cluster.id(), command.role().wire(), issued.data().get("subject"), caller.id(), token.expiresAt());
        return new Credentials(kubeconfig, token.expiresAt(), command.role());
    }

    /**
     * {@code bc-u-}, 16 hex digits of the SHA-256 of the caller's identity, and the role: one account per
     * caller and role, so a later {@code view} kubeconfig never narrows an {@code admin} one.
     */
    static String serviceAccount(String identity, CredentialRole role) {
        return "bc-u-" + Ids.sha256Hex(identity).substring(0, 16) + "-" + role.wire();
    }

    /**
     * The API server's URL from the endpoint the provider reports, which has no scheme: an IP on GKE, or
     * {@code HOST:PORT/PATH} on the simulator.
     */
    static String serverUrl(String endpoint) {
        return "https://" + endpoint;
    }

    private static void requireReachable(Cluster c) {
        switch (ClusterLookup.reach(c)) {
            case NOT_READY -> throw ClusterLookup.notConnectable(c,
                    "Credentials are issued for a ready cluster; this one is " + c.state().wire() + ".");
            case NO_ENDPOINT -> throw ClusterLookup.notConnectable(c,
                    "The provider has not reported the cluster's endpoint and CA yet.");
            case CONNECTABLE -> { }
        }
    }

    private String platformToken(Cluster cluster) {
        ProviderAccount account = catalog.account(cluster.providerAccountId()).orElseThrow(() -> new DomainException(
                ErrorCode.INTERNAL, "The cluster's provider account is not in the catalog.", Map.of()));
        try {
            return providers.forAccount(account).platformAccessToken();
        } catch (ProviderException e) {
            throw e.toDomainException();
        }
    }

    private static DomainEvent event(Cluster c, Caller caller, CredentialRole role, String account, int ttl, Instant expiresAt, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("clusterId", c.id());
        data.put("tenantId", c.tenantId());
        data.put("name", c.name());
        data.put("role", role.wire());
        data.put("subject", "system:serviceaccount:" + TenantClusterClient.NAMESPACE + ":" + account);
        data.put("identity", caller.id());
        data.put("ttlSeconds", ttl);
        data.put("expiresAt", expiresAt.toString());
        return new DomainEvent(ClusterEvents.CREDENTIALS_ISSUED, c.tenantId(), c.id(), now, data);
    }
}
