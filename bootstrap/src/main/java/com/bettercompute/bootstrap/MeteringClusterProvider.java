package com.bettercompute.bootstrap;

import com.bettercompute.application.port.ClusterChange;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterObservation;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ServerConfig;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A provider whose every call is counted and timed in {@link Metrics} by method and result: {@code ok}, or
 * the kind of the {@link ProviderException} (lower case), or {@code error} for anything else.
 */
final class MeteringClusterProvider implements ClusterProvider {
    private final ClusterProvider provider;
    private final Metrics metrics;

    MeteringClusterProvider(ClusterProvider provider, Metrics metrics) {
        this.provider = provider;
        this.metrics = metrics;
    }

    private <T> T call(String method, Supplier<T> call) {
        long start = System.nanoTime();
        String result = "error";
        try {
            T value = call.get();
            result = "ok";
            return value;
        } catch (ProviderException e) {
            result = e.kind().name().toLowerCase(Locale.ROOT);
            throw e;
        } finally {
            metrics.providerCall(method, result, System.nanoTime() - start);
        }
    }

    @Override
    public ClusterObservation observe(ClusterLocator at) {
        return call("observe", () -> provider.observe(at));
    }

    @Override
    public OperationStatus operation(ClusterLocator at, String name) {
        return call("operation", () -> provider.operation(at, name));
    }

    @Override
    public String createCluster(ClusterSpec spec) {
        return call("createCluster", () -> provider.createCluster(spec));
    }

    @Override
    public String updateCluster(ClusterLocator at, ClusterChange change) {
        return call("updateCluster", () -> provider.updateCluster(at, change));
    }

    @Override
    public String deleteCluster(ClusterLocator at) {
        return call("deleteCluster", () -> provider.deleteCluster(at));
    }

    @Override
    public String createNodePool(ClusterLocator at, NodePoolSpec pool) {
        return call("createNodePool", () -> provider.createNodePool(at, pool));
    }

    @Override
    public String resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        return call("resizeNodePool", () -> provider.resizeNodePool(at, pool, nodeCount));
    }

    @Override
    public String setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        return call("setNodePoolAutoscaling", () -> provider.setNodePoolAutoscaling(at, pool, autoscaling));
    }

    @Override
    public String updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints) {
        return call("updateNodePoolLabelsAndTaints", () -> provider.updateNodePoolLabelsAndTaints(at, pool, labels, taints));
    }

    @Override
    public String deleteNodePool(ClusterLocator at, String pool) {
        return call("deleteNodePool", () -> provider.deleteNodePool(at, pool));
    }

    @Override
    public ServerConfig serverConfig(String project, String location) {
        return call("serverConfig", () -> provider.serverConfig(project, location));
    }

    @Override
    public String platformAccessToken() {
        return call("platformAccessToken", provider::platformAccessToken);
    }
}
