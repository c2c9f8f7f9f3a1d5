package com.bettercompute.application.incluster;

import com.bettercompute.application.fakes.InMemoryMarketClusterClient.Job;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PriorityClass;
import com.bettercompute.domain.market.RequestPhase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static com.bettercompute.application.incluster.InClusterWorld.A;
import static com.bettercompute.application.incluster.InClusterWorld.SITE;
import static com.bettercompute.application.incluster.InClusterWorld.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Demand in: the jobs a cluster's Kueue asks nodes for, brought into the market on in-memory ports. */
class SyncClusterDemandTest {
    static final String JOB_OF_REPLICA = "kcl_a/research/Pod:web-0";
    final InClusterWorld w = new InClusterWorld();

    Job train(int gpus) {
        Job job = w.cluster.job("research", "train", gpus, "h100-8x");
        w.cluster.request(job, "job-train-3f2a1-market-1", T0);
        return job;
    }

    Market market() {
        return w.markets.load();
    }

    @Test
    void a_job_with_a_provisioning_request_files_one_request_of_whole_nodes_once() {
        Job job = train(16);
        job.limitLabel = "2.50";
        job.priorityLabel = "high";

        var first = w.sync.sync(A, SITE, w.cluster.observed());
        var again = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(first.filed()).containsExactly("kcl_a/research/train");
        assertThat(again.changed()).isFalse();
        var request = market().openRequest("kcl_a/research/train");
        assertThat(request.nodes()).isEqualTo(2);
        assertThat(request.pool()).isEqualTo(InClusterWorld.POOL);
        assertThat(request.jobLimit()).isEqualTo(Money.parse("2.50"));
        assertThat(request.priority()).isEqualTo(PriorityClass.HIGH);
    }

    @Test
    void a_job_kueue_holds_back_for_quota_is_listed_queued_with_the_max_cluster_size_then_files_when_its_request_appears() {
        Job job = w.cluster.job("research", "train", 16, "h100-8x");
        job.quotaWait = true;
        Job gone = w.cluster.job("research", "later", 8, "h100-8x");
        gone.quotaWait = true;

        var first = w.sync.sync(A, SITE, w.cluster.observed());
        var again = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(first.held()).containsExactlyInAnyOrder("kcl_a/research/train", "kcl_a/research/later");
        assertThat(first.filed()).isEmpty();
        assertThat(again.changed()).isFalse();
        var held = market().openRequest("kcl_a/research/train");
        assertThat(held.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(held.reason().wire()).isEqualTo("InsufficientQuota");
        assertThat(held.message()).contains("max cluster size of 64 GPUs");
        w.tick.run();
        assertThat(market().openRequest("kcl_a/research/train").phase()).as("a tick never files it")
                .isEqualTo(RequestPhase.QUEUED);

        w.cluster.request(job, "job-train-3f2a1-market-1", T0);
        w.cluster.jobs.values().remove(gone);
        var filed = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(filed.filed()).containsExactly("kcl_a/research/train");
        assertThat(filed.withdrawn()).containsExactly("kcl_a/research/later");
        assertThat(market().openRequest("kcl_a/research/train").id()).isEqualTo(held.id());
        assertThat(market().openRequest("kcl_a/research/train").phase()).isEqualTo(RequestPhase.WAITING);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            filed at once: never held                                    | at-once | market.request.received
            held, and it still waits                                     | waits   | market.request.held
            held, then its request appears (room freed or the cap raised) | filed   | market.request.held, market.request.released
            held, then its job is deleted                                | deleted | market.request.held, market.request.withdrawn
            held, then its job ends                                      | ended   | market.request.held, market.job.ended
            """)
    void a_held_jobs_feed_reads_held_once_with_the_max_cluster_size_then_how_the_hold_ended(String story, String then,
                                                                                           String expected) {
        Job job = w.cluster.job("research", "train", 16, "h100-8x");
        job.limitLabel = "2.50";
        job.quotaWait = !then.equals("at-once");
        if (then.equals("at-once")) {
            w.cluster.request(job, "job-train-3f2a1-market-1", T0);
        }
        w.sync.sync(A, SITE, w.cluster.observed());
        w.sync.sync(A, SITE, w.cluster.observed());   // a pass that changes nothing writes nothing
        w.clock.advance(java.time.Duration.ofSeconds(30));
        switch (then) {
            case "filed" -> w.cluster.request(job, "job-train-3f2a1-market-1", w.clock.instant());
            case "deleted" -> w.cluster.jobs.values().remove(job);
            case "ended" -> job.ended = true;
            default -> {
            }
        }
        w.sync.sync(A, SITE, w.cluster.observed());

        var events = w.outbox.all().stream().map(e -> e.event()).toList();
        assertThat(events).extracting(e -> e.type()).as(story).containsExactly(expected.split(",\\s*"));
        assertThat(events).allSatisfy(e -> {
            assertThat(e.subjectId()).as("one request throughout").isEqualTo("kcl_a/research/train");
            assertThat(e.tenantId()).as("the tenant's feed").isEqualTo("acme");
        });
        if (job.quotaWait) {
            assertThat(events.get(0).data()).containsEntry("jobId", "kcl_a/research/train").containsEntry("gpus", 16)
                    .containsEntry("limit", "2.50").containsEntry("reason", "InsufficientQuota")
                    .containsEntry("maxClusterGpus", 64L)
                    .containsEntry("message", "waiting for quota: the max cluster size of 64 GPUs binds");
            assertThat(events.get(0).occurredAt()).isEqualTo(T0);
        }
        if (then.equals("filed")) {
            assertThat(events.get(1).data()).containsEntry("heldSince", T0.toString()).containsEntry("gpus", 16)
                    .containsEntry("limit", "2.50");
            assertThat(events.get(1).occurredAt()).isEqualTo(T0.plusSeconds(30));
            assertThat(market().held("kcl_a/research/train")).isFalse();
        }
    }

    @Test
    void each_change_writes_its_outbox_event_and_a_pass_that_changes_nothing_writes_none() {
        Job job = train(16);
        w.sync.sync(A, SITE, w.cluster.observed());
        job.limitLabel = "3.00";
        w.sync.sync(A, SITE, w.cluster.observed());
        w.sync.sync(A, SITE, w.cluster.observed());
        w.cluster.jobs.clear();
        w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(w.outbox.all()).extracting(e -> e.event().type()).containsExactly(
                "market.request.received", "market.request.limit-changed", "market.request.withdrawn");
        assertThat(w.outbox.all().get(0).event().data()).containsEntry("jobId", "kcl_a/research/train")
                .containsEntry("gpus", 16).containsKeys("pool", "limit", "priority");
        assertThat(w.outbox.all().get(1).event().data()).containsEntry("limit", "3.00");
    }

    @Test
    void a_job_naming_no_node_class_takes_the_sites_only_one() {
        Job job = w.cluster.job("research", "eval", 8, null);
        w.cluster.request(job, "job-eval-1-market-1", T0);

        w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(market().openRequest("kcl_a/research/eval").pool()).isEqualTo(InClusterWorld.POOL);
    }

    @Test
    void a_changed_priority_label_is_read_live_and_a_bad_one_is_refused_not_applied() {
        Job job = train(8);
        w.sync.sync(A, SITE, w.cluster.observed());
        job.priorityLabel = "high";

        var outcome = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(outcome.prioritiesChanged()).containsExactly("kcl_a/research/train");
        assertThat(market().openRequest("kcl_a/research/train").priority()).isEqualTo(PriorityClass.HIGH);
        assertThat(w.outbox.all()).extracting(e -> e.event().type()).contains("market.request.priority-changed");
        job.priorityLabel = "urgent";
        outcome = w.sync.sync(A, SITE, w.cluster.observed());
        assertThat(outcome.refused()).containsExactly("kcl_a/research/train");
        assertThat(market().openRequest("kcl_a/research/train").priority()).isEqualTo(PriorityClass.HIGH);
    }

    @Test
    void a_changed_limit_label_is_read_live() {
        Job job = train(8);
        w.sync.sync(A, SITE, w.cluster.observed());
        job.limitLabel = "3.00";

        var outcome = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(outcome.limitsChanged()).containsExactly("kcl_a/research/train");
        assertThat(market().openRequest("kcl_a/research/train").jobLimit()).isEqualTo(Money.parse("3.00"));
        job.limitLabel = null;
        w.sync.sync(A, SITE, w.cluster.observed());
        assertThat(market().openRequest("kcl_a/research/train").jobLimit()).isNull();
    }

    @Test
    void a_deleted_request_withdraws_and_leaves_requests_filed_by_other_means_alone() {
        train(8);
        w.sync.sync(A, SITE, w.cluster.observed());
        Market m = market();
        m.file(new JobDemand("api-job", A, InClusterWorld.POOL, 8, null, PriorityClass.NONE), T0);
        w.markets.save(m);
        w.cluster.jobs.clear();
        w.cluster.requests.clear();

        var outcome = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(outcome.withdrawn()).containsExactly("kcl_a/research/train");
        assertThat(market().hasOpenRequest("kcl_a/research/train")).isFalse();
        assertThat(market().hasOpenRequest("api-job")).isTrue();
    }

    @Test
    void a_finished_job_ends_its_request_and_is_never_filed_again() {
        Job job = train(8);
        w.sync.sync(A, SITE, w.cluster.observed());
        job.ended = true;

        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).ended()).containsExactly("kcl_a/research/train");
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).changed()).isFalse();
        assertThat(market().hasOpenRequest("kcl_a/research/train")).isFalse();
    }

    @Test
    void a_job_whose_only_request_the_market_revoked_waits_for_kueues_next_attempt() {
        Job job = train(8);
        w.cluster.request("research", "job-train-3f2a1-market-1").conditions.put("Failed",
                new Condition("Failed", "True", "MarketRevoked", "revoked", T0));

        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).changed()).isFalse();
        w.cluster.request(job, "job-train-3f2a1-market-2", T0.plusSeconds(60));
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).filed()).containsExactly("kcl_a/research/train");
    }

    @Test
    void a_replica_scaled_away_and_back_files_a_new_request_whose_pods_never_target_the_old_requests_nodes() {
        Job replica = w.cluster.gatedPod("research", "web-0", 8, "h100-8x");
        w.cluster.request(replica, "pod-web-0-1a2b3-market-1", T0);
        w.limit(A, "5.00");
        w.pass();
        w.readyAllGranted(w.tick());
        w.pass();
        String first = market().openRequest(JOB_OF_REPLICA).id();
        assertThat(w.cluster.request("research", "pod-web-0-1a2b3-market-1").classDetails)
                .containsEntry("nationalcompute.com/request", InClusterNames.requestLabel(first));

        // scaled away: the pod, its Workload and its request go; the market's request ends, its node stays idle
        w.cluster.delete(replica);
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).withdrawn()).containsExactly(JOB_OF_REPLICA);
        var ended = w.markets.closed(A, 10);
        assertThat(ended).extracting(c -> c.last().id()).containsExactly(first);

        // scaled back: a new pod of the same name, a new Workload and request
        Job back = w.cluster.gatedPod("research", "web-0", 8, "h100-8x");
        var again = w.cluster.request(back, "pod-web-0-9f8e7-market-1", T0.plusSeconds(120));
        w.clock.set(T0.plusSeconds(120));
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).filed()).containsExactly(JOB_OF_REPLICA);
        String second = market().openRequest(JOB_OF_REPLICA).id();
        w.publish.publish(A, InClusterWorld.CONNECTION, w.cluster.observed());
        w.readyAllGranted(w.tick());
        w.pass();

        assertThat(second).as("a request id the market never used").isNotEqualTo(first);
        assertThat(market().openRequest(JOB_OF_REPLICA).attempt()).isEqualTo(2);
        assertThat(InClusterNames.requestLabel(second)).isNotEqualTo(InClusterNames.requestLabel(first));
        assertThat(again.marketRequest).isEqualTo(second);
        assertThat(again.classDetails).as("its pods select the new request's nodes only")
                .containsEntry("nationalcompute.com/request", InClusterNames.requestLabel(second));
        assertThat(market().liveGrants()).extracting(g -> g.requestId()).containsOnly(second);
        assertThat(w.markets.closed(A, 10)).as("the ended request as it left").isEqualTo(ended);
        assertThat(w.markets.episodes(A)).extracting(e -> e.requestId(), e -> e.end()).containsExactly(
                org.assertj.core.groups.Tuple.tuple(first, "ended"), org.assertj.core.groups.Tuple.tuple(second, null));
    }

    @ParameterizedTest(name = "label {0}")
    @CsvSource({"cheap", "-1", "2.1234567"})
    void a_job_with_an_unreadable_limit_label_is_refused_and_the_others_are_filed(String label) {
        Job bad = train(8);
        bad.limitLabel = label;
        Job good = w.cluster.job("research", "eval", 8, "h100-8x");
        w.cluster.request(good, "job-eval-1-market-1", T0);

        var outcome = w.sync.sync(A, SITE, w.cluster.observed());

        assertThat(outcome.refused()).containsExactly("kcl_a/research/train");
        assertThat(outcome.filed()).containsExactly("kcl_a/research/eval");
    }

    @Test
    void a_cluster_the_market_does_not_hold_changes_nothing() {
        train(8);

        assertThat(w.sync.sync("kcl_gone", SITE, w.cluster.observed()).changed()).isFalse();
    }

    @Test
    void a_job_whose_gpus_are_not_read_yet_is_not_filed_and_its_open_request_is_kept() {
        Job job = train(0);

        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).changed()).isFalse();
        job.gpus = 8;
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).filed()).containsExactly("kcl_a/research/train");
        job.gpus = 0;
        assertThat(w.sync.sync(A, SITE, w.cluster.observed()).changed()).isFalse();
        assertThat(market().hasOpenRequest("kcl_a/research/train")).isTrue();
    }
}
