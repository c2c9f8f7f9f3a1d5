package com.bettercompute.bootstrap.e2e;

import com.bettercompute.client.ApiClient;
import com.bettercompute.client.ApiException;
import com.bettercompute.client.api.KubernetesClustersApi;
import com.bettercompute.client.api.K8sApi;
import com.bettercompute.client.api.OperatorApi;
import com.bettercompute.client.model.Accelerators;
import com.bettercompute.client.model.CreditsBody;
import com.bettercompute.client.model.MarketBalance;
import com.bettercompute.client.model.MarketCredit;
import com.bettercompute.client.model.MarketFeedPage;
import com.bettercompute.client.model.ClusterView;
import com.bettercompute.client.model.CreateCluster;
import com.bettercompute.client.model.ErrorBody;
import com.bettercompute.client.model.NodePool;
import com.bettercompute.client.model.OneCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A client generated at build time by openapi-generator (Java, {@code native}: java.net.http and Jackson) from
 * {@code docs/openapi.json} — the served document, as {@code OpenApiTest} proves — calls the real server on
 * the embedded PostgreSQL: create, get, an error it can read, the market's tenant and operator routes, and the
 * shared volumes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeneratedClientCreatesClusterTest {
    RunningServer server;
    KubernetesClustersApi clusters;
    K8sApi market;
    OperatorApi operator;

    @BeforeAll
    void start() {
        server = RunningServer.start(RunningServer.postgres());
        ApiClient client = new ApiClient();
        URI base = URI.create(server.baseUrl());
        client.setScheme(base.getScheme()).setHost(base.getHost()).setPort(base.getPort()).setBasePath("");
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + RunningServer.ALICE));
        clusters = new KubernetesClustersApi(client);
        market = new K8sApi(client);
        ApiClient ops = new ApiClient();
        ops.setScheme(base.getScheme()).setHost(base.getHost()).setPort(base.getPort()).setBasePath("");
        ops.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + RunningServer.OPS));
        operator = new OperatorApi(ops);
    }

    @Test
    void the_market_routes_through_the_generated_client() throws ApiException {
        MarketBalance before = market.marketReadBalance(null);
        MarketCredit credit = operator.operatorMarketPostCredits(new CreditsBody().org("acme").amount("12.50")
                .note("generated client").idempotencyKey("generated-top-up"));
        assertThat(credit.getOrg()).isEqualTo("acme");
        assertThat(credit.getReplayed()).isFalse();

        MarketBalance after = market.marketReadBalance(null);
        assertThat(new java.math.BigDecimal(after.getCredits()).subtract(new java.math.BigDecimal(before.getCredits())))
                .isEqualByComparingTo("12.5");
        MarketFeedPage feed = market.marketReadFeed(null, 0L, 10, null);
        assertThat(feed.getItems()).hasSizeLessThanOrEqualTo(10);
        ApiException refused = catchThrowableOfType(ApiException.class, () -> market.marketReadBid("no-such-cluster", null));
        assertThat(refused.getCode()).isEqualTo(404);
    }

    @Test
    void the_shared_volumes_through_the_generated_client() throws ApiException {
        // the test's catalog provisions no shared volume
        assertThat(market.storageReadVolumes(null).getItems()).isEmpty();
        String storageName = "bc-v-0123456789abcdefghjkmnpq";
        ApiException sessionOnly = catchThrowableOfType(ApiException.class,
                () -> market.storageDeleteVolumes(storageName, storageName, null));
        assertThat(sessionOnly.getCode()).as("every API token is refused the delete").isEqualTo(403);
        assertThat(sessionOnly.getResponseBody()).contains("session-required");
    }

    @Test
    void every_operation_of_the_document_is_a_method_of_the_generated_client() throws Exception {
        com.fasterxml.jackson.databind.JsonNode paths = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(java.nio.file.Path.of("..", "docs", "openapi.json").toFile()).get("paths");
        List<String> missing = new java.util.ArrayList<>();
        int operations = 0;
        for (var path : (Iterable<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>>) paths::fields) {
            for (var op : (Iterable<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>>) path.getValue()::fields) {
                operations++;
                String tag = op.getValue().get("tags").get(0).asText();
                String id = op.getValue().get("operationId").asText();
                Class<?> api = Class.forName("com.bettercompute.client.api." + Character.toUpperCase(tag.charAt(0)) + tag.substring(1) + "Api");
                if (java.util.Arrays.stream(api.getMethods()).noneMatch(m -> m.getName().equals(id))) {
                    missing.add(api.getSimpleName() + "." + id);
                }
            }
        }
        assertThat(operations).isEqualTo(30);
        assertThat(missing).isEmpty();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static CreateCluster standard(String name) {
        return new CreateCluster().tenantId("acme").poolId(RunningServer.POOL).name(name).mode(CreateCluster.ModeEnum.STANDARD)
                .location("us-central1-a").idempotencyKey("key-" + name)
                .nodePools(List.of(new NodePool().name("gpu").machineType("a3-highgpu-8g").nodeCount(2)
                        .accelerators(new Accelerators().type("nvidia-h100-80gb").count(8))
                        .labels(Map.of("team", "ml"))));
    }

    @Test
    void create_then_get_through_the_generated_client() throws ApiException {
        ClusterView created = clusters.kubernetesClustersCreate(standard("generated"));

        assertThat(created.getId()).startsWith("kcl_");
        assertThat(created.getTenantId()).isEqualTo("acme");
        assertThat(created.getName()).isEqualTo("generated");
        assertThat(created.getState()).isEqualTo("pending");
        assertThat(created.getVersion()).isEqualTo(1);
        // the pool asked for, then the platform's CPU worker
        assertThat(created.getNodePools()).extracting(p -> p.getName()).containsExactly("gpu", "bc-cpu-worker");
        assertThat(created.getNodePools()).first().satisfies(pool -> {
            assertThat(pool.getName()).isEqualTo("gpu");
            assertThat(pool.getNodeCount()).isEqualTo(2);
            assertThat(pool.getAccelerators().getType()).isEqualTo("nvidia-h100-80gb");
            assertThat(pool.getLabels()).containsEntry("team", "ml");
        });

        ClusterView got = clusters.kubernetesClustersGet(new OneCluster().tenantId("acme").clusterId(created.getId()));
        assertThat(got).isEqualTo(created);

        ClusterView again = clusters.kubernetesClustersCreate(standard("generated"));
        assertThat(again.getId()).as("the same idempotency key answers the same cluster").isEqualTo(created.getId());
    }

    @Test
    void a_refused_create_is_an_error_body_the_generated_model_reads() throws Exception {
        ApiException e = catchThrowableOfType(ApiException.class,
                () -> clusters.kubernetesClustersCreate(standard("Not_A_Name")));

        assertThat(e.getCode()).isEqualTo(400);
        ErrorBody body = new ApiClient().getObjectMapper().readValue(e.getResponseBody(), ErrorBody.class);
        assertThat(String.valueOf(body.getError().getCode())).isEqualTo("INVALID_INPUT");
        assertThat(body.getError().getDetails().getFields()).anySatisfy(f -> {
            assertThat(f.getField()).isEqualTo("name");
            assertThat(String.valueOf(f.getIn())).isEqualTo("body");
            assertThat(f.getProblem()).startsWith("must be lower-case letters");
        });
    }
}
