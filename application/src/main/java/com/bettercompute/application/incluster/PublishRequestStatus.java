package com.bettercompute.application.incluster;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
import com.bettercompute.application.port.MarketClusterClient.ObservedRequest;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.application.port.MarketClusterClient.RequestStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Reason;
import com.bettercompute.domain.market.RequestPhase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tells Kueue what the market decided, from the market's saved state (never from a tick's events, so a
 * crash between a commit and this replays nothing and loses nothing): the status of each job's current
 * ProvisioningRequest as Kueue reads it, and Events on the job, one per change of reason, then
 * {@code NodeGranted} per granted node ({@code BlockSeated} for a job seated on the base load block, whose
 * request reads Provisioned=True with its block node's pool in {@code provisioningClassDetails}). Idempotent: a status that holds is not written, an Event's name is
 * derived from what it reports.
 *
 * <p>The current request of a job is its newest one not {@code Failed}. When the market request it was
 * told it stands for is no longer the job's open one, the market revoked it (and requeued the job): it
 * reads {@code Failed=True} (MarketRevoked) and Kueue files the next attempt.
 */
public final class PublishRequestStatus {
    private static final Logger LOG = LoggerFactory.getLogger(PublishRequestStatus.class);
    static final String ACCEPTED = "Accepted";
    static final String PROVISIONED = "Provisioned";
    static final String FAILED = "Failed";
    static final String PREEMPTION_NOTICE = "PreemptionNotice";

    private final MarketRepository markets;
    private final MarketClusterClient clusters;
    private final Clock clock;
    private final PostedEvents events;

    public PublishRequestStatus(MarketRepository markets, MarketClusterClient clusters, Clock clock) {
        this.markets = markets;
        this.clusters = clusters;
        this.clock = clock;
        this.events = new PostedEvents(clusters);
    }

    /** @return how many jobs could not be told (their cluster's API failed); the next pass tries again */
    public int publish(String clusterId, ClusterConnection connection, List<ObservedJob> jobs) {
        return publish(markets.load(), clusterId, connection, jobs);
    }

    /** {@link #publish(String, ClusterConnection, List)} from a market read already ({@code market}: read, never saved). */
    public int publish(Market market, String clusterId, ClusterConnection connection, List<ObservedJob> jobs) {
        int failures = 0;
        for (ObservedJob job : jobs) {
            try {
                publish(market, clusterId, connection, job);
            } catch (ProviderException e) {
                failures++;
                LOG.warn("cluster {}: the status of job {}/{} could not be written: {}", clusterId,
                        job.job().namespace(), job.job().name(), e.getMessage());
            }
        }
        return failures;
    }

    private void publish(Market market, String clusterId, ClusterConnection connection, ObservedJob job) {
        if (job.ended()) {
            return;
        }
        ObservedRequest current = current(job);
        String jobId = InClusterNames.jobId(clusterId, job.job());
        if (current == null || !market.hasOpenRequest(jobId)) {
            return;
        }
        MarketRequest open = market.openRequest(jobId);
        // Kubernetes keeps times to the second.
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        if (current.marketRequest() != null && !current.marketRequest().equals(open.id())) {
            String message = "The market revoked this request: its gang's nodes were reclaimed or left the cluster. "
                    + "The job requeues as a new request at its current limit price.";
            List<Condition> failed = new ArrayList<>();
            failed.add(new Condition(FAILED, "True", Reason.MARKET_REVOKED.wire(), message, now));
            // The attempt holds no capacity any more: Provisioned and a notice from before must not stay True.
            for (String held : List.of(PROVISIONED, PREEMPTION_NOTICE)) {
                Condition had = current.condition(held);
                if (had != null && "True".equals(had.status())) {
                    failed.add(new Condition(held, "False", Reason.MARKET_REVOKED.wire(), message, now));
                }
            }
            write(connection, job, current, current.marketRequest(), Reason.MARKET_REVOKED.wire(), message, failed, Map.of());
            return;
        }
        List<Condition> conditions = new ArrayList<>();
        conditions.add(new Condition(ACCEPTED, "True", ACCEPTED, accepted(open.reason()), now));
        String reason = open.reason().wire();
        String message = message(open);
        // A request seated on the base load block is provisioned: its block node is ready in the cluster.
        boolean seated = open.phase() == RequestPhase.SEATED && open.blockNodeId() != null;
        boolean provisioned = open.provisioned() || seated;
        conditions.add(new Condition(PROVISIONED, provisioned ? "True" : "False", reason, message, now));
        if (open.phase() == RequestPhase.RECLAIMING) {
            conditions.add(new Condition(PREEMPTION_NOTICE, "True", Reason.MARKET_PREEMPTION.wire(),
                    "The market reclaims this gang's nodes: checkpoint and stop by " + open.noticeDeadline() + ".", now));
        } else {
            Condition notice = current.condition(PREEMPTION_NOTICE);
            if (notice != null && "True".equals(notice.status())) {
                conditions.add(new Condition(PREEMPTION_NOTICE, "False", "Rescinded",
                        "The reclaim was withdrawn: the gang keeps its nodes.", now));
            }
        }
        Map<String, String> details = seated
                ? Map.of(MarketClusterClient.BLOCK_NODE_DETAIL, ReconcileMarketNodes.poolName(clusterId, open.blockNodeId()))
                : open.provisioned() ? Map.of(MarketClusterClient.REQUEST_LABEL, InClusterNames.requestLabel(open.id())) : Map.of();
        if (seated) {
            post(connection, job, new PostedEvent(InClusterNames.eventName(job.job(), current.name(), "BlockSeated",
                    open.blockNodeId()), "Normal", "BlockSeated", "The market seated this job on base load block node "
                    + open.blockNodeId() + ".", now));
        }
        for (String nodeId : open.grantedNodeIds()) {
            post(connection, job, new PostedEvent(InClusterNames.eventName(job.job(), current.name(), "NodeGranted", nodeId),
                    "Normal", "NodeGranted", "The market granted node " + nodeId + " to this job's gang.", now));
        }
        write(connection, job, current, open.id(), reason, message, conditions, details);
    }

    /** Writes the status, first posting the reason's Event on the job when the reason changed. */
    private void write(ClusterConnection connection, ObservedJob job, ObservedRequest current, String marketRequest,
                       String reason, String message, List<Condition> conditions, Map<String, String> details) {
        int changes = current.reasonChanges();
        if (reasonChanged(current, conditions)) {
            changes++;
            post(connection, job, new PostedEvent(InClusterNames.eventName(job.job(), current.name(), "reason",
                    Integer.toString(changes)), isWarning(reason) ? "Warning" : "Normal", reason, message,
                    clock.instant().truncatedTo(ChronoUnit.SECONDS)));
        }
        RequestStatus status = new RequestStatus(marketRequest, changes, conditions, details);
        if (!holds(current, status)) {
            clusters.writeRequestStatus(connection, job.job().namespace(), current.name(), status);
        }
    }

    private void post(ClusterConnection connection, ObservedJob job, PostedEvent event) {
        events.post(connection, job.job(), event);
    }

    /** The reason Kueue reads (the Failed one when failing, else Provisioned's) differs from what it read. */
    private static boolean reasonChanged(ObservedRequest current, List<Condition> conditions) {
        Condition wanted = conditions.stream().filter(c -> c.type().equals(FAILED)).findFirst()
                .orElseGet(() -> conditions.stream().filter(c -> c.type().equals(PROVISIONED)).findFirst().orElse(null));
        if (wanted == null) {
            return false;
        }
        Condition had = current.condition(wanted.type());
        return had == null || !wanted.reason().equals(had.reason()) || !wanted.status().equals(had.status());
    }

    /** Whether the request reads all of {@code status} already. */
    static boolean holds(ObservedRequest current, RequestStatus status) {
        if (!status.marketRequest().equals(current.marketRequest()) || status.reasonChanges() != current.reasonChanges()) {
            return false;
        }
        for (Condition c : status.conditions()) {
            Condition had = current.condition(c.type());
            if (had == null || !had.status().equals(c.status()) || !had.reason().equals(c.reason())
                    || !c.message().equals(had.message())) {
                return false;
            }
        }
        // Details are written with Provisioned=True, which the conditions compared above.
        return status.classDetails().isEmpty() || current.condition(PROVISIONED) != null;
    }

    /** The newest request the market has not revoked. */
    static ObservedRequest current(ObservedJob job) {
        ObservedRequest current = null;
        for (ObservedRequest r : job.requests()) {
            if (!r.failed() && (current == null || !r.created().isBefore(current.created()))) {
                current = r;
            }
        }
        return current;
    }

    /** The verdict's message, leading with its reason, since Kueue copies only the message to the Workload. */
    static String message(MarketRequest open) {
        String reason = open.reason().wire();
        String message = open.message();
        if (message == null || message.isBlank()) {
            return reason;
        }
        return message.startsWith(reason) ? message : reason + ": " + message;
    }

    /**
     * Accepted=True from the filing on: the market holds the request. Its message tells the same story as
     * Provisioned's reason: {@code Pending} until the market's first read, then read.
     */
    static String accepted(Reason reason) {
        return reason == Reason.PENDING ? "The market holds this request and reads it at its next tick."
                : "The market read this request.";
    }

    private static boolean isWarning(String reason) {
        return Reason.MARKET_REVOKED.wire().equals(reason) || Reason.MARKET_PREEMPTION.wire().equals(reason);
    }
}
