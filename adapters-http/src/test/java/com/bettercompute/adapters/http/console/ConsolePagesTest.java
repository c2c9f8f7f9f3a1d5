package com.bettercompute.adapters.http.console;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.LinkedHashMap;
import java.util.Map;

import static com.bettercompute.application.market.MarketWorld.ACME_TRAIN;
import static com.bettercompute.application.market.MarketWorld.ALICE;
import static com.bettercompute.application.market.MarketWorld.CAROL;
import static com.bettercompute.application.market.MarketWorld.DAVE;
import static com.bettercompute.application.market.MarketWorld.GLOBEX_TRAIN;
import static org.assertj.core.api.Assertions.assertThat;

/** The console's pages and forms over the API's use cases: what a signed-in person sees and can do. */
class ConsolePagesTest {
    final ConsoleWorld world = new ConsoleWorld();

    @AfterEach
    void stop() {
        world.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"/console/clusters/" + GLOBEX_TRAIN, "/console/clusters/" + GLOBEX_TRAIN + "/workloads",
            "/console/clusters/" + GLOBEX_TRAIN + "/nodes", "/console/clusters/kcl_nosuchcluster00000000000000",
            "/console/clusters/not-an-id", "/console/no-such-page"})
    void another_organizations_cluster_or_no_page_at_all_is_the_same_404_page(String path) {
        ConsoleWorld.Page p = world.signedIn(ALICE).get(path);
        assertThat(p.status()).isEqualTo(404);
        assertThat(p.header("content-type")).startsWith("text/html");
        assertThat(p.body()).contains("<h1>Not found</h1>").doesNotContain("globex").doesNotContain(GLOBEX_TRAIN + "/");
    }

    @Test
    void a_form_to_another_organizations_cluster_is_a_404_and_changes_nothing() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        ConsoleWorld.Page p = b.post("/console/clusters/" + GLOBEX_TRAIN + "/limit-price", Map.of("limit_price", "9.00", "_csrf", csrf));
        assertThat(p.status()).isEqualTo(404);
        assertThat(world.w.bids.read(world.w.caller(CAROL), null, "train").limit()).isNull();
    }

    @Test
    void a_bad_create_form_comes_back_with_the_apis_messages_beside_the_fields_and_what_was_typed() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        Map<String, String> form = new LinkedHashMap<>();
        form.put("_csrf", csrf);
        form.put("name", "Bad_Name");
        form.put("mode", "standard");
        form.put("location", "us-central1-a");
        form.put("poolId", "pool_01hzx8k3v4w5y6z7a8b9c0d1e2");
        form.put("idempotencyKey", "console-test-1");
        form.put("nodePools[0].name", "gpu");
        form.put("nodePools[0].machineType", "a3-highgpu-8g");
        form.put("nodePools[0].nodeCount", "many");
        ConsoleWorld.Page p = b.post("/console/clusters", form);
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.body()).contains("id=\"name-error\"").contains("must be lower-case letters, digits and hyphens")
                .contains("id=\"np-count-error\"")
                .contains("value=\"Bad_Name\"").contains("value=\"many\"").contains("value=\"a3-highgpu-8g\"");
        assertThat(world.w.ports.clusters().list(new com.bettercompute.application.port.ClusterFilter("acme", null, null, false), 100))
                .extracting(c -> c.name()).doesNotContain("Bad_Name");
    }

    @Test
    void a_good_create_form_creates_the_cluster_once_however_often_it_is_sent() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters").csrf();
        Map<String, String> form = Map.of("_csrf", csrf, "name", "web", "mode", "standard", "location", "us-central1-a",
                "poolId", "pool_01hzx8k3v4w5y6z7a8b9c0d1e2", "idempotencyKey", "console-test-2", "nodePools[0].name", "cpu",
                "nodePools[0].machineType", "e2-standard-4", "nodePools[0].nodeCount", "2");
        ConsoleWorld.Page first = b.post("/console/clusters", form);
        ConsoleWorld.Page again = b.post("/console/clusters", form);
        assertThat(first.status()).as(first.body()).isEqualTo(303);
        assertThat(again.location()).isEqualTo(first.location());
        assertThat(first.location()).startsWith("/console/clusters/kcl_").contains("done=created");
        ConsoleWorld.Page page = b.get(first.location());
        assertThat(page.body()).contains("Cluster web is being created.").contains("state-pending");
    }

    @Test
    void a_limit_price_below_the_reserve_is_refused_beside_the_field_as_bid_too_low() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters/" + ACME_TRAIN).csrf();
        ConsoleWorld.Page p = b.post("/console/clusters/" + ACME_TRAIN + "/limit-price", Map.of("limit_price", "0.50", "_csrf", csrf));
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.body()).contains("id=\"limit-error\"").contains("bid-too-low").contains("value=\"0.50\"");
        ConsoleWorld.Page typo = b.post("/console/clusters/" + ACME_TRAIN + "/limit-price", Map.of("limit_price", "two", "_csrf", csrf));
        assertThat(typo.status()).isEqualTo(400);
        assertThat(typo.body()).contains("id=\"limit-error\"").contains("value=\"two\"");
    }

    @Test
    void the_cluster_page_shows_the_max_cluster_size_the_limit_and_how_to_connect() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters/" + ACME_TRAIN).csrf();
        assertThat(b.post("/console/clusters/" + ACME_TRAIN + "/limit-price", Map.of("limit_price", "2.40", "_csrf", csrf)).status())
                .isEqualTo(303);
        String page = b.get("/console/clusters/" + ACME_TRAIN).body();
        assertThat(page).contains("id=\"max-cluster-size\"><strong>64</strong> GPUs")
                .contains("$2.40").contains("/api/k8s/cluster/kubeconfig?cluster=train")
                .contains("/setup.sh | sh -s -- you@example.com train").contains("Withdraw limit price");
        assertThat(b.post("/console/clusters/" + ACME_TRAIN + "/limit-price/withdraw", Map.of("_csrf", csrf)).status()).isEqualTo(303);
        assertThat(b.get("/console/clusters/" + ACME_TRAIN).body()).contains("No limit price set");
    }

    @Test
    void deleting_needs_the_clusters_name_typed() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String csrf = b.get("/console/clusters/" + ACME_TRAIN).csrf();
        ConsoleWorld.Page wrong = b.post("/console/clusters/" + ACME_TRAIN + "/delete", Map.of("confirm", "trian", "_csrf", csrf));
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.body()).contains("id=\"confirm-error\"").contains("value=\"trian\"");
        assertThat(world.w.ports.clusters().find(ACME_TRAIN).orElseThrow().deleteRequested()).isFalse();
        ConsoleWorld.Page right = b.post("/console/clusters/" + ACME_TRAIN + "/delete", Map.of("confirm", "train", "_csrf", csrf));
        assertThat(right.status()).isEqualTo(303);
        assertThat(world.w.ports.clusters().find(ACME_TRAIN).orElseThrow().deleteRequested()).isTrue();
    }

    @Test
    void a_viewer_sees_the_page_but_its_forms_are_refused_by_the_use_cases() {
        ConsoleWorld.Browser b = world.signedIn(DAVE);
        ConsoleWorld.Page page = b.get("/console/clusters/" + ACME_TRAIN);
        assertThat(page.status()).isEqualTo(200);
        ConsoleWorld.Page set = b.post("/console/clusters/" + ACME_TRAIN + "/limit-price", Map.of("limit_price", "2.40", "_csrf", page.csrf()));
        assertThat(set.status()).isEqualTo(403);
    }

    @Test
    void the_workloads_page_lists_a_job_with_its_reason_in_words_until_the_market_grants_it_then_gang_scheduled() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        world.w.file("batch/v1/default/train-llm", ACME_TRAIN, 16, null);
        world.w.tickAndReady();
        String before = b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body();
        assertThat(before).contains("default/train-llm").contains("The limit price is below the pool's reserve")
                .contains("BidTooLow").doesNotContain("gang scheduled");
        world.w.bids.set(world.w.caller(ALICE), null, "train", com.bettercompute.domain.market.Money.parse("2.40"));
        world.w.tickAndReady();
        world.w.tickAndReady();
        String after = b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body();
        assertThat(after).contains("Running on its granted nodes").contains("gang scheduled").contains("running since");
        String nodes = b.get("/console/clusters/" + ACME_TRAIN + "/nodes").body();
        assertThat(nodes).contains("class=\"tile ready\"").contains("$2.40");
    }

    @Test
    void a_job_held_over_the_max_cluster_size_is_listed_as_waiting_in_its_queue_with_no_request_filed() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        world.w.hold("batch/v1/default/too-big", ACME_TRAIN, 96);
        String page = b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body();
        assertThat(page).contains("default/too-big").contains("the max cluster size is reached, no request filed yet")
                .contains("InsufficientQuota");
    }

    @Test
    void a_job_reclaimed_twice_has_one_run_history_with_its_three_attempts_and_each_request_its_own_times() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        String job = ACME_TRAIN + "/default/train-llm";
        world.w.bids.set(world.w.caller(ALICE), null, "train", com.bettercompute.domain.market.Money.parse("2.40"));
        world.w.file(job, ACME_TRAIN, 8, null);
        for (int reclaim = 0; reclaim < 2; reclaim++) {
            world.w.tickAndReady();
            world.w.ports.clock().advance(java.time.Duration.ofMinutes(3));
            String node = world.w.markets.load().openRequest(job).grantedNodeIds().get(0);
            new com.bettercompute.application.market.ReportNodeLeft(world.w.ports.transactions(), world.w.markets,
                    world.w.ports.outbox(), world.w.ports.clock()).report(new com.bettercompute.application.market.ReportNodeLeft.Command(node));
            world.w.ports.clock().advance(java.time.Duration.ofMinutes(1));
        }

        String page = b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body();
        assertThat(page.split("<details class=\"history\"", -1)).as("one Run History for the job").hasSize(2);
        String history = page.substring(page.indexOf("<details class=\"history\""));
        assertThat(history).contains("default/train-llm</span> — 3 episodes");
        assertThat(history.split("<tr><th scope=\"row\">", -1)).as("a line per attempt").hasSize(4);
        assertThat(history.indexOf("<th scope=\"row\">1</th>")).isLessThan(history.indexOf("<th scope=\"row\">2</th>"))
                .isLessThan(history.indexOf("<th scope=\"row\">3</th>"));
        String closed = page.substring(page.indexOf("id=\"closed-workloads\""));
        assertThat(closed).as("a revoked attempt shows when it ended, never the live attempt's start")
                .contains("ended ").doesNotContain("queued since").doesNotContain("running since");
    }

    @Test
    void the_workloads_page_lists_each_load_balancer_service_with_its_endpoint_or_why_it_is_pending() {
        ConsoleWorld.Browser b = world.signedIn(DAVE);
        assertThat(b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body()).contains("No Service of type LoadBalancer.");
        java.time.Instant now = world.w.ports.clock().instant();
        world.w.ports.transactions().inTransaction(() -> {
            world.loadBalancers.insert(service(ACME_TRAIN, "acme", "serve", "uid-1").serving("127.0.10.7", now)
                    .programmed(java.util.List.of(443), java.util.List.of(), null, now));
            world.loadBalancers.insert(service(ACME_TRAIN, "acme", "extra", "uid-2").pending(new com.bettercompute.domain.loadbalancer.Refusal(
                    com.bettercompute.domain.loadbalancer.RefusalReason.CLUSTER_CAP, "the cluster's load balancer cap (1) is reached"), now));
            world.loadBalancers.insert(service(GLOBEX_TRAIN, "globex", "theirs", "uid-3").serving("127.0.10.9", now));
            return null;
        });

        String page = b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body();

        assertThat(page).contains("<tr data-service=\"shop/serve\"><td>shop/serve</td><td class=\"endpoint\">127.0.10.7</td><td>443/TCP</td><td>serving</td>")
                .contains("<td class=\"endpoint\">&lt;pending&gt;</td>").contains("<td>pending</td><td>the cluster's load balancer cap (1) is reached</td>")
                .doesNotContain("127.0.10.9").doesNotContain("theirs");
    }

    private com.bettercompute.domain.loadbalancer.LoadBalancer service(String cluster, String tenant, String name, String uid) {
        var s = new com.bettercompute.domain.loadbalancer.LoadBalancerService("shop", name, uid, true, null, java.util.List.of(), true,
                false, 0, false, true, null);
        return com.bettercompute.domain.loadbalancer.LoadBalancer.first(cluster, tenant, s, "platform-prod", "us-central1",
                com.bettercompute.domain.loadbalancer.LoadBalancerState.RESERVING, null, world.w.ports.clock().instant());
    }

    @Test
    void a_node_taken_out_of_service_reads_node_fix_in_progress_and_its_request_replacement_pending() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        world.w.bids.set(world.w.caller(ALICE), null, "train", com.bettercompute.domain.market.Money.parse("2.40"));
        world.w.file("batch/v1/default/train-llm", ACME_TRAIN, 16, null);
        world.w.tickAndReady();
        world.w.tickAndReady();
        String node = world.w.markets.load().openRequests().get(0).grantedNodeIds().get(0);
        new com.bettercompute.application.market.ReportNodeOutOfService(world.w.ports.transactions(), world.w.markets,
                world.w.ports.outbox(), world.w.ports.clock()).report(new com.bettercompute.application.market.ReportNodeOutOfService.Command(node));
        assertThat(b.get("/console/clusters/" + ACME_TRAIN + "/nodes").body()).contains("Node Fix In Progress");
        assertThat(b.get("/console/clusters/" + ACME_TRAIN + "/workloads").body()).contains("Replacement Pending");
    }

    @Test
    void the_market_page_draws_a_chart_per_pool_and_the_balance_page_the_organizations_ledger() {
        ConsoleWorld.Browser b = world.signedIn(ALICE);
        world.w.tickAndReady();
        world.w.ports.clock().advance(java.time.Duration.ofSeconds(10));
        world.w.tickAndReady();
        String market = b.get("/console/market").body();
        assertThat(market).contains("data-chart=\"us-central1/h100-8x\"").contains("<svg").contains("class=\"line line-supply\"");
        ConsoleWorld.Page chart = b.get("/console/market/chart?pool=us-central1/h100-8x");
        assertThat(chart.header("content-type")).startsWith("image/svg+xml");
        assertThat(b.get("/console/market/chart?pool=nowhere/x").status()).isEqualTo(404);
        String balance = b.get("/console/balance").body();
        assertThat(balance).contains("id=\"credits\">$5000");
    }
}
