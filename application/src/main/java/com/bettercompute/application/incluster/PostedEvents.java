package com.bettercompute.application.incluster;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Events posted by this process, so a pass does not post the same one again; after a restart an Event is
 * posted once more under its derived name and the cluster keeps one.
 */
final class PostedEvents {
    private final MarketClusterClient clusters;
    private final Set<String> posted = ConcurrentHashMap.newKeySet();

    PostedEvents(MarketClusterClient clusters) {
        this.clusters = clusters;
    }

    void post(ClusterConnection connection, ObjectRef on, PostedEvent event) {
        String key = connection.endpointUrl() + "\n" + on.namespace() + "\n" + event.eventName();
        if (posted.contains(key)) {
            return;
        }
        clusters.postEvent(connection, on, event);
        posted.add(key);
    }
}
