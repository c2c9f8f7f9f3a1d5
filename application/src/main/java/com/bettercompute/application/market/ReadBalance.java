package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.domain.volume.StorageCharge;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code GET /api/k8s/balance}: the organization's credits, what it was charged, the balance (credits −
 * charges) and its latest ledger entries, charges and top-ups together with the entries still accruing (a
 * charge goes to the ledger when its entry closes, on the hour at the latest), newest first. What was charged
 * is the ledger's charges plus the accruing entries. Needs read on the tenant.
 */
public final class ReadBalance {
    public static final int ENTRIES = 20;

    /**
     * One ledger entry: a {@code charge} (a node grant billed over [from, to) at a rate), an {@code accruing}
     * one (a charge whose entry is still open: [from, the last tick)), or a {@code credit} (a top-up, with its
     * key and note). Fields that do not apply are null.
     */
    public record Entry(String kind, Instant at, Money amount, String clusterId, String pool, String node,
                        Money rate, Integer gpus, Instant from, Instant to, String key, String note) {
    }

    public record Balance(String org, Money credits, Money charged, Money balance, List<Entry> entries) {
    }

    private final MarketCallers callers;
    private final Authorizer authorizer;
    private final MarketRepository markets;
    private final MarketLedger ledger;
    /** Shared volumes' storage charges; null: none. */
    private final StorageLedger storage;

    public ReadBalance(MarketCallers callers, Authorizer authorizer, MarketRepository markets, MarketLedger ledger) {
        this(callers, authorizer, markets, ledger, null);
    }

    /**
     * With {@code storage}: the shared volumes' storage charges are listed too (entries of kind {@code storage}, the
     * volume's id as their key). They are in the market's charged total and balance already, as every balance check
     * sees them.
     */
    public ReadBalance(MarketCallers callers, Authorizer authorizer, MarketRepository markets, MarketLedger ledger,
                       StorageLedger storage) {
        this.storage = storage;
        this.callers = callers;
        this.authorizer = authorizer;
        this.markets = markets;
        this.ledger = ledger;
    }

    public Balance read(Caller caller, String orgParam) {
        String org = callers.org(caller, orgParam);
        authorizer.require(caller, Action.READ, Resource.tenant(org));
        Market market = markets.load();
        Money credits = Money.ZERO;
        Money charged = Money.ZERO;
        List<Entry> entries = new ArrayList<>();
        if (market.hasTenant(org)) {
            credits = market.tenant(org).credits();
            charged = market.tenant(org).charged();
            market.openEntries(org).forEach(c -> entries.add(entry("accruing", c)));
        }
        for (Charge c : ledger.latest(org, ENTRIES)) {
            entries.add(entry("charge", c));
        }
        for (MarketLedger.CreditTopUp t : ledger.credits(org, ENTRIES)) {
            entries.add(new Entry("credit", t.at(), t.amount(), null, null, null, null, null, null, null, t.idempotencyKey(),
                    t.note()));
        }
        Money balance = TopUpCredits.balance(market, org);
        if (storage != null) {
            for (StorageCharge c : storage.latest(org, ENTRIES)) {
                Instant end = c.hourStart().plusSeconds(3600);
                entries.add(new Entry("storage", end, c.amount(), c.clusterId(), null, null, null, null, c.hourStart(), end,
                        c.volumeId(), null));
            }
        }
        entries.sort(Comparator.comparing(Entry::at).reversed());
        return new Balance(org, credits, charged, balance,
                List.copyOf(entries.subList(0, Math.min(ENTRIES, entries.size()))));
    }

    private static Entry entry(String kind, Charge c) {
        return new Entry(kind, c.to(), c.amount(), c.clusterId(), c.pool().toString(), c.nodeId(), c.rate(), c.gpus(),
                c.from(), c.to(), null, null);
    }
}
