package com.bettercompute.adapters.http;

import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.Refusal;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /api/operator/load-balancers} over HTTP: who holds which address, for an operator token only. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorLoadBalancersRouteTest {
    MarketApiWorld api;

    @BeforeAll
    void start() {
        api = new MarketApiWorld();
        Instant now = api.w.ports.clock().instant();
        api.w.ports.transactions().inTransaction(() -> {
            api.loadBalancers.insert(row(MarketWorld.ACME_TRAIN, "acme", "us-central1", "serve", "uid-1", now)
                    .serving("127.0.10.1", now));
            api.loadBalancers.insert(row(MarketWorld.GLOBEX_TRAIN, "globex", "us-central1", "web", "uid-2", now)
                    .pending(new Refusal(RefusalReason.POOL_LIMIT, "the region's shared address pool is full"), now));
            return null;
        });
    }

    @AfterAll
    void stop() {
        api.close();
    }

    static LoadBalancer row(String cluster, String tenant, String region, String name, String uid, Instant now) {
        LoadBalancerService s = new LoadBalancerService("shop", name, uid, true, null, List.of(), true, false, 0, false, true, null);
        return LoadBalancer.first(cluster, tenant, s, "platform-prod", region, LoadBalancerState.RESERVING, null, now);
    }

    @Test
    void an_operator_reads_who_holds_which_address() {
        MarketApiWorld.Reply r = api.send("GET", LoadBalancerRoutes.PATH, MarketWorld.OPS, null);

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<String> seen = new ArrayList<>();
        for (JsonNode i : r.json().get("items")) {
            seen.add(i.get("tenant").asText() + " " + i.get("cluster").asText() + " " + i.get("namespace").asText() + "/"
                    + i.get("service").asText() + " " + i.get("region").asText() + " " + i.get("address").asText() + " "
                    + i.get("state").asText() + " " + i.get("reason").asText());
        }
        assertThat(seen).containsExactlyInAnyOrder("acme train shop/serve us-central1 127.0.10.1 serving null",
                "globex train shop/web us-central1 null pending pool-limit");
    }

    @Test
    void tenant_and_region_narrow_the_list() {
        MarketApiWorld.Reply r = api.send("GET", LoadBalancerRoutes.PATH + "?tenant=globex&region=us-central1", MarketWorld.OPS, null);

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("items")).extracting(i -> i.get("service").asText()).containsExactly("web");
    }

    @Test
    void a_tenant_token_is_refused_and_learns_nothing() {
        MarketApiWorld.Reply r = api.send("GET", LoadBalancerRoutes.PATH + "?tenant=acme", MarketWorld.ALICE, null);

        assertThat(r.status()).isEqualTo(403);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("ACCESS_DENIED");
        assertThat(r.body()).doesNotContain("127.0.10.1");
    }

    @Test
    void a_malformed_region_is_invalid_input_naming_the_field() {
        MarketApiWorld.Reply r = api.send("GET", LoadBalancerRoutes.PATH + "?region=US%20CENTRAL", MarketWorld.OPS, null);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().at("/error/code").asText()).isEqualTo("INVALID_INPUT");
        assertThat(r.json().at("/error/details/fields/0/field").asText()).isEqualTo("region");
    }

    @Test
    void the_document_declares_the_route_and_an_item_has_exactly_its_schemas_fields() {
        JsonNode doc = api.send("GET", OpenApi.PATH, null, null).json();
        JsonNode op = doc.at("/paths/~1api~1operator~1load-balancers/get");
        assertThat(op.get("operationId").asText()).isEqualTo("readLoadBalancers");
        assertThat(op.get("parameters")).extracting(p -> p.get("name").asText()).containsExactly("tenant", "region");

        JsonNode item = api.send("GET", LoadBalancerRoutes.PATH, MarketWorld.OPS, null).json().get("items").get(0);
        List<String> written = new ArrayList<>();
        item.fieldNames().forEachRemaining(written::add);
        assertThat(written).containsExactlyElementsOf(OpenApiTest.fields(doc.at("/components/schemas/LoadBalancerItem")));
    }
}
