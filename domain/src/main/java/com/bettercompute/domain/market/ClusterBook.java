package com.bettercompute.domain.market;

import java.util.ArrayList;
import java.util.List;

/**
 * A cluster's side of the book: the cluster, and its requests not filed with the market, each list in the
 * order they arrived: its own queue (whole nodes, filed while its max cluster size allows) and those under
 * one node waiting for a seat on its base load block.
 */
final class ClusterBook {
    final TenantCluster cluster;
    final List<MarketRequest> queue = new ArrayList<>();
    final List<MarketRequest> blockWaiting = new ArrayList<>();

    ClusterBook(TenantCluster cluster) {
        this.cluster = cluster;
    }
}
