package com.bettercompute.bootstrap.market;

import com.bettercompute.application.market.FileMarketRequest;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.market.ReportJobEnded;
import com.bettercompute.application.market.ReportNodeReady;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.NodeGrant;
import com.bettercompute.domain.market.PoolId;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A live market's test side: seeds pools, tenants and clusters; plays the tenant clusters (files jobs as
 * Kueue would, reports granted nodes ready as the kubelets would, ends jobs) through the application's
 * use cases, each in a transaction as the API does; and checks the books: the ledger against the grants.
 */
public final class MarketBook {
    public static final PoolId POOL = PoolId.parse("us-central1/h100-8x");
    public static final List<String> TENANTS = List.of("acme", "beta", "gamma");

    private final Transactions transactions;
    private final MarketRepository markets;
    private final EventOutbox outbox;
    private final Clock clock;
    private static final MarketEffects NONE = events -> { };

    public MarketBook(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** One pool of {@code nodes} 8-GPU nodes, and three tenants each with a cluster and a limit. */
    public void seed(int nodes) {
        transactions.inTransaction(() -> {
            Market m = markets.load();
            m.addPool(POOL, 8, Money.parse("1.00"));
            for (int i = 0; i < nodes; i++) {
                m.addNode("node-" + i, POOL);
            }
            for (int t = 0; t < TENANTS.size(); t++) {
                m.addTenant(TENANTS.get(t), Money.usd(1_000_000));
                m.addCluster(TENANTS.get(t) + "-c", TENANTS.get(t), 1_000, Money.parse((2 + t) + ".00"));
            }
            markets.save(m);
            return null;
        });
    }

    /** Kueue files a job: {@code nodes} whole nodes at the job's own limit (null: the cluster's). */
    public void file(String job, int tenant, int nodes, String limit) {
        new FileMarketRequest(transactions, markets, outbox, clock).file(new FileMarketRequest.Command(
                job, TENANTS.get(tenant) + "-c", POOL.toString(), nodes * 8, limit, null));
    }

    /** Every granted node that is not ready yet reports ready now; how many did. */
    public int reportReady() {
        List<String> pending = new ArrayList<>();
        for (NodeGrant g : markets.load().liveGrants()) {
            if (g.readyAt() == null) {
                pending.add(g.nodeId());
            }
        }
        ReportNodeReady ready = new ReportNodeReady(transactions, markets, outbox, NONE, clock);
        for (String node : pending) {
            ready.report(new ReportNodeReady.Command(node));
        }
        return pending.size();
    }

    public void endJob(String job) {
        new ReportJobEnded(transactions, markets, outbox, clock).report(new ReportJobEnded.Command(job));
    }

    /**
     * What must hold between the market and its ledger, as a list of violations (empty: the books agree):
     * each tenant's closed entries in the market add up to the ledger's, and its charges to the ledger's plus
     * what its grants accrued and did not close yet; each grant's ledger entries follow one another from its readiness with no gap and no overlap, up
     * to where its open entry starts; no node is held by two live grants.
     */
    public static List<String> violations(MarketSnapshot saved, MarketLedger ledger) {
        List<String> out = new ArrayList<>();
        // as the market stands (a saved grant's billing cursor may be older: restoring bills it on to the last tick)
        Market market = Market.restore(saved);
        MarketSnapshot s = market.snapshot();
        Map<String, String> tenantOf = new HashMap<>();
        s.clusters().forEach(c -> tenantOf.put(c.id(), c.tenantId()));
        Map<String, Long> open = new HashMap<>();
        Set<String> heldNodes = new HashSet<>();
        Map<String, GrantState> grants = new HashMap<>();
        for (GrantState g : s.grants()) {
            grants.put(g.id(), g);
            open.merge(tenantOf.get(g.clusterId()), g.entryAccrued(), Long::sum);
            if (g.endsAt() == null && !heldNodes.add(g.nodeId())) {
                out.add("node " + g.nodeId() + " is held by two live grants");
            }
        }
        for (MarketSnapshot.TenantState t : s.tenants()) {
            List<Charge> charges = ledger.latest(t.id(), Integer.MAX_VALUE);
            long recorded = charges.stream().mapToLong(c -> c.amount().micros()).sum();
            if (recorded != ledger.chargedTo(t.id()).micros()) {
                out.add(t.id() + ": the ledger's entries do not add up to its sum");
            }
            if (t.settledMicros() != recorded) {
                out.add(t.id() + ": the market's closed entries add up to " + t.settledMicros() + " µ$, the ledger holds "
                        + recorded + " µ$");
            }
            long charged = market.tenant(t.id()).charged().micros();
            if (charged != recorded + open.getOrDefault(t.id(), 0L)) {
                out.add(t.id() + ": the market charged " + charged + " µ$, the ledger holds " + recorded
                        + " µ$ and open entries " + open.getOrDefault(t.id(), 0L) + " µ$");
            }
            Map<String, List<Charge>> byGrant = new HashMap<>();
            charges.forEach(c -> byGrant.computeIfAbsent(c.grantId(), k -> new ArrayList<>()).add(c));
            for (Map.Entry<String, List<Charge>> e : byGrant.entrySet()) {
                List<Charge> list = e.getValue();
                list.sort(Comparator.comparing(Charge::from));
                for (int i = 1; i < list.size(); i++) {
                    if (!list.get(i).from().equals(list.get(i - 1).to())) {
                        out.add("grant " + e.getKey() + ": entry from " + list.get(i).from() + " does not follow the one"
                                + " ending " + list.get(i - 1).to() + (list.get(i).from().isBefore(list.get(i - 1).to())
                                ? " (billed twice)" : " (a charge is missing)"));
                    }
                }
                GrantState g = grants.get(e.getKey());
                if (g != null) {
                    if (g.readyAt() != null && !list.get(0).from().equals(g.readyAt())) {
                        out.add("grant " + g.id() + ": billing starts " + list.get(0).from() + ", ready " + g.readyAt());
                    }
                    var next = g.entryFrom() != null ? g.entryFrom() : g.billedUntil();
                    if (next != null && !list.get(list.size() - 1).to().equals(next)) {
                        out.add("grant " + g.id() + ": the last entry ends " + list.get(list.size() - 1).to()
                                + ", billing goes on from " + next);
                    }
                }
            }
        }
        return out;
    }
}
