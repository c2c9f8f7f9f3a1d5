package com.bettercompute.bootstrap;

import com.bettercompute.application.provider.Autoscaling;
import com.bettercompute.application.provider.ClusterChange;
import com.bettercompute.application.provider.ClusterLocator;
import com.bettercompute.application.provider.ClusterObservation;
import com.bettercompute.application.provider.ClusterProvider;
import com.bettercompute.application.provider.ClusterSpec;
import com.bettercompute.application.provider.NodePoolSpec;
import com.bettercompute.application.provider.ProviderException;
import com.bettercompute.application.provider.ServerConfig;
import com.bettercompute.application.provider.Taint;

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

    private void run(String method, Runnable call) {
        call(method, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public ClusterObservation observe(ClusterLocator at) {
        return call("observe", () -> provider.observe(at));
    }

    @Override
    public void createCluster(ClusterSpec spec) {
        run("createCluster", () -> provider.createCluster(spec));
    }

    @Override
    public void updateCluster(ClusterLocator at, ClusterChange change) {
        run("updateCluster", () -> provider.updateCluster(at, change));
    }

    @Override
    public void deleteCluster(ClusterLocator at) {
        run("deleteCluster", () -> provider.deleteCluster(at));
    }

    @Override
    public void createNodePool(ClusterLocator at, NodePoolSpec pool) {
        run("createNodePool", () -> provider.createNodePool(at, pool));
    }

    @Override
    public void resizeNodePool(ClusterLocator at, String pool, int nodeCount) {
        run("resizeNodePool", () -> provider.resizeNodePool(at, pool, nodeCount));
    }

    @Override
    public void setNodePoolAutoscaling(ClusterLocator at, String pool, Autoscaling autoscaling) {
        run("setNodePoolAutoscaling", () -> provider.setNodePoolAutoscaling(at, pool, autoscaling));
    }

    @Override
    public void updateNodePoolLabelsAndTaints(ClusterLocator at, String pool, Map<String, String> labels, List<Taint> taints) {
        run("updateNodePoolLabelsAndTaints", () -> provider.updateNodePoolLabelsAndTaints(at, pool, labels, taints));
    }

    @Override
    public void deleteNodePool(ClusterLocator at, String pool) {
        run("deleteNodePool", () -> provider.deleteNodePool(at, pool));
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
