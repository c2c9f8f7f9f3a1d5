package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Pool;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code PUT|GET|DELETE /api/k8s/bid}: a tenant's cluster-wide limit price, by the cluster's name in the
 * caller's organization. Setting and withdrawing need update on the cluster, reading needs read. A limit
 * below the reserve of every pool at the cluster's site is refused ({@code bid-too-low}); a standing
 * limit a raised reserve has passed reads {@code bidTooLow}.
 */
public final class Bids {
    /** A pool the cluster can bid in: its reserve and last clearing price (null when nothing cleared). */
    public record PoolPrice(String pool, Money reserve, Money lastPrice) {
    }

    /** The limit price read; {@code limit} null when none is set (the jobs bid zero). */
    public record BidView(String cluster, Money limit, boolean bidTooLow, Instant updatedAt, List<PoolPrice> pools) {
    }

    private final Transactions transactions;
    private final MarketCallers callers;
    private final MarketRepository markets;
    private final Clock clock;

    public Bids(Transactions transactions, MarketCallers callers, MarketRepository markets, Clock clock) {
        this.transactions = transactions;
        this.callers = callers;
        this.markets = markets;
        this.clock = clock;
    }

    /** @param limit already parsed: not negative, at most six decimals */
    public BidView set(Caller caller, String org, String name, Money limit) {
        Cluster cluster = callers.cluster(caller, org, name, Action.UPDATE);
        LimitPriceWritePolicy.checkInRange(limit);
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            requireEnrolled(market, cluster);
            List<Pool> pools = sitePools(market, cluster);
            Money lowest = lowest(pools);
            if (lowest != null) {
                LimitPriceWritePolicy.checkWrite(limit, lowest, pools.size() == 1 ? pools.get(0).id().toString()
                        : "every pool at " + cluster.region());
            }
            market.setClusterLimit(cluster.id(), limit, clock.instant());
            markets.save(market);
            return view(market, cluster);
        });
    }

    public BidView withdraw(Caller caller, String org, String name) {
        Cluster cluster = callers.cluster(caller, org, name, Action.UPDATE);
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            requireEnrolled(market, cluster);
            market.setClusterLimit(cluster.id(), null, clock.instant());
            markets.save(market);
            return view(market, cluster);
        });
    }

    public BidView read(Caller caller, String org, String name) {
        Cluster cluster = callers.cluster(caller, org, name, Action.READ);
        Market market = markets.load();
        requireEnrolled(market, cluster);
        return view(market, cluster);
    }

    static void requireEnrolled(Market market, Cluster cluster) {
        if (!market.hasCluster(cluster.id())) {
            throw new DomainException(ErrorCode.NOT_FOUND, "Cluster " + cluster.name() + " is not market-managed.",
                    Map.of("field", "cluster", "reason", "not-in-market"));
        }
    }

    /** The market pools at the cluster's site (its region); every pool when none is there. */
    static List<Pool> sitePools(Market market, Cluster cluster) {
        List<Pool> at = new ArrayList<>();
        for (Pool p : market.pools()) {
            if (p.id().site().equals(cluster.region())) {
                at.add(p);
            }
        }
        return at.isEmpty() ? new ArrayList<>(market.pools()) : at;
    }

    private static BidView view(Market market, Cluster cluster) {
        var c = market.cluster(cluster.id());
        List<Pool> site = sitePools(market, cluster);
        boolean open = market.openRequests().stream().anyMatch(r -> r.clusterId().equals(cluster.id()) && !r.subNode());
        // with requests open, the limit faces their pools' reserves; else the cheapest pool it could bid in
        Money reserve = open ? LimitPrices.reserveFor(market, cluster.id(), null) : lowest(site);
        List<PoolPrice> pools = new ArrayList<>();
        for (Pool p : site) {
            pools.add(new PoolPrice(p.id().toString(), p.reserve(), market.lastPrice(p.id())));
        }
        return new BidView(cluster.name(), c.limit(),
                LimitPriceWritePolicy.bidTooLow(c.limit(), reserve == null ? Money.ZERO : reserve), c.limitSetAt(), pools);
    }

    private static Money lowest(List<Pool> pools) {
        Money lowest = null;
        for (Pool p : pools) {
            lowest = lowest == null || p.reserve().isBelow(lowest) ? p.reserve() : lowest;
        }
        return lowest;
    }
}
