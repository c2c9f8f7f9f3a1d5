package com.bettercompute.bootstrap;

import com.bettercompute.application.provider.Autoscaling;
import com.bettercompute.application.provider.ClusterChange;
import com.bettercompute.application.provider.ClusterLocator;
import com.bettercompute.application.provider.ClusterObservation;
import com.bettercompute.application.provider.ClusterProvider;
import com.bettercompute.application.provider.ClusterSpec;
import com.bettercompute.application.provider.NodePoolSpec;
import com.bettercompute.application.provider.ServerConfig;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;

/**
 * A provider whose server configs (the versions offered in a location) are kept briefly, so a burst of
 * {@code versions} calls asks the provider once. Everything else goes straight through.
 */
final class CachingClusterProvider implements ClusterProvider {
    private record Key(String project, String location) {}

    private final ClusterProvider provider;
    private final Cache<Key, ServerConfig> configs;

    CachingClusterProvider(ClusterProvider provider, Duration ttl) {
        this.provider = provider;
        this.configs = Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(10_000).build();
    }

    @Override
    public ServerConfig serverConfig(String project, String location) {
        return configs.get(new Key(project, location), k -> provider.serverConfig(k.project(), k.location()));
    }

    @Override
    public String platformAccessToken() {
        return provider.platformAccessToken();
    }

    @Override
    public ClusterObservation observe(ClusterLocator at) {
        return provider.observe(at);
    }

    @Override
    public void createCluster(ClusterSpec spec) {
        provider.createCluster(spec);
    }

    @Override
    public void updateCluster(ClusterLocator at, ClusterChange change) {
        provider.updateCluster(at, change);
    }

    @Override
    public void deleteCluster(ClusterLocator at) {
        provider.deleteCluster(at);
    }

    @Override
    public void createNodePool(ClusterLocator at, NodePoolSpec pool) {
        provider.createNodePool(at, pool);
    }

    @Override
    public void resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        provider.resizeNodePool(at, pool, nodeCount);
    }

    @Override
    public void setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        provider.setNodePoolAutoscaling(at, pool, autoscaling);
    }

    @Override
    public void updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, java.util.Map<String, String> labels,
                                              java.util.List<com.bettercompute.application.provider.Taint> taints) {
        provider.updateNodePoolLabelsAndTaints(at, pool, labels, taints);
    }

    @Override
    public void deleteNodePool(ClusterLocator at, String pool) {
        provider.deleteNodePool(at, pool);
    }
}
