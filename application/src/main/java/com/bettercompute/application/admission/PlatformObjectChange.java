package com.bettercompute.application.admission;

/**
 * A change to, or the deletion of, one of the cluster's Kueue objects, as the review shows it.
 *
 * @param kind               its kind ({@code ClusterQueue}, {@code ResourceFlavor}, …)
 * @param ownedByPlatform    the object as it was carries {@code nationalcompute.com/owned-by: platform}
 * @param declarationChanged the change touches more than bookkeeping: its spec, or its labels (a finalizer,
 *                           an annotation or the status are Kueue's and the API server's own bookkeeping)
 * @param username           who asks, as the API server authenticated them
 */
public record PlatformObjectChange(String kind, String name, Workload.Operation operation, boolean ownedByPlatform,
                                   boolean declarationChanged, String username) {
}
