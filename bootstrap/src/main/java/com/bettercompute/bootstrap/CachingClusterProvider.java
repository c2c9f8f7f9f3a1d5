package com.bettercompute.bootstrap;

import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;
import java.util.List;
import java.util.Map;

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
    public OperationStatus operation(ClusterLocator at, String name) {
        return provider.operation(at, name);
    }

    @Override
    public String createCluster(ClusterSpec spec) {
        return provider.createCluster(spec);
    }

    @Override
    public String updateCluster(ClusterLocator at, ClusterChange change) {
        return provider.updateCluster(at, change);
    }

    @Override
    public String deleteCluster(ClusterLocator at) {
        return provider.deleteCluster(at);
    }

    @Override
    public String createNodePool(ClusterLocator at, NodePoolSpec pool) {
        return provider.createNodePool(at, pool);
    }

    @Override
    public String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        return provider.resizeNodePool(at, pool, nodeCount);
    }

    @Override
    public String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        return provider.setNodePoolAutoscaling(at, pool, autoscaling);
    }

    @Override
    public String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints) {
        return provider.updateNodePoolLabelsAndTaints(at, pool, labels, taints);
    }

    @Override
    public String deleteNodePool(ClusterLocator at, String pool) {
        return provider.deleteNodePool(at, pool);
    }
}
