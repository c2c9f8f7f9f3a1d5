package com.bettercompute.adapters.http;

import com.bettercompute.application.market.MarketWorld;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static com.bettercompute.adapters.http.MarketApiWorld.q;
import static com.bettercompute.application.market.MarketWorld.ACME_TRAIN;
import static com.bettercompute.application.market.MarketWorld.ALICE;
import static com.bettercompute.application.market.MarketWorld.CAROL;
import static com.bettercompute.application.market.MarketWorld.DAVE;
import static com.bettercompute.application.market.MarketWorld.OPS;
import static org.assertj.core.api.Assertions.assertThat;

/** The market routes of docs/tenants/market.md over the market's use cases on in-memory fakes ({@link MarketApiWorld}). */
class MarketRoutesTest {
    final MarketApiWorld api = new MarketApiWorld();

    @AfterEach
    void stop() {
        api.close();
    }

    static String token(String who) {
        return switch (who) {
            case "alice" -> ALICE;
            case "dave" -> DAVE;
            case "carol" -> CAROL;
            case "ops" -> OPS;
            case "nobody" -> "token-nobody";
            default -> null;
        };
    }

    @Test
    void a_tenant_sets_reads_and_withdraws_its_limit_price() {
        MarketApiWorld.Reply set = api.send("PUT", "/api/k8s/bid", ALICE, q("{'cluster': 'train', 'limit_price': '2.40'}"));
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        JsonNode bid = set.json();
        assertThat(bid.get("cluster").asText()).isEqualTo("train");
        assertThat(bid.get("limit_price").asText()).isEqualTo("2.40");
        assertThat(bid.get("bid_too_low").asBoolean()).isFalse();
        assertThat(bid.get("updated_at").asText()).isNotEmpty();
        assertThat(bid.at("/pools/0/pool").asText()).isEqualTo(MarketWorld.POOL);
        assertThat(bid.at("/pools/0/reserve").asText()).isEqualTo("1.20");
        assertThat(bid.at("/pools/0/last_price").isNull()).isTrue();

        MarketApiWorld.Reply read = api.send("GET", "/api/k8s/bid?cluster=train", DAVE, null);
        assertThat(read.json().get("limit_price").asText()).isEqualTo("2.40");

        MarketApiWorld.Reply withdrawn = api.send("DELETE", "/api/k8s/bid?cluster=train", ALICE, null);
        assertThat(withdrawn.status()).isEqualTo(200);
        assertThat(withdrawn.json().get("limit_price").isNull()).isTrue();
        assertThat(withdrawn.json().get("bid_too_low").asBoolean()).as("no limit bids zero").isTrue();
    }

    @Test
    void a_standing_limit_a_raised_reserve_passed_reads_bid_too_low() {
        api.send("PUT", "/api/k8s/bid", ALICE, q("{'cluster': 'train', 'limit_price': '1.50'}"));
        MarketApiWorld.Reply raised = api.send("PUT", "/api/operator/market/reserve", OPS,
                q("{'pool': 'us-central1/h100-8x', 'reserve': '2.00'}"));
        assertThat(raised.status()).as(raised.body()).isEqualTo(200);
        JsonNode read = api.send("GET", "/api/k8s/bid?cluster=train", ALICE, null).json();
        assertThat(read.get("bid_too_low").asBoolean()).isTrue();
        assertThat(read.get("limit_price").asText()).isEqualTo("1.50");
    }

    @Test
    void the_requests_balance_and_usage_show_what_the_market_did() {
        api.send("PUT", "/api/k8s/bid", ALICE, q("{'cluster': 'train', 'limit_price': '2.00'}"));
        api.w.file(ACME_TRAIN + "/ml/train-a", ACME_TRAIN, 8, null);
        api.w.tickAndReady();
        api.w.ports.clock().advance(Duration.ofMinutes(30));
        api.w.tickAndReady();
        api.w.ports.clock().advance(Duration.ofMinutes(30));
        api.w.tickAndReady();   // the first hour's entry closes on the hour

        JsonNode requests = api.send("GET", "/api/k8s/requests?cluster=train", DAVE, null).json();
        JsonNode item = requests.at("/items/0");
        assertThat(item.get("phase").asText()).isEqualTo("provisioned");
        assertThat(item.get("reason").asText()).isEqualTo("Provisioned");
        assertThat(item.at("/job/kind").asText()).as("the job's kind, never the cluster's id").isEqualTo("Job");
        assertThat(item.at("/job/namespace").asText()).isEqualTo("ml");
        assertThat(item.at("/job/name").asText()).isEqualTo("train-a");
        assertThat(item.get("episodes")).as("its own attempt").hasSize(1);
        assertThat(item.get("limit_source").asText()).isEqualTo("cluster");
        assertThat(item.get("locked_rate").asText()).isEqualTo("2.00");
        assertThat(item.get("granted_nodes").asInt()).isEqualTo(1);
        assertThat(item.at("/episodes/0/running_at").asText()).isNotEmpty();
        assertThat(api.send("GET", "/api/k8s/requests?cluster=train", CAROL, null).json().get("items")).as("globex's own").isEmpty();

        JsonNode balance = api.send("GET", "/api/k8s/balance", DAVE, null).json();
        assertThat(balance.get("org").asText()).isEqualTo("acme");
        assertThat(balance.get("credits").asText()).isEqualTo("5000.00");
        assertThat(balance.get("charged").asText()).isEqualTo("16.00");
        assertThat(balance.get("balance").asText()).isEqualTo("4984.00");
        assertThat(balance.get("entries").findValuesAsText("kind")).contains("charge", "credit");

        JsonNode usage = api.send("GET", "/api/usage?tenantId=acme", DAVE, null).json();
        assertThat(usage.get("gpu")).isNotEmpty();
        assertThat(usage.at("/gpu/0/pool").asText()).isEqualTo(MarketWorld.POOL);
        assertThat(usage.at("/gpu/0/clusterId").asText()).isEqualTo(ACME_TRAIN);
    }

    @Test
    void a_job_held_over_the_max_cluster_size_is_listed_queued_with_the_quota_as_its_cause() {
        api.w.hold(ACME_TRAIN + "/ml/too-big", ACME_TRAIN, 96);

        JsonNode item = api.send("GET", "/api/k8s/requests?cluster=train", DAVE, null).json().at("/items/0");
        assertThat(item.get("phase").asText()).isEqualTo("queued");
        assertThat(item.get("reason").asText()).isEqualTo("InsufficientQuota");
        assertThat(item.get("message").asText()).as("names the max cluster size").contains("max cluster size");
        assertThat(item.at("/job/name").asText()).isEqualTo("too-big");
        assertThat(item.get("granted_nodes").asInt()).isZero();
    }

    @Test
    void an_outbid_attempts_episode_ends_where_its_successors_begins_at_the_revocations_instant() {
        api.w.file(ACME_TRAIN + "/ml/outbid", ACME_TRAIN, 32, "2.00");
        api.w.tickAndReady();
        api.w.ports.clock().advance(Duration.ofHours(2).plusMinutes(1));   // past its protection window
        api.w.file(MarketWorld.GLOBEX_TRAIN + "/ml/higher", MarketWorld.GLOBEX_TRAIN, 8, "5.00");
        api.w.tickAndReady();   // the notice: one minute
        api.w.ports.clock().advance(Duration.ofSeconds(67));   // the tick after the deadline comes late
        api.w.tickAndReady();

        JsonNode items = api.send("GET", "/api/k8s/requests?cluster=train", DAVE, null).json().get("items");
        assertThat(items).extracting(i -> i.get("attempt").asInt(), i -> i.get("phase").asText())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, "waiting"), org.assertj.core.groups.Tuple.tuple(1, "revoked"));
        String endedAt = items.at("/1/episodes/0/ended_at").asText();
        assertThat(items.at("/1/episodes/0/end").asText()).isEqualTo("revoked");
        assertThat(endedAt).as("the revocation's instant: the successor was filed then")
                .isEqualTo(items.at("/0/episodes/0/queued_at").asText());
        assertThat(java.time.Instant.parse(endedAt)).as("not the late tick's").isBefore(api.w.ports.clock().instant());
    }

    @Test
    void the_feed_pages_with_a_cursor() {
        api.w.tickAndReady();
        api.w.ports.clock().advance(Duration.ofSeconds(5));
        api.w.tickAndReady();
        JsonNode first = api.send("GET", "/api/k8s/market/feed?limit=1", CAROL, null).json();
        assertThat(first.get("items")).hasSize(1);
        JsonNode entry = first.at("/items/0");
        assertThat(entry.get("pool").asText()).isEqualTo(MarketWorld.POOL);
        assertThat(entry.get("reserve").asText()).isEqualTo("1.20");
        assertThat(entry.get("price").isNull()).isTrue();
        assertThat(entry.get("supply").asInt()).isEqualTo(4);
        long next = first.get("next").asLong();
        JsonNode rest = api.send("GET", "/api/k8s/market/feed?pool=us-central1/h100-8x&after=" + next, CAROL, null).json();
        assertThat(rest.get("items")).hasSize(1);
        assertThat(rest.at("/items/0/sequence").asLong()).isGreaterThan(next);
    }

    @Test
    void the_feed_streams_as_server_sent_events_and_resumes_after_the_last_event_id() throws Exception {
        api.w.tickAndReady();
        api.w.ports.clock().advance(Duration.ofSeconds(5));
        api.w.tickAndReady();
        List<String> first = events(null, 2);
        assertThat(first).hasSize(2);
        String lastId = first.get(1).lines().filter(l -> l.startsWith("id:")).findFirst().orElseThrow().substring(3).trim();

        api.w.ports.clock().advance(Duration.ofSeconds(5));
        api.w.tickAndReady();
        List<String> resumed = events(lastId, 1);
        assertThat(resumed).singleElement().satisfies(e -> {
            assertThat(e).contains("event:tick");
            long id = Long.parseLong(e.lines().filter(l -> l.startsWith("id:")).findFirst().orElseThrow().substring(3).trim());
            assertThat(id).isGreaterThan(Long.parseLong(lastId));
        });
    }

    /** The first {@code count} events of a stream opened with {@code Last-Event-ID} (none when null). */
    private List<String> events(String lastEventId, int count) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port + "/api/k8s/market/feed"))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + ALICE)
                .timeout(Duration.ofSeconds(30));
        if (lastEventId != null) {
            r.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<java.io.InputStream> res = HttpClient.newHttpClient().send(r.build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        List<String> events = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
            StringBuilder event = new StringBuilder();
            String line;
            while (events.size() < count && (line = in.readLine()) != null) {
                if (line.isEmpty()) {
                    if (event.length() > 0) {
                        events.add(event.toString().replace(": ", ":"));
                    }
                    event.setLength(0);
                } else if (!line.startsWith(":")) {
                    event.append(line).append('\n');
                }
            }
        }
        return events;
    }

    @Test
    void the_operator_enrols_tops_up_changes_supply_and_takes_nodes_out_of_service() {
        MarketApiWorld.Reply enrol = api.send("PUT", "/api/operator/market/clusters", OPS,
                q("{'cluster_id': 'kcl_acmeev00000000000000000000', 'max_cluster_gpus': 24, 'packing': true, "
                        + "'block': {'pool': 'us-central1/h100-8x', 'nodes': 1}}"));
        assertThat(enrol.status()).as(enrol.body()).isEqualTo(200);
        assertThat(enrol.json().get("max_cluster_gpus").asLong()).isEqualTo(24);
        assertThat(enrol.json().get("block_nodes")).hasSize(1);

        String topUp = q("{'org': 'globex', 'amount': '25.50', 'note': 'promo', 'idempotency_key': 'promo-1'}");
        JsonNode first = api.send("POST", "/api/operator/market/credits", OPS, topUp).json();
        JsonNode again = api.send("POST", "/api/operator/market/credits", OPS, topUp).json();
        assertThat(first.get("replayed").asBoolean()).isFalse();
        assertThat(again.get("replayed").asBoolean()).isTrue();
        assertThat(again.get("balance").asText()).isEqualTo("125.50");

        JsonNode supply = api.send("POST", "/api/operator/market/supply", OPS,
                q("{'pool': 'us-central1/h100-8x', 'add': 2}")).json();
        assertThat(supply.get("supply").asInt()).isEqualTo(5);
        String node = supply.at("/added/0").asText();
        assertThat(api.send("POST", "/api/operator/market/nodes/out-of-service", OPS, q("{'node': '" + node + "'}")).status())
                .isEqualTo(200);
        assertThat(api.w.markets.load().supply(com.bettercompute.domain.market.PoolId.parse(MarketWorld.POOL))).isEqualTo(4);
        assertThat(api.send("POST", "/api/operator/market/nodes/back", OPS, q("{'node': '" + node + "'}")).json()
                .get("in_service").asBoolean()).isTrue();

        MarketApiWorld.Reply removed = api.send("DELETE", "/api/operator/market/clusters?cluster_id=kcl_acmeev00000000000000000000",
                OPS, null);
        assertThat(removed.status()).as(removed.body()).isEqualTo(200);
        assertThat(api.w.markets.load().hasCluster(MarketWorld.ACME_EU)).isFalse();
    }
}
