package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryMarketClusterClient.Job;
import com.bettercompute.application.fakes.InMemoryMarketClusterClient.Request;
import com.bettercompute.application.market.ReportNodeLeft;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.PriorityClass;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

import static com.bettercompute.application.incluster.InClusterWorld.A;
import static com.bettercompute.application.incluster.InClusterWorld.B;
import static com.bettercompute.application.incluster.InClusterWorld.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Decisions out: the market's saved state written as Kueue reads it, on in-memory ports. */
class PublishRequestStatusTest {
    static final Pattern KUBERNETES_REASON = Pattern.compile("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
    static final String JOB = "kcl_a/research/train";

    final InClusterWorld w = new InClusterWorld();
    final Job job = w.cluster.job("research", "train", 16, "h100-8x");
    final Request attempt1 = w.cluster.request(job, "job-train-3f2a1-market-1", T0);

    Condition condition(Request r, String type) {
        return r.conditions.get(type);
    }

    @Test
    void a_waiting_request_is_accepted_and_not_provisioned_with_its_reason_in_the_message_and_one_job_event() {
        w.pass();
        w.tick();
        w.pass();
        w.pass();

        assertThat(condition(attempt1, "Accepted").status()).isEqualTo("True");
        Condition provisioned = condition(attempt1, "Provisioned");
        assertThat(provisioned.status()).isEqualTo("False");
        assertThat(provisioned.reason()).isEqualTo("BidTooLow").matches(KUBERNETES_REASON);
        assertThat(provisioned.message()).startsWith("BidTooLow");
        assertThat(attempt1.marketRequest).isEqualTo(JOB);
        assertThat(w.cluster.eventsWithReason("BidTooLow")).hasSize(1);
        assertThat(attempt1.statusWrites).as("a status that holds is not written again").isEqualTo(2);
    }

    @Test
    void before_the_markets_first_read_accepted_and_provisioned_tell_one_story_then_the_read_says_read() {
        w.pass();

        assertThat(condition(attempt1, "Provisioned").reason()).isEqualTo("Pending");
        assertThat(condition(attempt1, "Accepted").message()).isEqualTo("The market holds this request and reads it at its next tick.");
        assertThat(condition(attempt1, "Provisioned").message()).doesNotContain("not read");

        w.tick();
        w.pass();

        assertThat(condition(attempt1, "Accepted").message()).isEqualTo("The market read this request.");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(com.bettercompute.domain.market.Reason.class)
    void accepted_says_read_for_every_reason_but_pending(com.bettercompute.domain.market.Reason reason) {
        assertThat(PublishRequestStatus.accepted(reason).contains("read this request"))
                .isEqualTo(reason != com.bettercompute.domain.market.Reason.PENDING);
    }

    @Test
    void each_change_of_reason_is_one_event_on_the_job() {
        w.pass();
        w.tick();
        w.pass();
        job.limitLabel = "2.00";
        w.pass();
        w.tick();
        w.pass();
        w.pass();

        assertThat(w.cluster.events.values()).extracting(e -> e.reason()).filteredOn(r -> !r.equals("NodeGranted"))
                .containsExactly("Pending", "BidTooLow", "Provisioning");
        assertThat(attempt1.reasonChanges).isEqualTo(w.cluster.events.values().stream()
                .filter(e -> !e.reason().equals("NodeGranted")).count());
    }

    @Test
    void granted_nodes_read_provisioning_k_of_n_then_provisioned_with_the_request_label_and_one_node_granted_each() {
        w.limit(A, "2.00");
        w.pass();
        w.tick();
        w.pass();
        assertThat(condition(attempt1, "Provisioned").message()).isEqualTo("Provisioning (0 of 2 granted nodes ready)");
        assertThat(w.cluster.eventsWithReason("NodeGranted")).hasSize(2);

        w.clock.advance(Duration.ofMinutes(2));
        for (String node : w.markets.load().openRequest(JOB).grantedNodeIds()) {
            w.ready(node);
        }
        w.pass();

        Condition provisioned = condition(attempt1, "Provisioned");
        assertThat(provisioned.status()).isEqualTo("True");
        assertThat(provisioned.reason()).isEqualTo("Provisioned");
        assertThat(attempt1.classDetails).containsEntry("nationalcompute.com/request", InClusterNames.requestLabel(JOB));
        assertThat(InClusterNames.requestLabel(JOB)).matches("[a-z0-9-]{1,63}");
        assertThat(w.cluster.eventsWithReason("NodeGranted")).hasSize(2);
    }

    @Test
    void a_sub_node_job_waits_while_no_block_node_is_ready_then_reads_provisioned_pinned_to_its_block_nodes_pool() {
        Job small = w.cluster.job("research", "small", 4, "h100-8x");
        Request request = w.cluster.request(small, "job-small-9c1d2-market-1", T0);
        Market market = w.markets.load();
        market.changeCluster(InClusterWorld.A, 64, true, T0);
        market.assignBlock(InClusterWorld.A, "n3");
        w.markets.save(market);
        w.pass();
        w.tick();
        w.pass();
        Condition waiting = request.conditions.get("Provisioned");
        assertThat(waiting.status()).as("no live block: it waits, never Provisioned").isEqualTo("False");
        assertThat(waiting.reason()).isEqualTo("WaitingForBaseLoadBlock");
        assertThat(request.classDetails).isEmpty();

        new com.bettercompute.application.market.ReportBlockNode(w.transactions, w.markets, w.outbox, w.clock).ready("n3");
        w.tick();
        w.pass();

        Condition seated = request.conditions.get("Provisioned");
        assertThat(seated.status()).isEqualTo("True");
        assertThat(seated.reason()).isEqualTo("Provisioned");
        assertThat(request.classDetails).containsExactly(Map.entry("nationalcompute.com/block-node",
                ReconcileMarketNodes.poolName(InClusterWorld.A, "n3")));
        assertThat(w.cluster.eventsWithReason("BlockSeated")).singleElement()
                .satisfies(e -> assertThat(e.message()).contains("n3"));
    }

    @Test
    void a_notice_reads_preemption_notice_with_its_deadline_and_a_rescind_flips_it_false() {
        w.limit(A, "2.00");
        w.limit(B, "3.00");
        w.pass();
        w.readyAllGranted(w.tick());
        w.clock.advance(Duration.ofHours(2));
        Market m = w.markets.load();
        m.file(new JobDemand("beta-job", B, InClusterWorld.POOL, 16, null, PriorityClass.NONE), w.clock.instant());
        w.markets.save(m);
        w.readyAllGranted(w.tick());
        w.pass();

        Condition notice = condition(attempt1, "PreemptionNotice");
        assertThat(notice.status()).isEqualTo("True");
        assertThat(notice.reason()).isEqualTo("MarketPreemption");
        assertThat(notice.message()).contains(w.clock.instant().plusSeconds(60).toString());

        m = w.markets.load();
        m.endJob("beta-job", w.clock.instant());
        w.markets.save(m);
        w.clock.advance(Duration.ofSeconds(10));
        w.tick();
        w.pass();

        assertThat(condition(attempt1, "PreemptionNotice").status()).isEqualTo("False");
        assertThat(condition(attempt1, "PreemptionNotice").reason()).isEqualTo("Rescinded");
    }

    @Test
    void a_revoked_gang_fails_its_attempt_and_the_next_attempt_stands_for_the_requeued_request() {
        w.limit(A, "2.00");
        w.pass();
        w.readyAllGranted(w.tick());
        w.pass();
        String node = w.markets.load().openRequest(JOB).grantedNodeIds().get(0);
        w.clock.advance(Duration.ofMinutes(10));
        new ReportNodeLeft(w.transactions, w.markets, w.outbox, w.clock).report(new ReportNodeLeft.Command(node));
        w.tick();
        w.pass();

        assertThat(condition(attempt1, "Failed").status()).isEqualTo("True");
        assertThat(condition(attempt1, "Failed").reason()).isEqualTo("MarketRevoked");
        // A failed attempt no longer holds capacity: it must not read Provisioned beside Failed.
        assertThat(condition(attempt1, "Provisioned").status()).isEqualTo("False");
        assertThat(condition(attempt1, "Provisioned").reason()).isEqualTo("MarketRevoked");
        assertThat(w.cluster.eventsWithReason("MarketRevoked")).hasSize(1);

        Request attempt2 = w.cluster.request(job, "job-train-3f2a1-market-2", w.clock.instant());
        w.pass();
        assertThat(attempt2.marketRequest).isEqualTo(JOB + "#2");
        assertThat(condition(attempt2, "Accepted").status()).isEqualTo("True");
        assertThat(w.markets.load().openRequest(JOB).id()).isEqualTo(JOB + "#2");
    }

    @Test
    void a_failing_cluster_api_is_counted_and_the_next_pass_catches_up() {
        w.pass();
        w.tick();
        w.cluster.failure = new ProviderException(ProviderException.Kind.UNAVAILABLE, "down");

        assertThat(w.publish.publish(A, InClusterWorld.CONNECTION, w.cluster.observed())).isEqualTo(1);

        w.cluster.failure = null;
        w.pass();
        assertThat(condition(attempt1, "Provisioned").reason()).isEqualTo("BidTooLow");
    }

    @Test
    void after_a_restart_the_same_state_writes_nothing_and_posts_no_event_twice() {
        w.limit(A, "2.00");
        w.pass();
        w.tick();
        w.pass();
        int writes = attempt1.statusWrites;
        int events = w.cluster.events.size();

        new PublishRequestStatus(w.markets, w.cluster, w.clock).publish(A, InClusterWorld.CONNECTION, w.cluster.observed());

        assertThat(attempt1.statusWrites).isEqualTo(writes);
        assertThat(w.cluster.events).hasSize(events);
    }
}
