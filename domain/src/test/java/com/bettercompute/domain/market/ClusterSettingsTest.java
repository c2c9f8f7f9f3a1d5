package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The operator's cluster settings: max cluster size and packing, the base load block, leaving the market. */
class ClusterSettingsTest {
    static final PoolId POOL = PoolId.parse("us-east/h100-8x");
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static Market market(int nodes) {
        Market m = new Market();
        m.addPool(POOL, 8, Money.parse("1.00"));
        for (int i = 0; i < nodes; i++) {
            m.addNode("n" + i, POOL);
        }
        m.addTenant("acme", Money.usd(100_000));
        m.addCluster("c1", "acme", 8, Money.parse("2.00"));
        return m;
    }

    @Test
    void a_larger_max_cluster_size_files_the_queued_request_and_packing_is_kept_in_the_snapshot() {
        Market m = market(4);
        m.file(new JobDemand("j1", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        MarketRequest second = m.file(new JobDemand("j2", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        assertThat(second.phase()).isEqualTo(RequestPhase.QUEUED);

        m.changeCluster("c1", 16, true, T0);

        assertThat(m.openRequest("j2").phase()).isEqualTo(RequestPhase.WAITING);
        Market restored = Market.restore(m.snapshot());
        assertThat(restored.cluster("c1").packing()).isTrue();
        assertThat(restored.cluster("c1").maxGpus()).isEqualTo(16);
    }

    @Test
    void a_priority_raised_while_queued_files_that_job_first_when_room_frees_and_survives_a_restore() {
        Market m = market(4);
        m.file(new JobDemand("j1", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        m.file(new JobDemand("j2", "c1", POOL, 8, null, PriorityClass.NORMAL), T0);
        m.file(new JobDemand("j3", "c1", POOL, 8, null, PriorityClass.LOW), T0);

        assertThat(m.setJobPriority("j3", PriorityClass.HIGH)).isTrue();
        assertThat(m.setJobPriority("j3", PriorityClass.HIGH)).isFalse();
        Market restored = Market.restore(m.snapshot());
        assertThat(restored.openRequest("j3").priority()).isEqualTo(PriorityClass.HIGH);

        restored.endJob("j1", T0.plusSeconds(30));
        restored.tick(T0.plusSeconds(31));

        assertThat(restored.openRequest("j3").phase()).isNotEqualTo(RequestPhase.QUEUED);
        assertThat(restored.openRequest("j2").phase()).isEqualTo(RequestPhase.QUEUED);
    }

    @ParameterizedTest(name = "{0} GPUs held over a max cluster size of 8 with 8 in use: {1}")
    @CsvSource(delimiter = '|', value = {
            "8  | waiting for quota: the max cluster size of 8 GPUs binds",
            "16 | 16 GPUs is more than the max cluster size of 8 GPUs",
    })
    void a_job_held_in_its_clusters_queue_reads_the_max_cluster_size_never_files_by_itself_and_files_when_released(
            int gpus, String message) {
        Market m = market(4);
        m.file(new JobDemand("j1", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        MarketRequest held = m.hold(new JobDemand("j2", "c1", POOL, gpus, null, PriorityClass.HIGH), T0);

        assertThat(held.phase()).isEqualTo(RequestPhase.QUEUED);
        assertThat(held.reason()).isEqualTo(Reason.QUOTA_WAIT);
        assertThat(held.message()).isEqualTo(message);
        assertThat(m.held("j2")).isTrue();
        assertThatThrownBy(() -> m.hold(new JobDemand("j2", "c1", POOL, gpus, null, PriorityClass.HIGH), T0))
                .isInstanceOf(DomainException.class);

        m.endJob("j1", T0.plusSeconds(30));
        m.changeCluster("c1", 32, false, T0.plusSeconds(30));
        m.tick(T0.plusSeconds(31));
        Market restored = Market.restore(m.snapshot());
        assertThat(restored.openRequest("j2").phase()).as("only its cluster's queue lets it file").isEqualTo(RequestPhase.QUEUED);
        assertThat(restored.held("j2")).isTrue();

        MarketRequest filed = restored.file(new JobDemand("j2", "c1", POOL, gpus, null, PriorityClass.HIGH), T0.plusSeconds(40));
        assertThat(filed.id()).isEqualTo(held.id());
        assertThat(filed.phase()).isEqualTo(RequestPhase.WAITING);
        assertThat(restored.held("j2")).isFalse();
    }

    @ParameterizedTest(name = "{0} GPUs held at a max cluster size of 8, changed to {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "48 | 32 | 48 GPUs is more than the max cluster size of 32 GPUs",
            "16 | 32 | waiting for quota: the max cluster size of 32 GPUs binds",
            "8  | 4  | 8 GPUs is more than the max cluster size of 4 GPUs",
            "16 | 8  | 16 GPUs is more than the max cluster size of 8 GPUs",
    })
    void a_held_jobs_message_names_the_max_cluster_size_as_it_is_changed(int gpus, long max, String message) {
        Market m = Market.restore(market(4).snapshot());
        m.file(new JobDemand("j1", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        m.hold(new JobDemand("j2", "c1", POOL, gpus, null, PriorityClass.NONE), T0);
        m.clearChanges();

        m.changeCluster("c1", max, false, T0.plusSeconds(30));

        assertThat(m.openRequest("j2").message()).isEqualTo(message);
        assertThat(m.openRequest("j2").reason()).isEqualTo(Reason.QUOTA_WAIT);
        assertThat(m.held("j2")).as("still its cluster's queue's to release").isTrue();
        assertThat(m.changes().requests()).extracting(MarketSnapshot.RequestState::id)
                .as("recorded only when the message changed").containsExactlyElementsOf(
                        message.contains("of 8 GPUs") ? java.util.List.of() : java.util.List.of("j2"));
    }

    @ParameterizedTest(name = "{0} free nodes, block of {1}: supply {2}, refused {3}")
    @CsvSource({
            "4, 2, 2, false",
            "4, 4, 0, false",
            "4, 5, 4, true",
            "4, 0, 4, false",
    })
    void the_block_takes_free_nodes_out_of_supply_all_or_nothing(int nodes, int block, int supply, boolean refused) {
        Market m = market(nodes);
        if (refused) {
            assertThatThrownBy(() -> m.sizeBlock("c1", POOL, block)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE));
        } else {
            m.sizeBlock("c1", POOL, block);
            assertThat(m.cluster("c1").blockNodeIds()).hasSize(block);
        }
        assertThat(m.supply(POOL)).isEqualTo(supply);
    }

    @Test
    void a_block_shrinks_back_to_supply() {
        Market m = market(4);
        m.sizeBlock("c1", POOL, 3);
        m.sizeBlock("c1", POOL, 1);
        assertThat(m.supply(POOL)).isEqualTo(3);
        assertThat(m.freeNodes(POOL)).isEqualTo(3);
        assertThat(m.cluster("c1").blockNodeIds()).hasSize(1);
    }

    @Test
    void an_empty_cluster_leaves_and_gives_its_block_back() {
        Market m = market(4);
        m.sizeBlock("c1", POOL, 2);
        m.removeCluster("c1");
        assertThat(m.clusters()).isEmpty();
        assertThat(m.supply(POOL)).isEqualTo(4);
        assertThat(Market.restore(m.snapshot()).supply(POOL)).isEqualTo(4);
    }

    @Test
    void a_cluster_with_an_open_request_or_a_grant_stays_and_nothing_changes() {
        Market m = market(4);
        m.file(new JobDemand("j1", "c1", POOL, 8, null, PriorityClass.NONE), T0);
        Ticks.tickReady(m, T0.plusSeconds(5));
        assertThat(m.liveGrants()).hasSize(1);
        MarketSnapshot before = m.snapshot();

        assertThatThrownBy(() -> m.removeCluster("c1")).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_STATE));

        assertThat(m.snapshot()).isEqualTo(before);
    }
}
