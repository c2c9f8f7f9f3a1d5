package com.bettercompute.application.admission;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Pool;

import java.time.Duration;
import java.util.List;

/**
 * What the admission rules read about a market-managed cluster: its site and the pools sold there (GPUs per
 * node), its packing switch and limit price, its organization's balance, the balance horizon (two hours).
 */
public record MarketFacts(String site, List<Pool> pools, boolean packing, Money clusterLimit, long balanceMicros,
                          Duration horizon) {
    public MarketFacts {
        pools = List.copyOf(pools);
    }

    /** The pool a template runs in: its node class, else the site's only one; null when that is ambiguous. */
    Pool pool(String nodeClass) {
        if (nodeClass != null) {
            return pools.stream().filter(p -> p.id().nodeClass().equals(nodeClass)).findFirst().orElse(null);
        }
        return pools.size() == 1 ? pools.get(0) : null;
    }

    /** Where the rules read the facts from. */
    public interface Source {
        /**
         * The cluster's facts now; empty when the cluster is not in the market.
         *
         * @throws RuntimeException when they cannot be read (the rules then fail closed for GPU workloads)
         */
        java.util.Optional<MarketFacts> facts(String clusterId);
    }
}
