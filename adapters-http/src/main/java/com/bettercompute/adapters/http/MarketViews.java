package com.bettercompute.adapters.http;

import com.bettercompute.application.market.Bids;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.ListClusterRequests;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.market.TopUpCredits;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolTick;

import java.util.List;

import static com.bettercompute.adapters.http.Views.time;

/**
 * The answers of the market routes as Jackson writes them, in the spec's snake_case and API.md's field
 * order; money as a decimal string (null where there is none), times in RFC 3339 UTC.
 */
final class MarketViews {
    private MarketViews() {}

    static String usd(Money m) {
        return m == null ? null : m.toString();
    }

    record MarketPoolPrice(String pool, String reserve, @MayBeNull String last_price) {}

    record MarketBid(String cluster, @MayBeNull String limit_price, boolean bid_too_low, @MayBeNull String updated_at, List<MarketPoolPrice> pools) {
        static MarketBid of(Bids.BidView v) {
            return new MarketBid(v.cluster(), usd(v.limit()), v.bidTooLow(), time(v.updatedAt()),
                    v.pools().stream().map(p -> new MarketPoolPrice(p.pool(), usd(p.reserve()), usd(p.lastPrice()))).toList());
        }
    }

    record MarketJob(String kind, String namespace, String name) {}

    record MarketEpisode(@MayBeNull String queued_at, @MayBeNull String running_at, @MayBeNull String ended_at, @MayBeNull String end) {}

    record MarketRequest(String id, MarketJob job, int attempt, @MayBeNull String pool, int nodes, int gpus, @MayBeNull String limit_price,
                         String limit_source, @MayBeNull String priority, String phase, @MayBeNull String reason, @MayBeNull String message,
                         int granted_nodes, @MayBeNull String locked_rate, @MayBeNull String hold_until, @MayBeNull String protected_until,
                         @MayBeNull String notice_deadline, @MayBeNull String filed_at, List<MarketEpisode> episodes) {
        static MarketRequest of(ListClusterRequests.Item i) {
            return new MarketRequest(i.id(), new MarketJob(i.job().kind(), i.job().namespace(), i.job().name()), i.attempt(),
                    i.pool(), i.nodes(), i.gpus(), usd(i.limitPrice()), i.limitSource(), i.priority(), i.phase(), i.reason(),
                    i.message(), i.grantedNodes(), usd(i.lockedRate()), time(i.holdUntil()), time(i.protectedUntil()),
                    time(i.noticeDeadline()), time(i.filedAt()), i.episodes().stream().map(e -> new MarketEpisode(
                            time(e.queuedAt()), time(e.runningAt()), time(e.endedAt()), e.end())).toList());
        }
    }

    record MarketRequestList(List<MarketRequest> items) {}

    record MarketFeedItem(long sequence, String time, String pool, @MayBeNull String price, String reserve, int supply, int free,
                          int demand, int waiting, int granted) {
        static MarketFeedItem of(MarketFeed.Entry e) {
            PoolTick t = e.tick();
            return new MarketFeedItem(e.sequence(), Views.time(t.at()), t.pool().toString(), usd(t.price()), usd(t.reserve()),
                    t.supply(), t.free(), t.demand(), t.waiting(), t.granted());
        }
    }

    record MarketFeedPage(List<MarketFeedItem> items, long next) {}

    /**
     * A ledger entry: {@code kind} {@code charge} (a node grant billed over [from, to)), {@code accruing} (one whose
     * entry is still open, billed up to the last tick) or {@code credit} (a top-up).
     */
    record MarketLedgerEntry(String kind, String at, String amount, @MayBeNull String cluster_id, @MayBeNull String pool, @MayBeNull String node, @MayBeNull String rate,
                             @MayBeNull Integer gpus, @MayBeNull String from, @MayBeNull String to, @MayBeNull String idempotency_key, @MayBeNull String note) {
        static MarketLedgerEntry of(ReadBalance.Entry e) {
            return new MarketLedgerEntry(e.kind(), time(e.at()), usd(e.amount()), e.clusterId(), e.pool(), e.node(),
                    usd(e.rate()), e.gpus(), time(e.from()), time(e.to()), e.key(), e.note());
        }
    }

    record MarketBalance(String org, String credits, String charged, String balance, List<MarketLedgerEntry> entries) {
        static MarketBalance of(ReadBalance.Balance b) {
            return new MarketBalance(b.org(), usd(b.credits()), usd(b.charged()), usd(b.balance()),
                    b.entries().stream().map(MarketLedgerEntry::of).toList());
        }
    }

    record MarketReserve(String pool, String reserve) {}

    record MarketSupply(String pool, int supply, int free, List<String> added, List<String> removed) {
        static MarketSupply of(ChangeSupply.SupplyView v) {
            return new MarketSupply(v.pool(), v.supply(), v.free(), v.added(), v.removed());
        }
    }

    record MarketNode(String node, boolean in_service) {}

    record MarketCredit(String org, String amount, @MayBeNull String note, String idempotency_key, String at, boolean replayed,
                        String balance) {
        static MarketCredit of(TopUpCredits.TopUpView v) {
            MarketLedger.CreditTopUp t = v.topUp();
            return new MarketCredit(t.tenantId(), usd(t.amount()), t.note(), t.idempotencyKey(), time(t.at()), v.replayed(),
                    usd(v.balance()));
        }
    }

    record MarketEnrolment(String cluster_id, String org, long max_cluster_gpus, boolean packing, List<String> block_nodes,
                           @MayBeNull String limit_price) {
        static MarketEnrolment of(EnrolCluster.Enrolment e) {
            return new MarketEnrolment(e.clusterId(), e.tenantId(), e.maxClusterGpus(), e.packing(), e.blockNodes(),
                    usd(e.limit()));
        }
    }

    record MarketRemoval(String cluster_id, boolean removed) {}

    /** The GPU charges beside the cluster-hours of {@code /api/usage}: per cluster, pool and hour. */
    record GpuUsageView(String clusterId, String pool, String hourStart, String amount, long gpuSeconds) {
        static GpuUsageView of(MarketLedger.HourlyCharge h) {
            return new GpuUsageView(h.clusterId(), h.pool().toString(), time(h.hourStart()), usd(h.amount()), h.gpuSeconds());
        }
    }
}
