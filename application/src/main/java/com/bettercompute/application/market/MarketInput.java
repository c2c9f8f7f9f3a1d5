package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Node;
import com.bettercompute.domain.market.NodeGrant;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * A market input between ticks (a filing, a job's end, a node fact), as the live server runs it: load
 * (the market locked), change and save in one transaction together with the input's own outbox event
 * and those of the decisions it caused at once, so the outbox never tells of a change the market did not
 * keep, nor the market keep one the outbox missed. Events the input leaves for the next tick (a request
 * filed from the queue, a gang revoked by a node that left) reach the outbox with that tick's.
 */
final class MarketInput {
    /** What an input did: its result, its outbox event (null when it changed nothing) and the events it caused. */
    record Done<T>(T result, DomainEvent event, List<MarketEvent> caused) {
        static <T> Done<T> of(T result, DomainEvent event) {
            return new Done<>(result, event, List.of());
        }
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final EventOutbox outbox;
    private final Clock clock;

    MarketInput(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.transactions = Objects.requireNonNull(transactions);
        this.markets = Objects.requireNonNull(markets);
        this.outbox = Objects.requireNonNull(outbox);
        this.clock = Objects.requireNonNull(clock);
    }

    <T> Done<T> run(BiFunction<Market, Instant, Done<T>> change) {
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            Done<T> done = change.apply(market, clock.instant());
            markets.save(market);
            if (done.event() != null) {
                outbox.append(done.event());
            }
            outbox.appendAll(MarketOutboxEvents.of(market, done.caused(), List.of()));
            return done;
        });
    }

    /**
     * A fact about one node (left, out of service, back) as one input: the change, and its outbox event
     * {@code type} when the node was as {@code changes} asks before it, for the cluster the node was granted
     * to (a node back returns to the cluster that lost it), else the one whose block it is in.
     */
    void nodeFact(String nodeId, String type, Predicate<Node> changes, BiConsumer<Market, Instant> change) {
        run((market, at) -> {
            Node node = market.node(nodeId);
            boolean changed = changes.test(node);
            NodeGrant grant = node.grant();
            change.accept(market, at);
            NodeGrant now = grant != null ? grant : node.grant();
            String clusterId = now != null ? now.clusterId() : node.blockClusterId();
            return Done.of(null, changed ? MarketOutboxEvents.input(market, type, clusterId, nodeId, at,
                    "nodeId", nodeId, "pool", node.pool().toString(), "clusterId", clusterId) : null);
        });
    }
}
