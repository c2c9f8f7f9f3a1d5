package com.bettercompute.application.admission;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.market.BalanceCheckPolicy;
import com.bettercompute.domain.market.EffectiveLimitPolicy;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;

/**
 * Launch admission (the spec's "Launch admission"): what a market-managed cluster's API server asks the
 * platform before it stores a GPU workload or a change to the platform's Kueue objects. The workload rules
 * read the market at that moment: the pool's GPUs per node, the cluster's packing switch and limit price,
 * the organization's balance. Nothing here writes.
 *
 * <ul>
 *   <li>{@code JobSizeTooSmall}: every GPU pod template asks a multiple of the pool's {@code gpus_per_node};
 *       below one node only where packing onto the base load block is on. CPU-only templates are exempt.</li>
 *   <li>{@code JobSizeNotNodeAligned}: with packing on, a pod above one node asks a whole number of nodes.</li>
 *   <li>{@code BalanceTooLow}: the balance covers the horizon (two hours) × the limit price × the job's GPU
 *       total. Checked on the workload applied (a Job, JobSet, MPIJob, Deployment, StatefulSet, ReplicaSet or
 *       bare pod; replicas count as pods), never on the pods a
 *       controller makes later, since a job in the queue is never refused later.</li>
 *   <li>{@code StationOwned}: the platform's own Kueue objects refuse a change of their spec or labels and
 *       their deletion by anyone but the platform.</li>
 * </ul>
 * A workload the platform cannot decide on (the database cannot be read) is refused when it asks for GPUs
 * and allowed when it does not (fail closed for the market, open for CPU-only work outside it).
 */
public final class AdmitWorkload {
    private static final Logger LOG = LoggerFactory.getLogger(AdmitWorkload.class);

    private final MarketFacts.Source facts;
    private final Set<String> platformUsers;

    /**
     * @param facts         where the cluster's market facts are read at each review
     * @param platformUsers the user names the cluster's API server gives the platform's own credential: its
     *                      writes keep the platform's objects as declared and are never StationOwned
     */
    public AdmitWorkload(MarketFacts.Source facts, Set<String> platformUsers) {
        this.facts = facts;
        this.platformUsers = Set.copyOf(platformUsers);
    }

    /** On the market's state as saved, read at each review. */
    public AdmitWorkload(MarketRepository markets, ClusterRepository clusters, Set<String> platformUsers) {
        this(new ReadMarketFacts(markets, clusters), platformUsers);
    }

    /** The validating webhook's answer for a workload in cluster {@code clusterId}. */
    public Verdict admit(String clusterId, Workload workload) {
        if (!workload.usesGpus() || workload.operation() != Workload.Operation.CREATE) {
            return Verdict.allow();
        }
        MarketFacts facts;
        try {
            facts = this.facts.facts(clusterId).orElse(null);
        } catch (RuntimeException e) {
            LOG.warn("cluster {}: admission of {} {}/{} cannot read the market: {}", clusterId,
                    workload.kind().display(), workload.namespace(), workload.name(), e.getClass().getSimpleName());
            return Verdict.unavailable("the platform cannot check this GPU workload now (it cannot read the market's "
                    + "state); nothing was created. Apply it again in a minute.");
        }
        if (facts == null) {
            // not market-managed (any more): the market's rules do not bind here
            return Verdict.allow();
        }
        for (Workload.PodTemplate t : workload.templates()) {
            Verdict v = size(facts, workload, t);
            if (!v.allowed()) {
                return v;
            }
        }
        return workload.controlled() ? Verdict.allow() : balance(facts, workload);
    }

    /** The validating webhook's answer for a change to one of the cluster's Kueue objects. */
    public Verdict guard(PlatformObjectChange change) {
        boolean changes = change.operation() == Workload.Operation.DELETE
                || (change.operation() == Workload.Operation.UPDATE && change.declarationChanged());
        if (!change.ownedByPlatform() || !changes || platformUsers.contains(change.username())) {
            return Verdict.allow();
        }
        String what = change.operation() == Workload.Operation.DELETE ? "deleted" : "changed";
        return Verdict.refuse(Verdict.STATION_OWNED, change.kind() + " \"" + change.name() + "\" is the platform's ("
                + MarketClusterClient.OWNED_BY + ": platform) and cannot be " + what + " by "
                + change.username() + ". The platform keeps it as the market declares it; the quota of ClusterQueue "
                + "\"market\" is your max cluster size: ask support to change it.");
    }

    private static Verdict size(MarketFacts facts, Workload workload, Workload.PodTemplate t) {
        if (t.gpusPerPod() == 0) {
            return Verdict.allow();
        }
        Pool pool = facts.pool(t.nodeClass());
        if (pool == null) {
            String classes = String.join(", ", facts.pools().stream().map(p -> p.id().nodeClass()).toList());
            return Verdict.refuse(Verdict.NODE_CLASS_REQUIRED, asks(workload, t) + t.gpusPerPod() + " GPUs per pod" + (t.nodeClass() == null
                    ? " and names no node class, and this cluster's site " + facts.site() + " sells " + facts.pools().size()
                    : " of node class " + t.nodeClass() + ", which this cluster's site " + facts.site()
                    + " does not sell; it sells " + facts.pools().size()) + " (" + classes + "). Set the node selector "
                    + MarketClusterClient.NODE_CLASS_LABEL + " to one of them.");
        }
        long perNode = pool.gpusPerNode();
        long gpus = t.gpusPerPod();
        if (gpus % perNode == 0) {
            return Verdict.allow();
        }
        if (facts.packing() && gpus < perNode) {
            return Verdict.allow();
        }
        if (facts.packing()) {
            return Verdict.refuse(Verdict.JOB_SIZE_NOT_NODE_ALIGNED, asks(workload, t) + gpus
                    + " GPUs per pod: more than one node of " + pool.id() + " (" + perNode + " GPUs) but not a whole number "
                    + "of nodes. Request " + (gpus / perNode) * perNode + " or " + (gpus / perNode + 1) * perNode
                    + " GPUs per pod, or fewer than " + perNode + " to run on your base load block.");
        }
        long up = (gpus / perNode + 1) * perNode;
        return Verdict.refuse(Verdict.JOB_SIZE_TOO_SMALL, asks(workload, t) + gpus
                + " GPUs per pod, which is not a multiple of " + perNode + ", the GPUs of one node of " + pool.id()
                + ". The market assigns whole nodes" + (gpus < perNode
                ? " and packing onto the base load block is off for this cluster" : "") + ": request " + up
                + " GPUs per pod" + (gpus > perNode ? " (or " + (gpus / perNode) * perNode + ")" : "")
                + ", as several whole-node pods for a multi-node job.");
    }

    private static Verdict balance(MarketFacts facts, Workload workload) {
        String label = workload.labels().get(MarketClusterClient.LIMIT_PRICE_LABEL);
        Money jobLimit;
        try {
            jobLimit = LimitPriceWritePolicy.parseJobLabel(label);
        } catch (DomainException e) {
            return Verdict.refuse(Verdict.INVALID_LIMIT_PRICE, e.getMessage() + ". Write the limit price as a quoted "
                    + "decimal string of USD per GPU-hour, such as \"2.50\".");
        }
        long limit = EffectiveLimitPolicy.limit(jobLimit, facts.clusterLimit());
        long gpus = workload.gpuTotal();
        long required = BalanceCheckPolicy.costOver(facts.horizon(), limit, gpus);
        if (facts.balanceMicros() >= required) {
            return Verdict.allow();
        }
        long hours = facts.horizon().toHours();
        return Verdict.refuse(Verdict.BALANCE_TOO_LOW, "the organization's balance is $" + Money.ofMicros(facts.balanceMicros())
                + ", and this " + workload.kind().display() + " needs a balance of $" + Money.ofMicros(required) + " to start: "
                + hours + " hours × $" + Money.ofMicros(limit) + " per GPU-hour (" + (jobLimit != null
                ? "its " + MarketClusterClient.LIMIT_PRICE_LABEL + " label" : "the cluster's limit price") + ") × "
                + gpus + " GPUs. Top up the organization's credits, or lower the limit price or the job's size.");
    }

    /** Who asks: {@code Pod "p" requests }, or {@code Job "j", pod template "worker", requests }. */
    private static String asks(Workload workload, Workload.PodTemplate t) {
        String who = workload.kind().display() + " \"" + workload.name() + "\"";
        return workload.kind() == Workload.Kind.POD ? who + " requests " : who + ", pod template \"" + t.name() + "\", requests ";
    }
}
