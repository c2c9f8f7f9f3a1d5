package com.bettercompute.domain.volume;

import java.util.List;

/**
 * What becomes of a volume once its cluster is gone: preserved by default; destroyed only when the cluster's
 * delete opted in and no node holds it any more (then it is preserved, and can be deleted later).
 */
public final class VolumeFatePolicy {
    private VolumeFatePolicy() {}

    /** The decision, as a value. */
    public sealed interface Fate {
        /** Destroy it with the cluster. */
        record Delete() implements Fate {}

        /** Keep it; {@code why} is for the person who reads the Storage page and the event. */
        record Preserve(String why) implements Fate {}
    }

    /** @param holders the nodes that still mount the volume, as the provider sees them */
    public static Fate whenClusterGone(SharedVolume v, List<String> holders) {
        if (!v.deleteWithCluster()) {
            return new Fate.Preserve("Preserved with cluster " + v.clusterName() + "'s delete (the default); delete it from the Storage page.");
        }
        if (!holders.isEmpty()) {
            return new Fate.Preserve("Preserved: the cluster's delete asked to destroy it, but node " + holders.get(0)
                    + (holders.size() > 1 ? " and " + (holders.size() - 1) + " more" : "")
                    + " still held it; delete it from the Storage page.");
        }
        return new Fate.Delete();
    }
}
