package com.bettercompute.application.incluster;

import com.bettercompute.application.market.MarketOutboxEvents;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.Pool;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Brings the market's requests of one cluster in line with the jobs its Kueue asks nodes for, in one
 * transaction: a job with a live ProvisioningRequest and no open request files one (its node class, GPUs,
 * limit price and priority labels); a GPU job its Kueue holds back for quota is recorded as held
 * ({@link Market#hold}), listed with the max cluster size as its cause, and files once its request appears; a job
 * whose limit or priority label changed gets the new one; a job that finished
 * ends its request; an open request whose job has no ProvisioningRequest any more is withdrawn. A pass over many
 * clusters finds the changes on the market it read once and writes all of them in one transaction. Because it
 * compares what the cluster shows with what the market saved, it is idempotent: a restart files nothing
 * twice, and a missed watch event is caught at the next pass. Each change writes the outbox event its use
 * case writes ({@code market.request.received}, {@code market.job.ended}, {@code market.request.withdrawn},
 * {@code market.request.limit-changed}, {@code market.request.priority-changed}) in the same transaction; a job
 * held over the max cluster size writes {@code market.request.held} instead of received, and
 * {@code market.request.released} when it files.
 *
 * <p>A job's attempts share one market job id ({@link InClusterNames#jobId}): when the market revokes a
 * gang it requeues the job itself, so Kueue's next attempt finds the request open and files nothing new.
 */
public final class SyncClusterDemand {
    private static final Logger LOG = LoggerFactory.getLogger(SyncClusterDemand.class);
    /** A job the market refused is not tried again at every pass, but after this (or when it changes). */
    public static final Duration RETRY_REFUSED = Duration.ofMinutes(1);
    private static final Outcome NOTHING = new Outcome(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

    /** What one pass changed. */
    public record Outcome(List<String> filed, List<String> ended, List<String> withdrawn, List<String> limitsChanged,
                          List<String> prioritiesChanged, List<String> refused, List<String> held) {
        public boolean changed() {
            return !filed.isEmpty() || !ended.isEmpty() || !withdrawn.isEmpty() || !limitsChanged.isEmpty()
                    || !prioritiesChanged.isEmpty() || !held.isEmpty();
        }
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final EventOutbox outbox;
    private final Clock clock;
    /** Jobs refused once (and why), so a standing refusal is logged once rather than at every pass. */
    private final Set<String> refusedLogged = ConcurrentHashMap.newKeySet();
    /** When each job (as {@link #fingerprint} reads it) was last refused. */
    private final Map<String, Instant> refusedAt = new ConcurrentHashMap<>();

    public SyncClusterDemand(Transactions transactions, MarketRepository markets, EventOutbox outbox, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.outbox = Objects.requireNonNull(outbox);
        this.clock = clock;
    }

    /** One cluster's demand as its synced watch shows it, with the cluster's site (its region). */
    public record Observed(String clusterId, String site, List<ObservedJob> jobs) {
        public Observed {
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * @param site the cluster's site (its region): a job naming no node class takes the site's only one
     * @param jobs every job of the cluster with a market ProvisioningRequest, as a synced watch shows them
     */
    public Outcome sync(String clusterId, String site, List<ObservedJob> jobs) {
        return sync(markets.load(), List.of(new Observed(clusterId, site, jobs))).get(clusterId);
    }

    /**
     * Brings several clusters' requests in line at once. What changes is found on {@code view} (a market read
     * this pass, not written); only when some cluster has a change is the market loaded for writing, once, and
     * every cluster's changes saved in that one transaction (decided again on the market as it is then). A job
     * the market refused is tried again when its labels or size change, or after {@link #RETRY_REFUSED}.
     *
     * @return each cluster's outcome, by cluster id (nothing changed for a cluster that is not enrolled)
     */
    public Map<String, Outcome> sync(Market view, List<Observed> clusters) {
        // A refusal past its wait no longer holds anything back: forgotten, so jobs deleted while refused do not pile up.
        Instant expired = clock.instant().minus(RETRY_REFUSED);
        refusedAt.values().removeIf(at -> !at.isAfter(expired));
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        List<Observed> changing = new ArrayList<>();
        for (Observed c : clusters) {
            outcomes.put(c.clusterId(), NOTHING);
            if (view.hasCluster(c.clusterId()) && changes(view, c)) {
                changing.add(c);
            }
        }
        if (changing.isEmpty()) {
            return outcomes;
        }
        transactions.inTransaction(() -> {
            Market market = markets.load();
            List<DomainEvent> events = new ArrayList<>();
            boolean changed = false;
            for (Observed c : changing) {
                if (!market.hasCluster(c.clusterId())) {
                    continue;
                }
                Outcome outcome = apply(market, c.clusterId(), c.site(), c.jobs(), events);
                outcomes.put(c.clusterId(), outcome);
                changed |= outcome.changed();
            }
            if (changed) {
                markets.save(market);
                outbox.appendAll(events);
            }
            return null;
        });
        return outcomes;
    }

    /** Whether {@link #apply} would change anything of the cluster's on {@code market} (read only). */
    private boolean changes(Market market, Observed c) {
        Instant now = clock.instant();
        Set<String> seen = new HashSet<>();
        for (ObservedJob job : c.jobs()) {
            String jobId = InClusterNames.jobId(c.clusterId(), job.job());
            seen.add(jobId);
            boolean open = market.hasOpenRequest(jobId);
            if (job.ended()) {
                if (open) {
                    return true;
                }
            } else if (!open || market.held(jobId)) {
                Instant refused = refusedAt.get(fingerprint(jobId, job));
                if (job.gpus() > 0 && job.requests().stream().anyMatch(r -> !r.failed())
                        && (refused == null || !now.isBefore(refused.plus(RETRY_REFUSED)))) {
                    return true;
                }
                if (!open && job.quotaWait() && job.gpus() > 0) {
                    return true;
                }
            } else {
                MarketRequest request = market.openRequest(jobId);
                try {
                    if (limitChanged(request, job.limitLabel())
                            || request.priority() != priority(job.priorityLabel())) {
                        return true;
                    }
                } catch (DomainException e) {
                    // a label the market refuses: apply logs it once and keeps what the market holds; looked at
                    // again after RETRY_REFUSED like any refusal
                    if (!refusedAt.containsKey(fingerprint(jobId, job))) {
                        return true;
                    }
                }
            }
        }
        String prefix = InClusterNames.jobPrefix(c.clusterId());
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(c.clusterId()) && r.jobId().startsWith(prefix) && !seen.contains(r.jobId())) {
                return true;
            }
        }
        return false;
    }

    private Outcome apply(Market market, String clusterId, String site, List<ObservedJob> jobs, List<DomainEvent> events) {
        List<String> filed = new ArrayList<>();
        List<String> ended = new ArrayList<>();
        List<String> withdrawn = new ArrayList<>();
        List<String> limits = new ArrayList<>();
        List<String> priorities = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        List<String> held = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ObservedJob job : jobs) {
            String jobId = InClusterNames.jobId(clusterId, job.job());
            seen.add(jobId);
            boolean open = market.hasOpenRequest(jobId);
            try {
                if (job.ended()) {
                    if (open) {
                        events.add(MarketOutboxEvents.jobEnded(market, market.openRequest(jobId), clock.instant()));
                        market.endJob(jobId, clock.instant());
                        ended.add(jobId);
                    }
                } else if (!open || market.held(jobId)) {
                    // No GPUs read (its PodTemplates are not there yet): not demand yet, filed at a later pass.
                    if (job.gpus() > 0 && job.requests().stream().anyMatch(r -> !r.failed())) {
                        // open here means held: its hold ends as it files, and its feed said held, not received
                        MarketRequest request = market.file(demand(market, clusterId, site, jobId, job), clock.instant());
                        events.add(open ? MarketOutboxEvents.released(market, request, clock.instant())
                                : MarketOutboxEvents.received(market, request, clock.instant()));
                        filed.add(jobId);
                        refusedAt.remove(fingerprint(jobId, job));
                    } else if (!open && job.quotaWait() && job.gpus() > 0) {
                        // Listed with the quota as its cause until its cluster's queue lets it file.
                        MarketRequest request = market.hold(demand(market, clusterId, site, jobId, job), clock.instant());
                        events.add(MarketOutboxEvents.held(market, request, clock.instant()));
                        held.add(jobId);
                    }
                } else {
                    if (limitChanged(market.openRequest(jobId), job.limitLabel())) {
                        market.setJobLimit(jobId, LimitPriceWritePolicy.parseJobLabel(job.limitLabel()));
                        events.add(MarketOutboxEvents.limitChanged(market, market.openRequest(jobId), clock.instant()));
                        limits.add(jobId);
                    }
                    if (market.setJobPriority(jobId, PriorityClass.fromLabel(job.priorityLabel()))) {
                        events.add(MarketOutboxEvents.priorityChanged(market, market.openRequest(jobId), clock.instant()));
                        priorities.add(jobId);
                    }
                }
            } catch (DomainException e) {
                refused.add(jobId);
                refusedAt.put(fingerprint(jobId, job), clock.instant());
                if (refusedLogged.add(jobId + "\n" + e.getMessage())) {
                    LOG.warn("cluster {}: job {} is not taken to the market: {}", clusterId, jobId, e.getMessage());
                }
            }
        }
        String prefix = InClusterNames.jobPrefix(clusterId);
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(clusterId) && r.jobId().startsWith(prefix) && !seen.contains(r.jobId())) {
                events.add(MarketOutboxEvents.withdrawn(market, r, clock.instant()));
                market.endJob(r.jobId(), clock.instant());
                withdrawn.add(r.jobId());
            }
        }
        return new Outcome(filed, ended, withdrawn, limits, priorities, refused, held);
    }

    private static PriorityClass priority(String label) {
        PriorityClass p = PriorityClass.fromLabel(label);
        return p == null ? PriorityClass.NONE : p;
    }

    /** What the market read of a job: a refusal holds while these hold. */
    private static String fingerprint(String jobId, ObservedJob job) {
        return String.join("\n", jobId, String.valueOf(job.nodeClass()), Integer.toString(job.gpus()),
                String.valueOf(job.limitLabel()), String.valueOf(job.priorityLabel()));
    }

    private static JobDemand demand(Market market, String clusterId, String site, String jobId, ObservedJob job) {
        Money limit = LimitPriceWritePolicy.parseJobLabel(job.limitLabel());
        return new JobDemand(jobId, clusterId, pool(market, site, job.nodeClass()), job.gpus(), limit,
                PriorityClass.fromLabel(job.priorityLabel()));
    }

    private static PoolId pool(Market market, String site, String nodeClass) {
        if (nodeClass != null) {
            return new PoolId(site, nodeClass);
        }
        List<PoolId> atSite = market.pools().stream().map(Pool::id).filter(p -> p.site().equals(site)).toList();
        if (atSite.size() != 1) {
            throw new DomainException(com.bettercompute.domain.ErrorCode.INVALID_INPUT,
                    "the job's pods name no node class (label nationalcompute.com/node-class) and the site "
                            + site + " sells " + atSite.size() + " classes",
                    java.util.Map.of("field", "nodeSelector", "site", site));
        }
        return atSite.get(0);
    }

    private static boolean limitChanged(MarketRequest open, String label) {
        Money now = LimitPriceWritePolicy.parseJobLabel(label);
        return !Objects.equals(now, open.jobLimit());
    }
}
