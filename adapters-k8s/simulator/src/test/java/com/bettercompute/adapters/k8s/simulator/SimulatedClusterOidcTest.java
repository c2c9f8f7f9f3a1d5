package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A simulated cluster trusting an OpenID Connect issuer (a stand-in for the platform, over HTTP on loopback)
 * only as its Identity Service for GKE configuration says — the {@code ClientConfig} {@code default} in
 * {@code kube-public}, with the documented fields — and as kube-apiserver's OIDC authenticator checks tokens: a
 * person's ID token for this cluster is the user {@code nc:<sub>} in the groups it names, and the platform's bindings
 * of {@code nc:view|edit|admin} give the roles; every token that is not exactly right is 401.
 */
class SimulatedClusterOidcTest {
    private static SimulatedCluster.World world;
    private static SimulatedCluster cluster;
    private static TestIssuer issuer;
    private static String audience;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        world = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
        cluster = new SimulatedCluster(world);
        issuer = new TestIssuer();
        cluster.enableIdentityService(world);
        cluster.trust(issuer.uri());
        audience = SimulatedKubernetesApis.audienceOf(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, cluster.name);
        for (String[] binding : new String[][] {{"view", "view"}, {"edit", "edit"}, {"admin", "cluster-admin"}}) {
            cluster.apply("""
                    apiVersion: rbac.authorization.k8s.io/v1
                    kind: ClusterRoleBinding
                    metadata: {name: nc-oidc-%s}
                    subjects: [{kind: Group, name: "nc:%s", apiGroup: rbac.authorization.k8s.io}]
                    roleRef: {kind: ClusterRole, name: %s, apiGroup: rbac.authorization.k8s.io}
                    """.formatted(binding[0], binding[0], binding[1]));
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
            world.close();
        }
        if (issuer != null) {
            issuer.close();
        }
    }

    private static Instant now() {
        return world.clock.instant();
    }

    private static String idToken(String subject, String... groups) {
        return issuer.sign(issuer.idToken(audience, subject, List.of(groups), now()));
    }

    @ParameterizedTest(name = "{0}: list nodes {1}, write in a namespace {2}, create a namespace {3}")
    @CsvSource(nullValues = "ok", value = {
            "nc:view,  ok,  403, 403",
            "nc:edit,  ok,  ok,  403",
            "nc:admin, ok,  ok,  ok",
            "nc:other, 403, 403, 403"})
    void the_group_claim_gives_the_role_the_platform_bound_to_it(String group, Integer nodes, Integer write, Integer namespace) {
        String subject = "u-" + UUID.randomUUID();
        try (KubernetesClient person = cluster.clientWith(idToken(subject, group))) {
            assertThat(SimulatedCluster.code(() -> person.nodes().list())).as("list nodes").isEqualTo(nodes);
            assertThat(SimulatedCluster.code(() -> person.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName("cm-" + subject).endMetadata().build()).create())).as("create a config map").isEqualTo(write);
            assertThat(SimulatedCluster.code(() -> person.namespaces().resource(new NamespaceBuilder()
                    .withNewMetadata().withName("ns-" + subject).endMetadata().build()).create())).as("create a namespace").isEqualTo(namespace);
        }
    }

    @Test
    void a_refusal_names_the_user_verb_resource_and_scope_as_kube_apiserver_does() {
        try (KubernetesClient viewer = cluster.clientWith(idToken("abc", "nc:view"))) {
            assertThatThrownBy(() -> viewer.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("x").endMetadata().build()).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(403);
                        assertThat(e.getStatus().getReason()).isEqualTo("Forbidden");
                        assertThat(e.getStatus().getMessage()).isEqualTo("namespaces is forbidden: User \"nc:abc\" cannot create resource "
                                + "\"namespaces\" in API group \"\" at the cluster scope");
                    });
            assertThatThrownBy(() -> viewer.secrets().inNamespace("default").withName("db").get())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getStatus().getMessage())
                            .isEqualTo("secrets \"db\" is forbidden: User \"nc:abc\" cannot get resource \"secrets\" in API group \"\" in the namespace \"default\""));
        }
    }

    @Test
    void a_token_review_names_the_person_and_groups_of_an_id_token() throws Exception {
        String issuerUrl = world.apis.serviceAccountIssuer(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, cluster.name);
        java.net.http.HttpResponse<String> answer = new Https(world.apis.caCertificateBase64()).post(issuerUrl + "/apis/authentication.k8s.io/v1/tokenreviews",
                world.apis.adminToken(), "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\""
                        + idToken("abc", "nc:view") + "\"}}");
        assertThat(answer.statusCode()).isEqualTo(201);
        java.util.Map<String, Object> review = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal(answer.body(), java.util.Map.class);
        assertThat(Obj.map(review.get("status"))).containsEntry("authenticated", true).containsEntry("audiences", List.of(issuerUrl));
        assertThat(Obj.map(Obj.at(review, "status", "user"))).containsEntry("username", "nc:abc")
                .containsEntry("groups", List.of("nc:view", "system:authenticated"));
    }

    @Test
    void a_role_binding_to_a_user_grants_in_its_namespace_only() {
        cluster.apply("""
                apiVersion: v1
                kind: Namespace
                metadata: {name: team-a}
                """);
        cluster.apply("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: carol-edits, namespace: team-a}
                subjects: [{kind: User, name: "nc:carol", apiGroup: rbac.authorization.k8s.io}]
                roleRef: {kind: ClusterRole, name: edit, apiGroup: rbac.authorization.k8s.io}
                """);
        try (KubernetesClient carol = cluster.clientWith(idToken("carol"))) {
            assertThat(SimulatedCluster.code(() -> carol.configMaps().inNamespace("team-a").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName("settings").endMetadata().build()).create())).isNull();
            assertThat(SimulatedCluster.code(() -> carol.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName("settings").endMetadata().build()).create())).isEqualTo(403);
            assertThat(SimulatedCluster.code(() -> carol.nodes().list())).isEqualTo(403);
        }
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("another cluster's audience", (Supplier<String>) () -> issuer.sign(
                        issuer.idToken(SimulatedKubernetesApis.audienceOf(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, "elsewhere"),
                                "abc", List.of("nc:admin"), now()))),
                Arguments.of("another issuer", (Supplier<String>) () -> issuer.sign(
                        issuer.idToken(audience, "abc", List.of("nc:admin"), now()).issuer(issuer.url() + "/other"))),
                Arguments.of("expired", (Supplier<String>) () -> issuer.sign(issuer.idToken(audience, "abc", List.of("nc:admin"), now())
                        .expirationTime(Date.from(now().minus(ClockedClaimsVerifier.SKEW).minusSeconds(1))))),
                Arguments.of("not yet valid", (Supplier<String>) () -> issuer.sign(issuer.idToken(audience, "abc", List.of("nc:admin"), now())
                        .notBeforeTime(Date.from(now().plus(ClockedClaimsVerifier.SKEW).plusSeconds(60))))),
                Arguments.of("signed by a key the issuer does not publish, under its key's id", (Supplier<String>) () -> {
                    RSAKey published = TestIssuer.newKey();
                    RSAKey forger = new RSAKey.Builder(TestIssuer.newKey()).keyID(published.getKeyID()).build();
                    issuer.idToken(audience, "abc", List.of("nc:admin"), now());
                    return TestIssuer.sign(issuer.idToken(audience, "abc", List.of("nc:admin"), now()), forger);
                }),
                Arguments.of("no subject", (Supplier<String>) () -> issuer.sign(new JWTClaimsSet.Builder(
                        issuer.idToken(audience, "abc", List.of("nc:admin"), now()).build()).subject(null))),
                Arguments.of("a signature cut off", (Supplier<String>) () -> {
                    String token = idToken("abc", "nc:admin");
                    return token.substring(0, token.lastIndexOf('.') + 1);
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void an_id_token_that_is_not_exactly_right_is_401(String what, Supplier<String> token) {
        try (KubernetesClient person = cluster.clientWith(token.get())) {
            assertThat(SimulatedCluster.code(() -> person.nodes().list())).isEqualTo(401);
        }
    }

    @Test
    void an_id_token_expires_on_the_simulators_clock() {
        String token = idToken("abc", "nc:admin");
        try (KubernetesClient person = cluster.clientWith(token)) {
            assertThat(SimulatedCluster.code(() -> person.nodes().list())).isNull();
            world.clock.advance(Duration.ofSeconds(900).plus(ClockedClaimsVerifier.SKEW).plusSeconds(1));
            assertThat(SimulatedCluster.code(() -> person.nodes().list())).isEqualTo(401);
        }
    }

    private static final java.util.Map<SimulatedCluster, SimulatedCluster.World> WORLDS = new java.util.concurrent.ConcurrentHashMap<>();

    private static SimulatedCluster.World own(SimulatedCluster cluster) {
        return WORLDS.get(cluster);
    }

    /** A cluster of its own trusting an issuer of its own: the keys it caches and its refetch budget are this test's alone. */
    private static void withOwnIssuer(java.util.function.BiConsumer<SimulatedCluster, TestIssuer> test) {
        try (SimulatedCluster.World own = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
             SimulatedCluster alone = new SimulatedCluster(own);
             TestIssuer keys = new TestIssuer()) {
            alone.enableIdentityService(own);
            alone.trust(keys.uri());
            bindAdmins(alone);
            WORLDS.put(alone, own);
            try {
                test.accept(alone, keys);
            } finally {
                WORLDS.remove(alone);
            }
        }
    }

    /** The platform's binding of its {@code nc:admin} group to cluster-admin. */
    private static void bindAdmins(SimulatedCluster alone) {
        alone.apply("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: nc-oidc-admin}
                subjects: [{kind: Group, name: "nc:admin", apiGroup: rbac.authorization.k8s.io}]
                roleRef: {kind: ClusterRole, name: cluster-admin, apiGroup: rbac.authorization.k8s.io}
                """);
    }

    private static JWTClaimsSet.Builder adminClaims(SimulatedCluster alone, TestIssuer keys) {
        return keys.idToken(SimulatedKubernetesApis.audienceOf(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, alone.name),
                "abc", List.of("nc:admin"), alone.clock.instant());
    }

    @Test
    void a_key_the_issuer_rotated_in_is_fetched_when_a_token_names_it() {
        withOwnIssuer((alone, keys) -> {
            assertThat(keys.jwksReads.get()).as("nothing read before a first token").isZero();
            try (KubernetesClient before = alone.clientWith(keys.sign(adminClaims(alone, keys)))) {
                assertThat(SimulatedCluster.code(() -> before.nodes().list())).isNull();
                assertThat(SimulatedCluster.code(() -> before.nodes().list())).isNull();
            }
            assertThat(keys.jwksReads.get()).as("read once, then cached").isEqualTo(1);
            keys.rotate();
            try (KubernetesClient after = alone.clientWith(keys.sign(adminClaims(alone, keys)))) {
                assertThat(SimulatedCluster.code(() -> after.nodes().list())).isNull();
            }
            assertThat(keys.jwksReads.get()).as("read again for the new key").isEqualTo(2);
        });
    }

    @Test
    void tokens_naming_keys_nobody_published_do_not_make_the_cluster_read_the_jwks_each_time() {
        withOwnIssuer((alone, keys) -> {
            for (int i = 0; i < 10; i++) {
                try (KubernetesClient forged = alone.clientWith(TestIssuer.sign(adminClaims(alone, keys), TestIssuer.newKey()))) {
                    assertThat(SimulatedCluster.code(() -> forged.nodes().list())).isEqualTo(401);
                }
            }
            assertThat(keys.jwksReads.get()).as("JWKS reads for 10 unknown keys").isBetween(1, 2);
        });
    }

    @Test
    void identity_service_brings_the_client_config_kind_and_its_default_object_naming_the_cluster_and_no_issuer() {
        try (SimulatedCluster.World own = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
             SimulatedCluster alone = new SimulatedCluster(own)) {
            assertThat(alone.client.apiextensions().v1().customResourceDefinitions().withName("clientconfigs.authentication.gke.io").get())
                    .as("not before it is enabled").isNull();
            alone.enableIdentityService(own);

            var config = alone.client.genericKubernetesResources("authentication.gke.io/v2alpha1", "ClientConfig").inNamespace("kube-public")
                    .withName("default").get();
            java.util.Map<String, Object> spec = Obj.map(config.getAdditionalProperties().get("spec"));
            assertThat(spec).containsEntry("name", alone.name)
                    .containsEntry("server", "https://" + own.apis.endpointFor(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, alone.name))
                    .containsEntry("certificateAuthorityData", own.apis.caCertificateBase64())
                    .doesNotContainKey("authentication");
        }
    }

    @Test
    void an_id_token_is_refused_before_the_client_config_names_its_issuer_and_accepted_after() {
        try (SimulatedCluster.World own = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
             SimulatedCluster alone = new SimulatedCluster(own);
             TestIssuer keys = new TestIssuer()) {
            bindAdmins(alone);
            try (KubernetesClient person = alone.clientWith(keys.sign(adminClaims(alone, keys)))) {
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).as("no Identity Service").isEqualTo(401);
                alone.enableIdentityService(own);
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).as("Identity Service, no issuer in its ClientConfig")
                        .isEqualTo(401);
                alone.trust(keys.uri());
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).as("the ClientConfig names the issuer").isNull();
            }
        }
    }

    @Test
    void a_client_config_counts_only_while_identity_service_is_enabled() {
        withOwnIssuer((alone, keys) -> {
            try (KubernetesClient person = alone.clientWith(keys.sign(adminClaims(alone, keys)))) {
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).isNull();
                own(alone).identityService.remove(alone.name);
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).as("Identity Service turned off").isEqualTo(401);
            }
        });
    }

    @Test
    void a_client_config_for_another_client_id_does_not_let_the_token_in() {
        withOwnIssuer((alone, keys) -> {
            String elsewhere = SimulatedKubernetesApis.audienceOf(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, "elsewhere");
            try (KubernetesClient person = alone.clientWith(keys.sign(keys.idToken(elsewhere, "abc", List.of("nc:admin"), alone.clock.instant())))) {
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).isEqualTo(401);
            }
        });
    }

    @ParameterizedTest(name = "userPrefix {0}, groupPrefix {1}: user {2}, group {3}")
    @CsvSource(nullValues = "absent", value = {
            "nc:,    absent, nc:abc,        nc:view",
            "-,      absent, abc,           nc:view",
            "absent, absent, ISSUER#abc,    nc:view",
            "nc:,    oidc:,  nc:abc,        oidc:nc:view"})
    void the_user_and_groups_are_named_by_the_client_configs_prefixes(String userPrefix, String groupPrefix, String user, String group)
            throws Exception {
        java.util.Map<String, Object> oidc = new java.util.HashMap<>(java.util.Map.of("issuerURI", issuer.url(), "clientID", audience,
                "groupsClaim", "groups"));
        if (userPrefix != null) {
            oidc.put("userPrefix", userPrefix);
        }
        if (groupPrefix != null) {
            oidc.put("groupPrefix", groupPrefix);
        }
        Caller caller = OidcAuthenticator.trusting(issuer.uri(), world.clock).authenticate(
                com.nimbusds.jwt.SignedJWT.parse(idToken("abc", "nc:view")), OidcAuthenticator.Rules.of(oidc));

        assertThat(caller.user()).isEqualTo(user.replace("ISSUER", issuer.url()));
        assertThat(caller.groups()).containsExactly(group, "system:authenticated");
    }

    @Test
    void a_client_config_naming_an_issuer_that_cannot_be_trusted_leaves_id_tokens_refused() {
        withOwnIssuer((alone, keys) -> {
            alone.trust(URI.create("http://example.com"));
            try (KubernetesClient person = alone.clientWith(keys.sign(adminClaims(alone, keys).issuer("http://example.com")))) {
                assertThat(SimulatedCluster.code(() -> person.nodes().list())).isEqualTo(401);
            }
        });
    }

    @Test
    void an_issuer_is_https_or_http_on_loopback() {
        assertThatThrownBy(() -> OidcAuthenticator.trusting(URI.create("http://example.com"), world.clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("https");
        assertThatThrownBy(() -> OidcAuthenticator.trusting(URI.create("ftp://127.0.0.1/x"), world.clock))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(OidcAuthenticator.trusting(URI.create("https://platform.example.com/"), world.clock).issuer())
                .isEqualTo("https://platform.example.com");
        assertThat(OidcAuthenticator.trusting(URI.create("http://127.0.0.1:8080"), world.clock).issuer()).isEqualTo("http://127.0.0.1:8080");
        assertThat(OidcAuthenticator.trusting(URI.create("http://localhost:8080"), world.clock).issuer()).isEqualTo("http://localhost:8080");
    }

    @Test
    void kubectl_with_an_id_token_lists_nodes_as_an_admin_and_is_refused_a_namespace_as_a_viewer() throws Exception {
        String kubectl = Kubectl.find().orElse(null);
        assumeTrue(kubectl != null, "kubectl is not on the PATH");
        String server = "https://" + world.apis.endpointFor(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, cluster.name);
        Path admin = Files.writeString(dir.resolve("admin"), Kubectl.kubeconfig(server, world.apis.caCertificateBase64(), idToken("boss", "nc:admin")));
        Path viewer = Files.writeString(dir.resolve("viewer"), Kubectl.kubeconfig(server, world.apis.caCertificateBase64(), idToken("abc", "nc:view")));
        Path stranger = Files.writeString(dir.resolve("stranger"), Kubectl.kubeconfig(server, world.apis.caCertificateBase64(),
                TestIssuer.sign(issuer.idToken(audience, "abc", List.of("nc:admin"), now()), TestIssuer.newKey())));

        Kubectl.Run nodes = Kubectl.run(kubectl, admin, "get", "nodes");
        assertThat(nodes.exit()).as(nodes.output()).isZero();
        assertThat(nodes.output()).contains("gke-" + cluster.name).contains("Ready");

        Kubectl.Run readable = Kubectl.run(kubectl, viewer, "get", "nodes");
        assertThat(readable.exit()).as(readable.output()).isZero();
        Kubectl.Run refused = Kubectl.run(kubectl, viewer, "create", "namespace", "x");
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.output()).contains("Error from server (Forbidden): namespaces is forbidden: User \"nc:abc\" cannot create "
                + "resource \"namespaces\" in API group \"\" at the cluster scope");

        Kubectl.Run unknown = Kubectl.run(kubectl, stranger, "get", "nodes");
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.output()).contains("Unauthorized");
    }
}
