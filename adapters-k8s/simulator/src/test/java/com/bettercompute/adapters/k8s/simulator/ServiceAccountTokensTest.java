package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every simulated cluster is the OIDC issuer of its ServiceAccount tokens: TokenRequest answers an RS256 JWT
 * naming the cluster as issuer, whose discovery document and JWKS are public, so the token verifies outside
 * the cluster; inside, it is the account's for as long as the account stands, in its own cluster only, and
 * for the API only when the API is among its audiences.
 */
class ServiceAccountTokensTest {
    private static SimulatedCluster.World world;
    private static SimulatedCluster cluster;
    private static SimulatedCluster other;
    private static Https https;
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @BeforeAll
    static void start() throws Exception {
        world = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
        cluster = new SimulatedCluster(world);
        other = new SimulatedCluster(world);
        https = new Https(world.apis.caCertificateBase64());
    }

    @AfterAll
    static void stop() {
        if (world != null) {
            cluster.close();
            other.close();
            world.close();
        }
    }

    private static ServiceAccount account(SimulatedCluster in, String name, String role) {
        ServiceAccount made = in.client.serviceAccounts().inNamespace("default")
                .resource(new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        in.apply("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: %s}
                subjects: [{kind: ServiceAccount, name: %s, namespace: default}]
                roleRef: {kind: ClusterRole, name: %s, apiGroup: rbac.authorization.k8s.io}
                """.formatted(name + "-" + role, name, role));
        return made;
    }

    private static String token(SimulatedCluster in, String name, String... audiences) {
        TokenRequest answer = in.client.serviceAccounts().inNamespace("default").withName(name)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withAudiences(audiences).withExpirationSeconds(3600L).endSpec().build());
        return answer.getStatus().getToken();
    }

    private static String issuerOf(SimulatedCluster in) {
        return world.apis.serviceAccountIssuer(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, in.name);
    }

    @Test
    void a_token_verifies_outside_the_cluster_against_the_public_discovery_document_and_jwks() throws Exception {
        String name = "robot-" + UUID.randomUUID().toString().substring(0, 8);
        ServiceAccount robot = account(cluster, name, "view");
        String token = token(cluster, name);

        HttpResponse<String> discovery = https.get(issuerOf(cluster) + "/.well-known/openid-configuration");
        assertThat(discovery.statusCode()).isEqualTo(200);
        Map<String, Object> document = JSON.unmarshal(discovery.body(), Map.class);
        assertThat(document).containsEntry("issuer", issuerOf(cluster))
                .containsEntry("jwks_uri", issuerOf(cluster) + "/openid/v1/jwks")
                .containsEntry("id_token_signing_alg_values_supported", List.of("RS256"));
        assertThat(issuerOf(cluster)).isEqualTo("https://" + world.apis.endpointFor(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, cluster.name));
        HttpResponse<String> jwks = https.get((String) document.get("jwks_uri"));
        assertThat(jwks.statusCode()).isEqualTo(200);
        JWKSet keys = JWKSet.parse(jwks.body());
        assertThat(keys.getKeys()).allSatisfy(k -> assertThat(k.isPrivate()).isFalse());

        DefaultJWTProcessor<SecurityContext> outside = new DefaultJWTProcessor<>();
        outside.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, new ImmutableJWKSet<>(keys)));
        outside.setJWTClaimsSetVerifier(null); // the simulator's clock is not the machine's: the times are checked below
        JWTClaimsSet claims = outside.process(token, null);
        assertThat(claims.getIssuer()).isEqualTo(issuerOf(cluster));
        assertThat(claims.getSubject()).isEqualTo("system:serviceaccount:default:" + name);
        assertThat(claims.getAudience()).containsExactly(issuerOf(cluster));
        assertThat(claims.getIssueTime().toInstant()).isEqualTo(world.clock.instant());
        assertThat(claims.getExpirationTime().toInstant()).isEqualTo(world.clock.instant().plusSeconds(3600));
        assertThat(claims.getJSONObjectClaim("kubernetes.io")).containsEntry("namespace", "default")
                .containsEntry("serviceaccount", Map.of("name", name, "uid", robot.getMetadata().getUid()));
    }

    @Test
    void the_discovery_document_and_jwks_need_no_token_but_a_running_cluster() throws Exception {
        assertThat(https.get(issuerOf(cluster) + "/openid/v1/jwks").headers().firstValue("Content-Type")).hasValue("application/jwk-set+json");
        String gone = "https://" + world.apis.endpointFor(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, "never-made");
        assertThat(https.get(gone + "/.well-known/openid-configuration").statusCode()).isEqualTo(404);
        assertThat(https.get(issuerOf(cluster) + "/api/v1/nodes").statusCode()).as("the rest still needs a token").isEqualTo(401);
    }

    @Test
    void a_token_works_in_its_own_cluster_only() {
        account(cluster, "twin", "view");
        account(other, "twin", "view");
        String token = token(cluster, "twin");
        try (KubernetesClient here = cluster.clientWith(token); KubernetesClient there = other.clientWith(token)) {
            assertThat(SimulatedCluster.code(() -> here.pods().inNamespace("default").list())).isNull();
            assertThat(SimulatedCluster.code(() -> there.pods().inNamespace("default").list())).isEqualTo(401);
        }
    }

    @Test
    void deleting_the_account_revokes_its_tokens_and_a_new_account_of_that_name_does_not_revive_them() {
        account(cluster, "fleeting", "view");
        String token = token(cluster, "fleeting");
        try (KubernetesClient robot = cluster.clientWith(token)) {
            assertThat(SimulatedCluster.code(() -> robot.pods().inNamespace("default").list())).isNull();
            cluster.client.serviceAccounts().inNamespace("default").withName("fleeting").delete();
            assertThat(SimulatedCluster.code(() -> robot.pods().inNamespace("default").list())).isEqualTo(401);
            cluster.client.serviceAccounts().inNamespace("default")
                    .resource(new ServiceAccountBuilder().withNewMetadata().withName("fleeting").endMetadata().build()).create();
            assertThat(SimulatedCluster.code(() -> robot.pods().inNamespace("default").list())).isEqualTo(401);
        }
    }

    @Test
    void a_token_for_another_audience_is_not_for_the_api_but_a_token_review_for_that_audience_accepts_it() throws Exception {
        account(cluster, "vaulted", "view");
        String token = token(cluster, "vaulted", "vault");
        try (KubernetesClient robot = cluster.clientWith(token)) {
            assertThat(SimulatedCluster.code(() -> robot.pods().inNamespace("default").list())).isEqualTo(401);
        }
        String reviews = issuerOf(cluster) + "/apis/authentication.k8s.io/v1/tokenreviews";
        Map<String, Object> forVault = review(reviews, world.apis.adminToken(), token, List.of("vault"));
        assertThat(Obj.map(forVault.get("status"))).containsEntry("authenticated", true).containsEntry("audiences", List.of("vault"));
        assertThat(Obj.map(Obj.at(forVault, "status", "user"))).containsEntry("username", "system:serviceaccount:default:vaulted")
                .containsEntry("groups", List.of("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"));
        assertThat(forVault.toString()).doesNotContain(token);
        Map<String, Object> forTheApi = review(reviews, world.apis.adminToken(), token, List.of());
        assertThat(Obj.map(forTheApi.get("status"))).containsEntry("authenticated", false);
    }

    @Test
    void only_who_may_create_token_reviews_may_ask() throws Exception {
        account(cluster, "nosy", "view");
        String token = token(cluster, "nosy");
        HttpResponse<String> refused = https.post(issuerOf(cluster) + "/apis/authentication.k8s.io/v1/tokenreviews", token,
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"" + token + "\"}}");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("User \\\"system:serviceaccount:default:nosy\\\" cannot create resource \\\"tokenreviews\\\" "
                + "in API group \\\"authentication.k8s.io\\\" at the cluster scope");
    }

    private static Map<String, Object> review(String url, String as, String token, List<String> audiences) throws Exception {
        HttpResponse<String> answer = https.post(url, as, JSON.asJson(Map.of("apiVersion", "authentication.k8s.io/v1", "kind", "TokenReview",
                "spec", Map.of("token", token, "audiences", audiences))));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        return JSON.unmarshal(answer.body(), Map.class);
    }
}
