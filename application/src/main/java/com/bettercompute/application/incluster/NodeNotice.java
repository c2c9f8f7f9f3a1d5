package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ClusterNode;
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
 * {@code PreemptionRescinded} on the node, uncordoned, the taint removed. Every step is idempotent, so a pass
 * after a crash does again only what is missing.
 */
final class NodeNotice {
    private static final Logger LOG = LoggerFactory.getLogger(NodeNotice.class);
    static final NodeTaint GPU_WORKER = new NodeTaint(MarketClusterClient.GPU_WORKER_TAINT, "true", "NoSchedule");
    static final NodeTaint PREEMPTING = new NodeTaint(MarketClusterClient.PREEMPTING_TAINT, "true", "NoSchedule");
    static final Set<String> OWNED_TAINTS = Set.of(GPU_WORKER.key(), PREEMPTING.key());

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
                List.of(GPU_WORKER), false));
    }

    /** The node is reclaimed: its pods must be gone by {@code deadline}. */
    void drain(ClusterConnection connection, ClusterNode node, Instant deadline, Map<String, String> labels) {
        String at = deadline.truncatedTo(ChronoUnit.SECONDS).toString();
        ObjectRef nodeRef = nodeRef(node);
        String message = "The market reclaims this node: pods are evicted now and must be gone by " + at + ".";
        // The cordon and the taint first, so nothing new lands on the node while its pods are evicted.
        clusters.markNode(connection, node.name(), new NodeMarking(labels, Set.of(),
                Map.of(MarketClusterClient.PREEMPT_AT_ANNOTATION, at), OWNED_TAINTS, List.of(GPU_WORKER, PREEMPTING), true));
        events.post(connection, nodeRef, new PostedEvent(InClusterNames.eventName(nodeRef, "NodePreempting", at),
                "Warning", "NodePreempting", message, now()));
        long grace = Math.max(0, Duration.between(clock.instant(), deadline).toSeconds());
        for (PodOnNode pod : clusters.podsOn(connection, node.name())) {
            if (pod.terminating()) {
                continue;
            }
            try {
                if (!at.equals(pod.annotations().get(MarketClusterClient.PREEMPT_AT_ANNOTATION))) {
                    clusters.annotatePod(connection, pod.pod(), Map.of(MarketClusterClient.PREEMPT_AT_ANNOTATION, at));
                }
                events.post(connection, pod.pod(), new PostedEvent(InClusterNames.eventName(pod.pod(), "NodePreempting", at),
                        "Warning", "NodePreempting", message, now()));
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
        return clock.instant().truncatedTo(ChronoUnit.SECONDS);
    }
}
