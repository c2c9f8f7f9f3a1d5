package com.bettercompute.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static com.bettercompute.adapters.http.MarketApiWorld.q;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each bad call to a market route is refused with the one error body, the status of its code and the
 * field or reason named, and leaves the market exactly as it was (so one server serves the whole table).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MarketRefusalsTest {
    final MarketApiWorld api = new MarketApiWorld();

    @AfterAll
    void stop() {
        api.close();
    }

    @ParameterizedTest(name = "{0} {1} {2} as {3}: {4} {5}")
    @CsvSource(delimiter = '|', value = {
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '1.19'}|alice|400|bid-too-low",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '2.4000001'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '-1'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '100000.01'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': 'cheap'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': 2.40}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '1e3'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train'}|alice|400|limit_price",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '2.40', 'price': '1'}|alice|400|price",
            "PUT|/api/k8s/bid|{'cluster': 'nosuch', 'limit_price': '2.40'}|alice|404|cluster",
            "PUT|/api/k8s/bid|{'cluster': 'eu', 'limit_price': '2.40'}|carol|404|cluster",
            "PUT|/api/k8s/bid|{'cluster': 'eu', 'limit_price': '2.40'}|alice|404|not-in-market",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '2.40'}|dave|403|compute:kubernetes:update",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '2.40'}|nobody|401|",
            "PUT|/api/k8s/bid|{'cluster': 'train', 'limit_price': '2.40'}|ops|403|",
            "GET|/api/k8s/bid||alice|400|cluster",
            "GET|/api/k8s/bid?cluster=Train!||alice|400|cluster",
            "GET|/api/k8s/bid?cluster=train&x=1||alice|400|x",
            "GET|/api/k8s/requests?cluster=nosuch||alice|404|cluster",
            "GET|/api/k8s/market/feed?pool=nope||alice|400|pool",
            "GET|/api/k8s/market/feed?pool=eu/none||alice|404|pool",
            "GET|/api/k8s/market/feed?after=x||alice|400|after",
            "GET|/api/k8s/market/feed?limit=5000||alice|400|limit",
            "GET|/api/k8s/balance?org=globex||alice|404|org",
            "PUT|/api/operator/market/reserve|{'pool': 'us-central1/h100-8x', 'reserve': '2.00'}|alice|403|",
            "PUT|/api/operator/market/reserve|{'pool': 'us-central1', 'reserve': '2.00'}|ops|400|pool",
            "PUT|/api/operator/market/reserve|{'pool': 'us-central1/none', 'reserve': '2.00'}|ops|404|",
            "PUT|/api/operator/market/reserve|{'pool': 'us-central1/h100-8x', 'reserve': '2.0000001'}|ops|400|reserve",
            "POST|/api/operator/market/supply|{'pool': 'us-central1/h100-8x', 'remove': 5}|ops|400|remove",
            "POST|/api/operator/market/supply|{'pool': 'us-central1/h100-8x', 'add': 1, 'remove': 1}|ops|400|add",
            "POST|/api/operator/market/supply|{'pool': 'us-central1/h100-8x', 'add': -1}|ops|400|add",
            "POST|/api/operator/market/nodes/out-of-service|{'node': 'no-such-node'}|ops|404|",
            "POST|/api/operator/market/nodes/back|{}|ops|400|node",
            "POST|/api/operator/market/credits|{'org': 'acme', 'amount': '10'}|ops|400|idempotency_key",
            "POST|/api/operator/market/credits|{'org': 'acme', 'amount': '0', 'idempotency_key': 'k'}|ops|400|amount",
            "POST|/api/operator/market/credits|{'org': 'nosuch', 'amount': '10', 'idempotency_key': 'k'}|ops|404|org",
            "POST|/api/operator/market/credits|{'org': 'acme', 'amount': '10', 'idempotency_key': 'k'}|alice|403|",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_n0sxch00000000000000000000'}|ops|404|cluster_id",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_nosuch'}|ops|400|cluster_id",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_acmeev00000000000000000000', 'max_cluster_gpus': -1}|ops|400|max_cluster_gpus",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_acmetrajn00000000000000000', 'block': {'pool': 'x', 'nodes': 1}}|ops|400|block.pool",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_acmetrajn00000000000000000', 'block': {'pool': 'us-central1/h100-8x', 'nodes': 9}}|ops|409|",
            "PUT|/api/operator/market/clusters|{'cluster_id': 'kcl_acmetrajn00000000000000000', 'packing': 'yes'}|ops|400|packing",
            "DELETE|/api/operator/market/clusters||ops|400|cluster_id",
            "DELETE|/api/operator/market/clusters?cluster_id=kcl_acmeev00000000000000000000||ops|404|cluster_id",
    })
    void a_bad_call_is_refused_cleanly_naming_what_is_wrong_and_changes_nothing(String method, String path, String body,
                                                                                 String who, int status, String named) {
        var before = api.w.markets.load().snapshot();
        MarketApiWorld.Reply r = api.send(method, path, MarketRoutesTest.token(who), body == null ? null : q(body));
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.requestId()).isNotNull();
        JsonNode error = r.json().get("error");
        assertThat(error.get("code").asText()).isNotEmpty();
        assertThat(error.get("message").asText()).isNotEmpty();
        if (named != null) {
            assertThat(r.body()).contains(named);
        }
        assertThat(api.w.markets.load().snapshot()).isEqualTo(before);
    }

}
