package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.PoolId;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /api/operator/market/supply}: the operator adds nodes to a pool or removes them. Removing
 * more than is free reclaims as the rules say (a gang on a removed node is revoked and requeues); it
 * never removes more nodes than the pool sells, and never a block node.
 */
public final class ChangeSupply {
    /** Exactly one of {@code add} and {@code remove} is positive. */
    public record Command(String pool, int add, int remove) {
    }

    /** The pool after the change: its supply, its free nodes, the nodes added or removed. */
    public record SupplyView(String pool, int supply, int free, List<String> added, List<String> removed) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final Clock clock;

    public ChangeSupply(Transactions transactions, MarketRepository markets, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.clock = clock;
    }

    public SupplyView change(Command command) {
        if ((command.add() > 0) == (command.remove() > 0) || command.add() < 0 || command.remove() < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "Give either add or remove, a positive number of nodes.",
                    Map.of("fields", List.of(Map.of("field", "add", "problem", "exactly one of add and remove is a positive number"))));
        }
        PoolId pool = PoolId.parse(command.pool());
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            market.pool(pool);
            List<String> added = List.of();
            List<String> removed = List.of();
            if (command.add() > 0) {
                added = Supply.add(market, pool, command.add());
            } else {
                removed = Supply.remove(market, pool, command.remove(), clock.instant(), "remove");
            }
            markets.save(market);
            return new SupplyView(pool.toString(), market.supply(pool), market.freeNodes(pool), added, removed);
        });
    }
}
