package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ClusterNode;
import com.bettercompute.application.port.MarketClusterClient.Cordon;
import com.bettercompute.application.port.MarketClusterClient.NodeMarking;
import com.bettercompute.application.port.MarketClusterClient.NodeTaint;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PodOnNode;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.application.port.ProviderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A market node's marking in its cluster, notice or not. Under notice (a reclaim with notice, or the drain
 * of a reclaim at once): cordoned, the notice taint, {@code NodePreempting} on the node and each of its pods,
 * the {@code preempt-at} annotation on each pod, and each pod evicted through the Eviction API with the time
 * left as its grace. A node that carries the notice taint but is no longer under notice was rescinded:
 * {@code PreemptionRescinded} on the node, uncordoned, the taint removed. A node out of service is cordoned
 * and tainted too, and its pods evicted with the eviction grace. The market lifts only the cordons it made
 * ({@link Cordon}): a tenant's own cordon stays. Every step is idempotent, so a pass
 * after a crash does again only what is missing.
 */
final class NodeNotice {
    private static final Logger LOG = LoggerFactory.getLogger(NodeNotice.class);
    static final NodeTaint GPU_WORKER = new NodeTaint(MarketClusterClient.GPU_WORKER_TAINT, "true", "NoSchedule");
    static final NodeTaint PREEMPTING = new NodeTaint(MarketClusterClient.PREEMPTING_TAINT, "true", "NoSchedule");
    static final NodeTaint OUT_OF_SERVICE = new NodeTaint(MarketClusterClient.OUT_OF_SERVICE_TAINT, "true", "NoSchedule");
    static final Set<String> OWNED_TAINTS = Set.of(GPU_WORKER.key(), PREEMPTING.key(), OUT_OF_SERVICE.key());

    private final MarketClusterClient clusters;
    private final PostedEvents events;
    private final Clock clock;

    NodeNotice(MarketClusterClient clusters, Clock clock) {
        this.clusters = clusters;
        this.events = new PostedEvents(clusters);
        this.clock = clock;
    }

    /** The node serves as usual: its labels, the GPU worker taint; a notice it still shows was rescinded. */
    void keep(ClusterConnection connection, ClusterNode node, Map<String, String> labels) {
        boolean noticed = node.taints().stream().anyMatch(t -> t.key().equals(PREEMPTING.key()));
        if (noticed) {
            String deadline = node.annotations().getOrDefault(MarketClusterClient.PREEMPT_AT_ANNOTATION, "");
            events.post(connection, nodeRef(node), new PostedEvent(InClusterNames.eventName(nodeRef(node),
                    "PreemptionRescinded", deadline), "Normal", "PreemptionRescinded",
                    "The market withdrew the reclaim of this node: it is uncordoned and keeps its pods.", now()));
        }
        Set<String> removed = labels.containsKey(MarketClusterClient.REQUEST_LABEL) ? Set.of()
                : Set.of(MarketClusterClient.REQUEST_LABEL);
        clusters.markNode(connection, node.name(), new NodeMarking(labels, removed, Map.of(), OWNED_TAINTS,
                List.of(GPU_WORKER), Cordon.RELEASE));
    }

    /**
     * A node the market reclaims: its pods must be gone by {@code deadline}; {@code since} is when the market
     * decided it, the time every Event of the reclaim carries.
     */
    record Drain(ClusterNode node, Instant since, Instant deadline, Map<String, String> labels) {
    }

    /**
     * Drains the nodes of a reclaim together: every node cordoned, tainted and given its {@code NodePreempting}
     * first, then the pods of all of them, so no pod of the gang learns of the notice a node's evictions later
     * than another, and every Event says the moment the market decided, not when this pass reached it.
     */
    void drain(ClusterConnection connection, List<Drain> drains) {
        for (Drain d : drains) {
            String at = d.deadline().truncatedTo(ChronoUnit.SECONDS).toString();
            ObjectRef nodeRef = nodeRef(d.node());
            // The cordon and the taint first, so nothing new lands on the node while its pods are evicted.
            clusters.markNode(connection, d.node().name(), new NodeMarking(d.labels(), Set.of(),
                    Map.of(MarketClusterClient.PREEMPT_AT_ANNOTATION, at), OWNED_TAINTS, List.of(GPU_WORKER, PREEMPTING), Cordon.HOLD));
            events.post(connection, nodeRef, new PostedEvent(InClusterNames.eventName(nodeRef, "NodePreempting", at),
                    "Warning", "NodePreempting", drainMessage(at), seconds(d.since())));
        }
        for (Drain d : drains) {
            String at = d.deadline().truncatedTo(ChronoUnit.SECONDS).toString();
            evictPods(connection, d.node(), d.deadline(), "NodePreempting", drainMessage(at), at, seconds(d.since()));
        }
    }

    private static String drainMessage(String deadline) {
        return "The market reclaims this node: pods are evicted now and must be gone by " + deadline + ".";
    }

    /**
     * Health checks took the node out of service: it stays in the cluster while investigated, cordoned and
     * tainted, without its request's label (the replacement carries it), and its pods are evicted with the
     * grace left until {@code deadline} so their job places them on the replacement.
     */
    void outOfService(ClusterConnection connection, ClusterNode node, Instant deadline, Map<String, String> labels) {
        clusters.markNode(connection, node.name(), new NodeMarking(labels, Set.of(MarketClusterClient.REQUEST_LABEL),
                Map.of(), OWNED_TAINTS, List.of(GPU_WORKER, OUT_OF_SERVICE), Cordon.HOLD));
        ObjectRef nodeRef = nodeRef(node);
        String since = deadline.truncatedTo(ChronoUnit.SECONDS).toString();
        String message = "Health checks took this node out of service: it stays cordoned while investigated, and a "
                + "replacement joins your cluster; pods are evicted now and must be gone by " + since + ".";
        events.post(connection, nodeRef, new PostedEvent(InClusterNames.eventName(nodeRef, "NodeOutOfService", since),
                "Warning", "NodeOutOfService", message, now()));
        evictPods(connection, node, deadline, "NodeOutOfService", message, null, now());
    }

    /** Each pod not terminating yet: an Event, the deadline as its annotation when given, and its eviction. */
    private void evictPods(ClusterConnection connection, ClusterNode node, Instant deadline, String reason, String message,
                           String preemptAt, Instant eventAt) {
        long grace = Math.max(0, Duration.between(clock.instant(), deadline).toSeconds());
        String key = deadline.truncatedTo(ChronoUnit.SECONDS).toString();
        for (PodOnNode pod : clusters.podsOn(connection, node.name())) {
            if (pod.terminating()) {
                continue;
            }
            try {
                if (preemptAt != null && !preemptAt.equals(pod.annotations().get(MarketClusterClient.PREEMPT_AT_ANNOTATION))) {
                    clusters.annotatePod(connection, pod.pod(), Map.of(MarketClusterClient.PREEMPT_AT_ANNOTATION, preemptAt));
                }
                events.post(connection, pod.pod(), new PostedEvent(InClusterNames.eventName(pod.pod(), reason, key),
                        "Warning", reason, message, eventAt));
                clusters.evictPod(connection, pod.pod(), grace);
            } catch (ProviderException e) {
                // One pod's refusal (a disruption budget, say) does not stop the others; the next pass retries it.
                LOG.warn("node {}: pod {}/{} not evicted yet: {}", node.name(), pod.pod().namespace(), pod.pod().name(),
                        e.getMessage());
            }
        }
    }

    private static ObjectRef nodeRef(ClusterNode node) {
        return new ObjectRef("v1", "Node", "default", node.name(), null);
    }

    private Instant now() {
        return seconds(clock.instant());
    }

    /** Kubernetes keeps an Event's times to the second. */
    private static Instant seconds(Instant at) {
        return at.truncatedTo(ChronoUnit.SECONDS);
    }
}
