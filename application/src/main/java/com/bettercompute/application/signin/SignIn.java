package com.bettercompute.application.signin;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterResources;
import com.bettercompute.application.cluster.CredentialRole;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.IdTokenSigner;
import com.bettercompute.application.port.SignInRepository;
import com.bettercompute.application.port.SignInRepository.Decision;
import com.bettercompute.application.port.SignInRepository.DeviceGrant;
import com.bettercompute.application.port.SignInRepository.RefreshGrant;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Sign-in to a cluster by the device authorization grant (RFC 8628), the platform being the cluster's
 * OpenID Connect provider: the plugin asks for a code, a person who may {@code connect} to the cluster
 * approves it with their org token, and the plugin's poll gets an ID token (audience the cluster, subject
 * the person, {@code groups} the role their binding gives) and a refresh token. Refresh tokens rotate on
 * every use and lapse after {@link #REFRESH_IDLE_LIMIT} without one; the role is read again at each
 * refresh, so a changed binding counts from the next one. Codes and refresh tokens are stored as
 * SHA-256 hashes only and never logged.
 */
public final class SignIn {
    private static final Logger LOG = LoggerFactory.getLogger(SignIn.class);

    public static final Duration DEVICE_CODE_LIFETIME = Duration.ofMinutes(10);
    public static final int POLL_INTERVAL_SECONDS = 5;
    /** RFC 8628 section 3.5: each {@code slow_down} adds five seconds to the interval. */
    static final int SLOW_DOWN_STEP_SECONDS = 5;
    public static final Duration ID_TOKEN_LIFETIME = Duration.ofMinutes(15);
    public static final Duration REFRESH_IDLE_LIMIT = Duration.ofDays(1);
    /** RFC 8628 section 6.1: consonants only, so no word can be spelled and no two letters are confused. */
    static final String USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
    static final int USER_CODE_LENGTH = 8;

    /** A new device grant; {@link #toString()} never shows the device code. */
    public record DeviceAuthorization(String deviceCode, String userCode, String clusterName, long expiresInSeconds, int intervalSeconds) {
        @Override
        public String toString() {
            return "DeviceAuthorization[userCode=" + userCode + ", cluster=" + clusterName + "]";
        }
    }

    /** The tokens of a sign-in; {@link #toString()} shows neither. */
    public record Tokens(String idToken, long expiresInSeconds, String refreshToken) {
        @Override
        public String toString() {
            return "Tokens[expiresIn=" + expiresInSeconds + "]";
        }
    }

    /** What the approval page shows of a pending code: the cluster, its organization and the code. */
    public record Pending(String clusterName, String tenantId, String userCode) {}

    /** What an approval or a denial did: the cluster, and the role the person gets in it (null when denied). */
    public record Decided(String clusterName, String tenantId, boolean approved, String role) {}

    private final Transactions tx;
    private final SignInRepository grants;
    private final SignInClusters clusters;
    private final Authorizer authorizer;
    private final ClusterConnections connections;
    private final TenantClusterClient tenantClusters;
    private final IdTokenSigner signer;
    private final Supplier<String> issuer;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    /** @param issuer the platform's public base URL, the tokens' {@code iss} (known once the API listens) */
    public SignIn(Transactions tx, SignInRepository grants, SignInClusters clusters, Authorizer authorizer,
                  ClusterConnections connections, TenantClusterClient tenantClusters, IdTokenSigner signer,
                  Supplier<String> issuer, Clock clock) {
        this.tx = tx;
        this.grants = grants;
        this.clusters = clusters;
        this.authorizer = authorizer;
        this.connections = connections;
        this.tenantClusters = tenantClusters;
        this.signer = signer;
        this.issuer = issuer;
        this.clock = clock;
    }

    /** RFC 8628 section 3.1: a device code and a user code for the cluster the client id names. */
    public DeviceAuthorization start(String clientId) {
        if (clientId == null || clientId.isBlank() || clientId.length() > 512) {
            throw new OAuthRefusal("invalid_request", "client_id is required: the cluster's audience or its name.");
        }
        Cluster cluster = clusters.byClientId(clientId).orElseThrow(() -> new OAuthRefusal("invalid_client",
                "No cluster answers to this client_id; use the cluster's audience as the kubeconfig names it."));
        Instant now = now();
        String deviceCode = "ncd_" + randomToken();
        String userCode = userCode();
        grants.addDevice(new DeviceGrant(Ids.sha256Hex(deviceCode), Ids.sha256Hex(normalize(userCode)), cluster.id(), now,
                now.plus(DEVICE_CODE_LIFETIME), POLL_INTERVAL_SECONDS, null, Decision.PENDING, null));
        return new DeviceAuthorization(deviceCode, userCode, cluster.name(), DEVICE_CODE_LIFETIME.toSeconds(), POLL_INTERVAL_SECONDS);
    }

    /** The pending code a user code names, as the approval page shows it; {@code NOT_FOUND} when none is pending. */
    public Pending pending(String userCode) {
        DeviceGrant grant = pendingGrant(userCode);
        Cluster cluster = clusters.live(grant.clusterId()).orElseThrow(SignIn::noSuchCode);
        return new Pending(cluster.name(), cluster.tenantId(), format(normalize(userCode)));
    }

    /**
     * Approves (or denies) the pending code as the caller. Only a caller who may {@code connect} to the
     * cluster decides: another organization's caller sees {@code NOT_FOUND}, as everywhere. An approval also
     * makes sure the cluster trusts the platform's ID tokens (its Identity Service configuration names the platform's
     * issuer and the cluster's audience) and binds the sign-in groups to their roles.
     */
    public Decided decide(Caller caller, String userCode, boolean approve) {
        DeviceGrant grant = pendingGrant(userCode);
        Cluster cluster = clusters.live(grant.clusterId()).orElseThrow(SignIn::noSuchCode);
        Authorizer.Decider decider = authorizer.forCaller(caller);
        Resource resource = ClusterResources.of(cluster);
        if (!decider.allows(Action.CONNECT, resource)) {
            // as the market's routes: a code for a cluster the caller cannot see does not exist for them
            throw noSuchCode();
        }
        CredentialRole role = role(decider, resource).orElseThrow();
        if (approve && cluster.progress().identityServiceRefusedAt() != null) {
            throw identityServiceRefused(cluster);
        }
        if (approve) {
            try {
                ClusterConnection connection = connections.of(cluster.id()).orElseThrow(() -> new DomainException(ErrorCode.INVALID_STATE,
                        "The cluster is not reachable yet; approve once it is ready.", Map.of("state", cluster.state().wire())));
                String audience = clusters.audience(cluster).orElseThrow(() -> new DomainException(ErrorCode.INVALID_STATE,
                        "The cluster has no provider name yet; approve once it is ready.", Map.of("state", cluster.state().wire())));
                // before the token exists: the cluster's Identity Service must name the platform when kubectl first sends it
                tenantClusters.trustIdTokens(connection, new TenantClusterClient.IdTokenTrust(issuer.get(), audience));
                tenantClusters.ensureSignInGroups(connection);
            } catch (ProviderException e) {
                // the cluster reached, but it cannot trust the platform (no Identity Service): its own state, said as is
                throw e.kind() == ProviderException.Kind.FAILED_PRECONDITION ? e.toDomainException() : unreachable(e);
            }
        }
        if (!grants.decide(grant.deviceCodeHash(), approve ? Decision.APPROVED : Decision.DENIED, caller.id())) {
            throw new DomainException(ErrorCode.CONFLICT, "This code was already approved or denied.", Map.of("field", "user_code"));
        }
        LOG.info("sign-in {}: cluster={} identity={} role={}", approve ? "approved" : "denied", cluster.id(), caller.id(), role.wire());
        return new Decided(cluster.name(), cluster.tenantId(), approve, approve ? role.clusterRole() : null);
    }

    /**
     * GKE refused to turn Identity Service for GKE on for the cluster, so it would not trust the ID token an approval leads
     * to: nothing is written to the cluster and the code stays pending. The cluster's message (the refusal as the
     * reconciler recorded it, GKE's reason in it) says why, when the cluster still shows it.
     */
    private static DomainException identityServiceRefused(Cluster cluster) {
        String why = cluster.state() == ClusterState.READY && cluster.message() != null ? cluster.message()
                : "GKE refused to turn on Identity Service for GKE for this cluster; signing in to it with kubectl cannot work until it is on.";
        return new DomainException(ErrorCode.INVALID_STATE, "This sign-in cannot be approved: " + why,
                Map.of("reason", "identity-service-refused"));
    }

    /**
     * The platform could not reach the cluster's Kubernetes API to name its issuer there or bind the sign-in groups
     * (no credential for the provider account on this replica, the provider or the cluster down): the person
     * approving is told why, and may approve the same code again; nothing was decided.
     */
    private static DomainException unreachable(ProviderException e) {
        return new DomainException(ErrorCode.INVALID_STATE, "The platform cannot reach the cluster's Kubernetes API to approve "
                + "this sign-in (" + e.getMessage() + "); try again shortly, and tell the operator if it persists.",
                Map.of("reason", "cluster-unreachable", "providerError", e.kind().name()));
    }

    /** RFC 8628 section 3.4: the token request of the polling client. */
    public Tokens redeemDeviceCode(String deviceCode) {
        if (deviceCode == null || deviceCode.isBlank()) {
            throw new OAuthRefusal("invalid_request", "device_code is required.");
        }
        String hash = Ids.sha256Hex(deviceCode);
        DeviceGrant grant = grants.deviceByCode(hash).orElseThrow(() -> new OAuthRefusal("invalid_grant", "Unknown device code."));
        Instant now = now();
        if (!now.isBefore(grant.expiresAt())) {
            grants.removeDevice(hash);
            throw new OAuthRefusal("expired_token", "The code expired; ask for a new one.");
        }
        switch (grant.decision()) {
            case PENDING -> {
                if (grant.lastPolledAt() != null && now.isBefore(grant.lastPolledAt().plusSeconds(grant.intervalSeconds()))) {
                    grants.polled(hash, now, grant.intervalSeconds() + SLOW_DOWN_STEP_SECONDS);
                    throw new OAuthRefusal("slow_down", "Poll at most every " + (grant.intervalSeconds() + SLOW_DOWN_STEP_SECONDS) + " s.");
                }
                grants.polled(hash, now, grant.intervalSeconds());
                throw new OAuthRefusal("authorization_pending", "Waiting for a person to approve the code.");
            }
            case DENIED -> {
                grants.removeDevice(hash);
                throw new OAuthRefusal("access_denied", "The sign-in was denied.");
            }
            case APPROVED -> {
                return tx.inTransaction(() -> {
                    if (!grants.removeDevice(hash)) {
                        throw new OAuthRefusal("invalid_grant", "The code was already redeemed.");
                    }
                    return issue(grant.principalId(), grant.clusterId(), now);
                });
            }
            default -> throw new IllegalStateException("unknown decision " + grant.decision());
        }
    }

    /** RFC 6749 section 6: a fresh ID token, the role read again, and a new refresh token in place of this one. */
    public Tokens refresh(String refreshToken) {
        if (refreshToken == null || refreshToken.isBlank()) {
            throw new OAuthRefusal("invalid_request", "refresh_token is required.");
        }
        String hash = Ids.sha256Hex(refreshToken);
        RefreshGrant grant = grants.refreshByHash(hash).orElseThrow(() -> new OAuthRefusal("invalid_grant",
                "The sign-in has lapsed; sign in again."));
        Instant now = now();
        if (!now.isBefore(grant.lastUsedAt().plus(REFRESH_IDLE_LIMIT))) {
            grants.removeRefresh(hash);
            throw new OAuthRefusal("invalid_grant", "The sign-in lapsed after a day without use; sign in again.");
        }
        return tx.inTransaction(() -> {
            if (!grants.removeRefresh(hash)) {
                throw new OAuthRefusal("invalid_grant", "The refresh token was already used; sign in again.");
            }
            return issue(grant.principalId(), grant.clusterId(), now);
        });
    }

    /** Forgets device codes expired and refresh tokens lapsed; how many. */
    public int removeStale() {
        Instant now = now();
        return grants.removeStale(now, now.minus(REFRESH_IDLE_LIMIT));
    }

    private Tokens issue(String principalId, String clusterId, Instant now) {
        Cluster cluster = clusters.live(clusterId).orElseThrow(() -> new OAuthRefusal("invalid_grant", "The cluster is gone."));
        Caller caller = new Caller(new Principal(principalId, false));
        Authorizer.Decider decider = authorizer.forCaller(caller);
        CredentialRole role = role(decider, ClusterResources.of(cluster)).orElseThrow(() -> new OAuthRefusal("access_denied",
                "The person who signed in may no longer connect to the cluster."));
        String audience = clusters.audience(cluster).orElseThrow(() -> new OAuthRefusal("invalid_grant",
                "The cluster has no provider name yet."));
        Instant expires = now.plus(ID_TOKEN_LIFETIME);
        String idToken = signer.sign(new IdTokenSigner.IdToken(issuer.get(), principalId, audience, List.of(group(role)), now, expires));
        String refreshToken = "ncr_" + randomToken();
        grants.addRefresh(new RefreshGrant(Ids.sha256Hex(refreshToken), principalId, clusterId, now));
        return new Tokens(idToken, ID_TOKEN_LIFETIME.toSeconds(), refreshToken);
    }

    /** The role a binding gives: admin if it may delete the cluster, edit if it may update it, view if it may connect. */
    static Optional<CredentialRole> role(Authorizer.Decider decider, Resource cluster) {
        if (decider.allows(Action.DELETE, cluster)) {
            return Optional.of(CredentialRole.ADMIN);
        }
        if (decider.allows(Action.UPDATE, cluster)) {
            return Optional.of(CredentialRole.EDIT);
        }
        return decider.allows(Action.CONNECT, cluster) ? Optional.of(CredentialRole.VIEW) : Optional.empty();
    }

    /** The {@code groups} claim of a role: {@code nc:view}, {@code nc:edit} or {@code nc:admin}. */
    static String group(CredentialRole role) {
        return "nc:" + role.wire();
    }

    private DeviceGrant pendingGrant(String userCode) {
        String normalized = normalize(userCode);
        if (normalized.length() != USER_CODE_LENGTH) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "The code has " + USER_CODE_LENGTH + " letters, such as BCDF-GHJK.",
                    Map.of("fields", List.of(Map.of("field", "user_code", "problem", "must be 8 letters such as BCDF-GHJK"))));
        }
        return grants.deviceByUserCode(Ids.sha256Hex(normalized))
                .filter(g -> g.decision() == Decision.PENDING && now().isBefore(g.expiresAt()))
                .orElseThrow(SignIn::noSuchCode);
    }

    private static DomainException noSuchCode() {
        return new DomainException(ErrorCode.NOT_FOUND, "No sign-in is waiting on this code; it may have expired (the plugin prints a new link).",
                Map.of("field", "user_code"));
    }

    /** The code as typed, in the form it was issued: upper case, letters only (the dash and spaces dropped). */
    static String normalize(String userCode) {
        if (userCode == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (char c : userCode.toUpperCase(Locale.ROOT).toCharArray()) {
            if (c >= 'A' && c <= 'Z') {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String format(String normalized) {
        return normalized.substring(0, 4) + "-" + normalized.substring(4);
    }

    private String userCode() {
        StringBuilder code = new StringBuilder();
        for (int i = 0; i < USER_CODE_LENGTH; i++) {
            code.append(USER_CODE_ALPHABET.charAt(random.nextInt(USER_CODE_ALPHABET.length())));
        }
        return format(code.toString());
    }

    private String randomToken() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
