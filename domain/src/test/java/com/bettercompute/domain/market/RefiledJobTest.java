package com.bettercompute.domain.market;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job filed again under the job id of requests that ended (a pod recreated under its name, a Job deleted and
 * recreated): every filing is a request id the market never used, numbered on after the job id's highest attempt,
 * and the requests that ended stay as they left.
 */
class RefiledJobTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final PoolId POOL = new PoolId("us-east", "h100-8x");
    private static final String JOB = "kcl_a/research/Pod:train-0";

    private Market market;

    private Market market() {
        Market m = new Market();
        m.addPool(POOL, 8, Money.parse("1.00"));
        m.addNode("n1", POOL);
        m.addNode("n2", POOL);
        m.addTenant("acme", Money.usd(100_000));
        m.addCluster("acme-c", "acme", 1_000, Money.parse("2.00"));
        return m;
    }

    private JobDemand demand() {
        return new JobDemand(JOB, "acme-c", POOL, 8, null, PriorityClass.NONE);
    }

    /** How the job's earlier request ended before it is filed again, and whether the market went through a snapshot. */
    @ParameterizedTest(name = "{0}, restored between: {1}")
    @CsvSource({
            "queued,              false, 1, 2",
            "queued,              true,  1, 2",
            "running,             false, 1, 2",
            "running,             true,  1, 2",
            "revoked then ended,  false, 2, 3",
            "revoked then ended,  true,  2, 3",
            "held for quota,      false, 1, 2",
            "held for quota,      true,  1, 2",
            "ended twice,         false, 2, 3",
            "ended twice,         true,  2, 3",
    })
    void a_job_filed_again_gets_a_request_id_never_used_and_the_ended_ones_stay_as_they_left(
            String how, boolean restored, int endedAttempts, int nextAttempt) {
        market = market();
        UnaryOperator<Market> between = m -> restored ? Market.restore(m.snapshot()) : m;
        List<MarketRequest> ended = new ArrayList<>();
        Instant at = T0;
        switch (how.strip()) {
            case "queued" -> {
                ended.add(market.file(demand(), at));
                market.endJob(JOB, at.plusSeconds(1));
            }
            case "running" -> {
                ended.add(market.file(demand(), at));
                Ticks.tickReady(market, at.plusSeconds(5));
                assertThat(ended.get(0).provisioned()).isTrue();
                market.endJob(JOB, at.plusSeconds(60));
            }
            case "revoked then ended" -> {
                ended.add(market.file(demand(), at));
                Ticks.tickReady(market, at.plusSeconds(5));
                String node = ended.get(0).grantedNodeIds().get(0);
                market.removeNode(node, at.plusSeconds(30));
                ended.add(market.openRequest(JOB));
                market.endJob(JOB, at.plusSeconds(60));
            }
            case "held for quota" -> {
                ended.add(market.hold(demand(), at));
                market.endJob(JOB, at.plusSeconds(1));
            }
            case "ended twice" -> {
                ended.add(market.file(demand(), at));
                market.endJob(JOB, at.plusSeconds(1));
                market = between.apply(market);
                ended.add(market.file(demand(), at.plusSeconds(2)));
                market.endJob(JOB, at.plusSeconds(3));
            }
            default -> throw new IllegalArgumentException(how);
        }
        assertThat(ended).hasSize(endedAttempts);
        List<String> endedIds = ended.stream().map(MarketRequest::id).toList();
        assertThat(endedIds).doesNotHaveDuplicates();
        List<MarketSnapshot.RequestState> asTheyLeft = ended.stream().map(RefiledJobTest::state).toList();
        market = between.apply(market);
        assertThat(market.hasOpenRequest(JOB)).isFalse();

        MarketRequest again = market.file(demand(), T0.plusSeconds(600));

        assertThat(again.attempt()).as("numbered on after the job id's highest attempt").isEqualTo(nextAttempt);
        assertThat(again.id()).isEqualTo(JOB + "#" + nextAttempt).isNotIn(endedIds);
        assertThat(again.jobId()).isEqualTo(JOB);
        assertThat(ended).allSatisfy(r -> assertThat(r.phase()).isIn(RequestPhase.CLOSED, RequestPhase.REVOKED));
        assertThat(ended.stream().map(RefiledJobTest::state).toList()).as("the ended requests as they left")
                .isEqualTo(asTheyLeft);
        assertThat(market.openRequests()).extracting(MarketRequest::id).containsExactly(again.id());
        Ticks.tickReady(market, T0.plusSeconds(605));
        assertThat(market.liveGrants()).extracting(NodeGrant::requestId).containsOnly(again.id());

        // the rule holds across the next snapshot too: the new request's end is remembered
        market.endJob(JOB, T0.plusSeconds(700));
        Market next = Market.restore(market.snapshot());
        assertThat(next.snapshot().endedAttempts()).containsEntry(JOB, nextAttempt);
        assertThat(next.file(demand(), T0.plusSeconds(800)).id()).isEqualTo(JOB + "#" + (nextAttempt + 1));
    }

    private static MarketSnapshot.RequestState state(MarketRequest r) {
        return new MarketSnapshot.RequestState(r.id(), r.jobId(), r.attempt(), r.clusterId(), r.pool(), r.gpus(),
                r.nodes(), r.priority(), 0, r.createdAt(), r.jobLimit(), r.phase(), r.reason(), r.message(),
                r.grantedNodeIds(), r.lockedRate(), r.protectedUntil(), 0, r.noticeDeadline(), r.provisioned(),
                r.blockNodeId(), 0, false);
    }
}
