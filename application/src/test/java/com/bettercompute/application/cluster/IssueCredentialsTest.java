package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.fakes.InMemoryTenantClusterClient;
import com.bettercompute.application.port.InMemoryClusterProvider;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** credentials of kubernetesClusters, on fakes: decisions, states, ttl, accounts, the kubeconfig, the event. */
class IssueCredentialsTest {
    static final String CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==";
    static final String ENDPOINT = "127.0.0.1:6443/clusters/p/l/c";

    final ClusterWorld w = new ClusterWorld();
    final InMemoryTenantClusterClient k8s = new InMemoryTenantClusterClient(w.ports.clock());
    final InMemoryClusterProvider provider = new InMemoryClusterProvider(w.ports.clock(), Duration.ZERO);
    final IssueCredentials issue = new IssueCredentials(w.ports.transactions(), w.ports.clusters(), w.ports.catalog(),
            w.ports.outbox(), w.authorizer, account -> provider, k8s, 3600, w.ports.clock());

    /** bob edits autopilot clusters in us-central1 (no delete); dave views; carol is another tenant's. */
    @ParameterizedTest(name = "{0} asks {1}: {2}")
    @CsvSource({
            "alice, view,  ok",
            "alice, edit,  ok",
            "alice, admin, ok",
            "bob,   view,  ok",
            "bob,   edit,  ok",
            "bob,   admin, ACCESS_DENIED",
            "dave,  view,  ok",
            "dave,  edit,  ACCESS_DENIED",
            "dave,  admin, ACCESS_DENIED",
            "carol, view,  ACCESS_DENIED",
    })
    void each_role_needs_its_action_with_the_callers_own_bindings(String who, String role, String outcome) {
        Cluster c = ready(w.create(w.alice, autopilot("auto").location("us-central1")));
        Caller caller = w.caller(who);
        CredentialsCommand body = credentials(c, CredentialRole.BY_WIRE.get(role), null);
        if (outcome.equals("ok")) {
            IssueCredentials.Credentials cred = issue.issue(caller, body);
            assertThat(cred.role().wire()).isEqualTo(role);
        } else {
            assertThatThrownBy(() -> issue.issue(caller, body))
                    .hasFieldOrPropertyWithValue("code", ErrorCode.valueOf(outcome));
            assertThat(k8s.minted()).isEmpty();
            assertThat(credentialEvents()).isEmpty();
        }
    }

    @Test
    void bob_outside_his_conditions_gets_nothing() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        assertThatThrownBy(() -> issue.issue(w.bob, credentials(c)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
    }

    @Test
    void access_denied_comes_before_not_found() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        assertThatThrownBy(() -> issue.issue(w.carol, credentials(c)))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        CredentialsCommand globex = new CredentialsCommand("globex", c.id(), CredentialRole.VIEW, null);
        assertThatThrownBy(() -> issue.issue(w.carol, globex))
                .hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
        CredentialsCommand unknown = new CredentialsCommand("acme", "kcl_00000000000000000000000000", CredentialRole.VIEW, null);
        // bob's binding has conditions: he may not learn that the id is unknown
        assertThatThrownBy(() -> issue.issue(w.bob, unknown))
                .hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> issue.issue(w.alice, unknown))
                .hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
    }

    @ParameterizedTest(name = "{0}, ready once: {1} -> {2}")
    @CsvSource({
            "pending,      false, INVALID_STATE",
            "provisioning, false, INVALID_STATE",
            "ready,        true,  ok",
            "updating,     true,  ok",
            "updating,     false, INVALID_STATE",
            "error,        true,  INVALID_STATE",
            "deleting,     true,  INVALID_STATE",
            "deleted,      true,  INVALID_STATE",
    })
    void the_cluster_must_be_ready_or_updating_after_it_was_ready(String state, boolean readyOnce, String outcome) {
        Cluster c = w.create(w.alice, standard("std"));
        Cluster changed = c.toBuilder().state(ClusterState.valueOf(state.toUpperCase())).endpoint(ENDPOINT)
                .readyAt(readyOnce ? w.ports.clock().instant() : null)
                .progress(new Cluster.Progress(null, null, null, 0, null, CA)).version(c.version() + 1).build();
        assertThat(w.ports.clusters().update(changed, c.version())).isTrue();
        if (outcome.equals("ok")) {
            assertThat(issue.issue(w.alice, credentials(c)).kubeconfig().user()).isInstanceOf(Kubeconfig.BearerToken.class);
        } else {
            assertThatThrownBy(() -> issue.issue(w.alice, credentials(c)))
                    .hasFieldOrPropertyWithValue("code", ErrorCode.valueOf(outcome));
        }
    }

    /** Out of 600 to 86,400 seconds a ttl is refused before a command exists: ClusterBodiesTest in the HTTP adapter. */
    @ParameterizedTest(name = "ttlSeconds {0}")
    @ValueSource(ints = {600, 3600, 86400})
    void ttl_is_600_to_86400_seconds(int ttl) {
        Cluster c = ready(w.create(w.alice, standard("std")));
        IssueCredentials.Credentials cred = issue.issue(w.alice, credentials(c, CredentialRole.VIEW, ttl));
        assertThat(k8s.minted().get(0).askedSeconds()).isEqualTo(ttl);
        assertThat(cred.expiresAt()).isEqualTo(w.ports.clock().instant().plusSeconds(ttl));
    }

    @Test
    void ttl_defaults_to_the_modules_setting_and_the_setting_is_bounded() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        issue.issue(w.alice, credentials(c));
        assertThat(k8s.minted().get(0).askedSeconds()).isEqualTo(3600);
        IssueCredentials shorter = new IssueCredentials(w.ports.transactions(), w.ports.clusters(), w.ports.catalog(),
                w.ports.outbox(), w.authorizer, account -> provider, k8s, 900, w.ports.clock());
        shorter.issue(w.alice, credentials(c));
        assertThat(k8s.minted().get(1).askedSeconds()).isEqualTo(900);
        assertThatThrownBy(() -> new IssueCredentials(w.ports.transactions(), w.ports.clusters(), w.ports.catalog(),
                w.ports.outbox(), w.authorizer, account -> provider, k8s, 599, w.ports.clock()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void expires_at_is_what_the_cluster_answered_not_what_was_asked() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        k8s.maxTokenLifetime(Duration.ofMinutes(15));
        IssueCredentials.Credentials cred = issue.issue(w.alice, credentials(c, CredentialRole.VIEW, 7200));
        assertThat(cred.expiresAt()).isEqualTo(w.ports.clock().instant().plus(Duration.ofMinutes(15)));
        assertThat(lastEvent().data()).containsEntry("ttlSeconds", 7200)
                .containsEntry("expiresAt", cred.expiresAt().toString());
    }

    @Test
    void one_service_account_per_caller_and_role_bound_to_the_builtin_role() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        for (String role : List.of("view", "edit", "admin", "view")) {
            issue.issue(w.alice, credentials(c, CredentialRole.BY_WIRE.get(role), null));
        }
        issue.issue(w.dave, credentials(c));
        String alice = IssueCredentials.serviceAccount("user:alice@acme.example", CredentialRole.VIEW).replace("-view", "");
        assertThat(alice).matches("bc-u-[0-9a-f]{16}");
        Map<String, String> accounts = k8s.accounts("https://" + ENDPOINT);
        assertThat(accounts).containsEntry(alice + "-view", "view").containsEntry(alice + "-edit", "edit")
                .containsEntry(alice + "-admin", "cluster-admin").hasSize(4);
        assertThat(k8s.minted()).extracting(InMemoryTenantClusterClient.Minted::serviceAccount)
                .containsExactly(alice + "-view", alice + "-edit", alice + "-admin", alice + "-view",
                        IssueCredentials.serviceAccount("user:dave@acme.example", CredentialRole.VIEW));
        assertThat(IssueCredentials.serviceAccount("user:dave@acme.example", CredentialRole.VIEW)).isNotEqualTo(alice + "-view");
        assertThat(k8s.minted()).extracting(InMemoryTenantClusterClient.Minted::audience).containsOnlyNulls();
        assertThat(k8s.platformTokensSeen()).containsOnly(InMemoryClusterProvider.PLATFORM_TOKEN);
    }

    @Test
    void the_kubeconfig_names_the_server_the_ca_and_the_minted_token_and_never_shows_the_token() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        IssueCredentials.Credentials cred = issue.issue(w.alice, credentials(c, CredentialRole.EDIT, null));
        Kubeconfig kubeconfig = cred.kubeconfig();
        String token = k8s.minted().get(0).token();

        assertThat(kubeconfig.name()).isEqualTo("bc-acme-std-edit");
        assertThat(kubeconfig.server()).isEqualTo("https://" + ENDPOINT);
        assertThat(kubeconfig.caBase64()).isEqualTo(CA);
        assertThat(kubeconfig.user()).isEqualTo(new Kubeconfig.BearerToken(token));
        assertThat(cred.toString()).doesNotContain(token);
        assertThat(kubeconfig.toString()).doesNotContain(token);
    }

    @Test
    void the_event_names_role_subject_identity_ttl_and_expiry_but_never_the_token() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        IssueCredentials.Credentials cred = issue.issue(w.alice, credentials(c, CredentialRole.ADMIN, 1200));
        DomainEvent e = lastEvent();
        assertThat(e.type()).isEqualTo("kubernetes.cluster.credentials-issued");
        assertThat(e.subjectId()).isEqualTo(c.id());
        assertThat(e.data()).containsEntry("role", "admin").containsEntry("identity", "user:alice@acme.example")
                .containsEntry("subject", "system:serviceaccount:better-compute-system:"
                        + IssueCredentials.serviceAccount("user:alice@acme.example", CredentialRole.ADMIN))
                .containsEntry("ttlSeconds", 1200).containsEntry("expiresAt", cred.expiresAt().toString());
        String token = k8s.minted().get(0).token();
        assertThat(e.toString()).doesNotContain(token);
        assertThat(e.data().values()).allSatisfy(v -> assertThat(String.valueOf(v)).doesNotContain(token));
    }

    @Test
    void a_cluster_that_cannot_be_reached_is_an_error_without_event() {
        Cluster c = ready(w.create(w.alice, standard("std")));
        k8s.failNextCall(new ProviderException(ProviderException.Kind.UNAVAILABLE, "connection refused"));
        assertThatThrownBy(() -> issue.issue(w.alice, credentials(c)))
                .isInstanceOf(DomainException.class).hasFieldOrPropertyWithValue("code", ErrorCode.INTERNAL);
        assertThat(credentialEvents()).isEmpty();
    }

    private Cluster ready(Cluster c) {
        Cluster changed = c.toBuilder().state(ClusterState.READY).endpoint(ENDPOINT).readyAt(w.ports.clock().instant())
                .progress(new Cluster.Progress(null, null, null, 0, null, CA)).version(c.version() + 1).build();
        assertThat(w.ports.clusters().update(changed, c.version())).isTrue();
        return changed;
    }

    /** Credentials of the cluster's tenant: the role and the ttl (null: the module's setting) asked. */
    private static CredentialsCommand credentials(Cluster c, CredentialRole role, Integer ttlSeconds) {
        return new CredentialsCommand(c.tenantId(), c.id(), role, ttlSeconds);
    }

    private static CredentialsCommand credentials(Cluster c) {
        return credentials(c, CredentialRole.VIEW, null);
    }

    private List<DomainEvent> credentialEvents() {
        return w.ports.outbox().read(0, 1000, null).stream().map(StoredEvent::event)
                .filter(e -> e.type().equals(ClusterEvents.CREDENTIALS_ISSUED)).toList();
    }

    private DomainEvent lastEvent() {
        List<DomainEvent> events = credentialEvents();
        return events.get(events.size() - 1);
    }
}
