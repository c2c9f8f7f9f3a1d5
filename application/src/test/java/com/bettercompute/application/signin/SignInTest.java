package com.bettercompute.application.signin;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.Kubeconfig;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.fakes.InMemorySignInRepository;
import com.bettercompute.application.fakes.InMemoryTenantClusterClient;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.incluster.ReachableClusters;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.application.port.IdTokenSigner;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sign-in rules on in-memory ports (MarketWorld: acme's {@code train} and globex's {@code train}, alice
 * acme's admin, dave acme's viewer, carol globex's admin): who may approve, which group the token carries,
 * the RFC 8628 answers, refresh rotation and its one-day lapse, the code's expiry, and the kubeconfig by
 * name refusing a shared name.
 */
class SignInTest {
    static final String ISSUER = "https://nc.example";

    final MarketWorld w = new MarketWorld();
    final InMemorySignInRepository grants = new InMemorySignInRepository();
    final InMemoryTenantClusterClient tenantClusters = new InMemoryTenantClusterClient(w.ports.clock());
    final List<IdTokenSigner.IdToken> signed = new ArrayList<>();
    final Authorizer authorizer = new Authorizer(w.ports.access());
    final SignInClusters clusters = new SignInClusters(w.ports.clusters(), w.ports.catalog());
    final SignIn signIn = new SignIn(w.ports.transactions(), grants, clusters, authorizer,
            new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> new InMemoryClusterProvider(w.ports.clock(), Duration.ofSeconds(1))),
            tenantClusters, token -> {
                signed.add(token);
                return "signed-" + signed.size();
            }, () -> ISSUER, w.ports.clock());

    SignInTest() {
        ReachableClusters.reachable(w.ports, MarketWorld.ACME_TRAIN);
    }

    static Caller caller(String id) {
        return new Caller(new Principal(id, false));
    }

    String audience() {
        return clusters.audience(w.ports.clusters().find(MarketWorld.ACME_TRAIN).orElseThrow()).orElseThrow();
    }

    static String error(Runnable call) {
        try {
            call.run();
        } catch (OAuthRefusal e) {
            return e.error();
        }
        throw new AssertionError("no OAuth refusal");
    }

    SignIn.Tokens approvedBy(String who) {
        SignIn.DeviceAuthorization d = signIn.start(audience());
        signIn.decide(caller(who), d.userCode(), true);
        return signIn.redeemDeviceCode(d.deviceCode());
    }

    @ParameterizedTest(name = "{0} gets {1}")
    @CsvSource({"user:alice@acme.example, nc:admin, cluster-admin", "user:dave@acme.example, nc:view, view"})
    void the_group_follows_the_approvers_binding_on_the_cluster(String who, String group, String role) {
        SignIn.DeviceAuthorization d = signIn.start(audience());

        SignIn.Decided decided = signIn.decide(caller(who), d.userCode(), true);
        signIn.redeemDeviceCode(d.deviceCode());

        assertThat(decided.role()).isEqualTo(role);
        IdTokenSigner.IdToken token = signed.get(signed.size() - 1);
        assertThat(token.groups()).containsExactly(group);
        assertThat(token.subject()).isEqualTo(who);
        assertThat(token.audience()).isEqualTo("projects/platform-prod/locations/us-central1-a/clusters/" + w.ports.clusters()
                .find(MarketWorld.ACME_TRAIN).orElseThrow().providerName());
        assertThat(token.issuer()).isEqualTo(ISSUER);
        assertThat(token.expiresAt()).isEqualTo(token.issuedAt().plus(SignIn.ID_TOKEN_LIFETIME));
        assertThat(tenantClusters.signInGroupsMade()).containsExactly("https://127.0.0.1:6443");
        assertThat(tenantClusters.trusted()).as("the cluster trusts the tokens' issuer for its audience")
                .containsExactly(java.util.Map.entry("https://127.0.0.1:6443", new TenantClusterClient.IdTokenTrust(ISSUER, audience())));
    }

    @Test
    void an_approval_fails_clearly_where_the_cluster_cannot_trust_the_platform_and_leaves_the_code_pending() {
        SignIn.DeviceAuthorization d = signIn.start(audience());
        tenantClusters.failNextCall(new com.bettercompute.application.port.ProviderException(
                com.bettercompute.application.port.ProviderException.Kind.FAILED_PRECONDITION,
                "The cluster does not serve ClientConfig (authentication.gke.io/v2alpha1): Identity Service for GKE is not enabled on it."));

        assertThatThrownBy(() -> signIn.decide(caller("user:alice@acme.example"), d.userCode(), true))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE);
                    assertThat(e.getMessage()).contains("Identity Service").doesNotContain("cannot reach");
                });
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("authorization_pending");
    }

    @Test
    void an_approval_on_a_cluster_whose_identity_service_gke_refused_names_gkes_refusal() {
        com.bettercompute.domain.cluster.Cluster c = w.ports.clusters().find(MarketWorld.ACME_TRAIN).orElseThrow();
        String note = "GKE refused to turn on Identity Service for GKE: Identity Service for GKE is not available to this organization. "
                + "Signing in to this cluster with kubectl (approving a sign-in code) cannot work until it is on.";
        w.ports.transactions().inTransaction(() -> w.ports.clusters().update(c.toBuilder().state(com.bettercompute.domain.cluster.ClusterState.READY)
                .message(note).progress(c.progress().identityServiceRefused(w.ports.clock().instant())).build(), c.version()));
        SignIn.DeviceAuthorization d = signIn.start(audience());

        assertThatThrownBy(() -> signIn.decide(caller("user:alice@acme.example"), d.userCode(), true))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE);
                    assertThat(e.getMessage()).isEqualTo("This sign-in cannot be approved: " + note);
                    assertThat(e.details()).containsEntry("reason", "identity-service-refused");
                });
        assertThat(tenantClusters.trusted()).as("nothing written to a cluster that would not trust the token").isEmpty();
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("authorization_pending");
    }

    /** A replica without a credential for the cluster's provider account, or a provider that is down. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"PERMISSION_DENIED", "UNAVAILABLE", "INTERNAL"})
    void an_approval_the_platform_cannot_carry_to_the_cluster_names_the_cause_and_decides_nothing(
            com.bettercompute.application.port.ProviderException.Kind kind) {
        SignIn blind = new SignIn(w.ports.transactions(), grants, clusters, authorizer,
                new ClusterConnections(w.ports.clusters(), w.ports.catalog(), account -> refusing(kind)),
                tenantClusters, token -> "never", () -> ISSUER, w.ports.clock());
        SignIn.DeviceAuthorization d = blind.start(audience());

        assertThatThrownBy(() -> blind.decide(caller("user:alice@acme.example"), d.userCode(), true))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE);
                    assertThat(e.getMessage()).contains("cannot reach the cluster's Kubernetes API", "no credential for account acct_platform");
                    assertThat(e.details()).containsEntry("reason", "cluster-unreachable").containsEntry("providerError", kind.name());
                });
        assertThat(error(() -> blind.redeemDeviceCode(d.deviceCode()))).as("still pending: nothing was decided").isEqualTo("authorization_pending");
    }

    /** A provider whose every call, the platform's credential first, fails with {@code kind}. */
    static com.bettercompute.application.port.ClusterProvider refusing(com.bettercompute.application.port.ProviderException.Kind kind) {
        return (com.bettercompute.application.port.ClusterProvider) java.lang.reflect.Proxy.newProxyInstance(
                SignInTest.class.getClassLoader(), new Class<?>[]{com.bettercompute.application.port.ClusterProvider.class},
                (proxy, method, args) -> {
                    throw new com.bettercompute.application.port.ProviderException(kind, "no credential for account acct_platform");
                });
    }

    @Test
    void another_organizations_person_cannot_see_the_code() {
        SignIn.DeviceAuthorization d = signIn.start(audience());

        assertThatThrownBy(() -> signIn.decide(caller("user:carol@globex.example"), d.userCode(), true))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("authorization_pending");
    }

    @Test
    void polling_answers_pending_then_slow_down_then_the_tokens_once() {
        SignIn.DeviceAuthorization d = signIn.start(audience());

        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("authorization_pending");
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("slow_down");
        w.ports.clock().advance(Duration.ofSeconds(SignIn.POLL_INTERVAL_SECONDS + SignIn.SLOW_DOWN_STEP_SECONDS));
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("authorization_pending");
        signIn.decide(caller("user:alice@acme.example"), d.userCode().toLowerCase().replace("-", " "), true);

        assertThat(signIn.redeemDeviceCode(d.deviceCode()).idToken()).isNotBlank();
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("invalid_grant");
    }

    @Test
    void a_denied_code_is_access_denied_and_a_decided_code_cannot_be_decided_again() {
        SignIn.DeviceAuthorization d = signIn.start(audience());
        signIn.decide(caller("user:alice@acme.example"), d.userCode(), false);

        assertThatThrownBy(() -> signIn.decide(caller("user:alice@acme.example"), d.userCode(), true))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("access_denied");
        assertThat(tenantClusters.signInGroupsMade()).as("a denial reaches no cluster").isEmpty();
        assertThat(tenantClusters.trusted()).isEmpty();
    }

    @Test
    void a_code_expires() {
        SignIn.DeviceAuthorization d = signIn.start(audience());
        w.ports.clock().advance(SignIn.DEVICE_CODE_LIFETIME);

        assertThatThrownBy(() -> signIn.pending(d.userCode())).isInstanceOf(DomainException.class);
        assertThat(error(() -> signIn.redeemDeviceCode(d.deviceCode()))).isEqualTo("expired_token");
    }

    @Test
    void refresh_tokens_rotate_and_lapse_after_a_day_without_use() {
        SignIn.Tokens first = approvedBy("user:alice@acme.example");

        w.ports.clock().advance(SignIn.REFRESH_IDLE_LIMIT.minusSeconds(1));
        SignIn.Tokens second = signIn.refresh(first.refreshToken());
        assertThat(error(() -> signIn.refresh(first.refreshToken()))).isEqualTo("invalid_grant");

        w.ports.clock().advance(SignIn.REFRESH_IDLE_LIMIT);
        assertThat(error(() -> signIn.refresh(second.refreshToken()))).isEqualTo("invalid_grant");
    }

    @Test
    void codes_and_tokens_are_kept_as_hashes_only() {
        SignIn.DeviceAuthorization pending = signIn.start(audience());
        SignIn.Tokens tokens = approvedBy("user:alice@acme.example");

        assertThat(grants.dump()).doesNotContain(pending.deviceCode(), pending.userCode(), pending.userCode().replace("-", ""),
                tokens.refreshToken());
        assertThat(pending.toString()).doesNotContain(pending.deviceCode());
        assertThat(tokens.toString()).doesNotContain(tokens.refreshToken(), tokens.idToken());
    }

    @Test
    void an_unknown_or_shared_client_id_is_invalid_client() {
        assertThat(error(() -> signIn.start("projects/x/locations/y/clusters/z"))).isEqualTo("invalid_client");
        assertThat(error(() -> signIn.start("train"))).as("two organizations have a train").isEqualTo("invalid_client");
        assertThat(error(() -> signIn.start(""))).isEqualTo("invalid_request");
    }

    @Test
    void the_kubeconfig_by_name_refuses_a_name_two_organizations_carry_and_by_token_finds_the_own() {
        ConnectKubeconfig kubeconfigs = new ConnectKubeconfig(new MarketCallers(w.ports.access(), w.ports.clusters(),
                new ClusterLookup(w.ports.clusters(), authorizer)), clusters, () -> ISSUER);

        assertThatThrownBy(() -> kubeconfigs.byName("train")).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
            assertThat(e.details()).containsEntry("reason", "ambiguous-cluster").containsEntry("use", "/api/k8s/cluster/kubeconfig?cluster=train");
        });
        assertThatThrownBy(() -> kubeconfigs.byName("never")).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        Kubeconfig kubeconfig = kubeconfigs.byToken(caller("user:alice@acme.example"), null, "train");
        assertThat(kubeconfig.user()).isInstanceOfSatisfying(Kubeconfig.Plugin.class, plugin -> {
            assertThat(plugin.command()).isEqualTo("kubectl-nc");
            assertThat(plugin.args()).containsExactly("token", "--server", ISSUER, "--client", audience());
        });
        assertThat(kubeconfig.name()).isEqualTo("train");
    }
}
