package com.bettercompute.application.market;

import com.bettercompute.application.access.Caller;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Money;
import org.junit.jupiter.api.Test;

import static com.bettercompute.application.market.MarketWorld.ACME_TRAIN;
import static com.bettercompute.application.market.MarketWorld.ALICE;
import static com.bettercompute.application.market.MarketWorld.CAROL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A market-managed cluster as the console reads it: max size, node tiles, and the marks of a request's row. */
class ReadMarketClusterTest {
    final MarketWorld w = new MarketWorld();
    final ReadMarketCluster read = new ReadMarketCluster(w.callers, w.markets);
    final Caller alice = w.caller(ALICE);

    @Test
    void a_waiting_request_has_no_marks_and_a_granted_gang_reads_gang_scheduled_on_ready_tiles() {
        w.file("batch/v1/default/big", ACME_TRAIN, 16, null);
        w.tickAndReady();
        String id = w.markets.load().openRequests().get(0).id();
        ReadMarketCluster.View waiting = read.read(alice, null, "train");
        assertThat(waiting.maxClusterGpus()).isEqualTo(64);
        assertThat(waiting.marks().get(id)).isEqualTo(new ReadMarketCluster.Marks(false, false, false, false));
        assertThat(waiting.nodes()).isEmpty();

        w.bids.set(alice, null, "train", Money.parse("2.40"));
        w.tickAndReady();
        ReadMarketCluster.View running = read.read(alice, null, "train");
        assertThat(running.marks().get(id).gangScheduled()).isTrue();
        assertThat(running.nodes()).hasSize(2).allSatisfy(n -> {
            assertThat(n.state()).isEqualTo(ReadMarketCluster.NodeState.READY);
            assertThat(n.lockedRate()).isNotNull();
            assertThat(n.job()).isEqualTo("batch/v1/default/big");
        });
        assertThat(running.usedGpus()).isEqualTo(16);
    }

    @Test
    void a_node_out_of_service_is_node_fix_in_progress_and_its_gang_replacement_pending() {
        w.bids.set(alice, null, "train", Money.parse("2.40"));
        w.file("batch/v1/default/big", ACME_TRAIN, 16, null);
        w.tickAndReady();
        var request = w.markets.load().openRequests().get(0);
        String node = request.grantedNodeIds().get(0);
        new ReportNodeOutOfService(w.ports.transactions(), w.markets, w.ports.outbox(), w.ports.clock()).report(new ReportNodeOutOfService.Command(node));
        ReadMarketCluster.View v = read.read(alice, null, "train");
        assertThat(v.nodes()).filteredOn(n -> n.node().equals(node)).singleElement()
                .satisfies(n -> assertThat(n.state()).isEqualTo(ReadMarketCluster.NodeState.NODE_FIX_IN_PROGRESS));
        assertThat(v.marks().get(request.id()).replacementPending()).isTrue();
        assertThat(v.marks().get(request.id()).gangScheduled()).isFalse();
    }

    @Test
    void a_waiting_request_in_a_pool_with_no_supply_at_all_reads_capacity_unavailable() {
        w.supply.change(new ChangeSupply.Command(MarketWorld.POOL, 0, 4));
        w.bids.set(alice, null, "train", Money.parse("2.40"));
        w.file("batch/v1/default/big", ACME_TRAIN, 16, null);
        w.tickAndReady();
        String id = w.markets.load().openRequests().get(0).id();
        assertThat(read.read(alice, null, "train").marks().get(id).capacityUnavailable()).isTrue();
    }

    @Test
    void another_organizations_cluster_is_not_found() {
        assertThatThrownBy(() -> read.read(w.caller(CAROL), "acme", "train"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void a_session_marks_its_caller_as_a_person_and_a_token_does_not() {
        assertThat(w.authenticate.byToken(ALICE).viaSession()).isFalse();
        Caller person = w.authenticate.bySession(com.bettercompute.domain.cluster.Ids.sha256Hex(ALICE));
        assertThat(person.viaSession()).isTrue();
        assertThat(person.id()).isEqualTo("user:alice@acme.example");
        assertThatThrownBy(() -> w.authenticate.bySession(com.bettercompute.domain.cluster.Ids.sha256Hex("gone")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
    }
}
