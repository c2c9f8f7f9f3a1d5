package com.bettercompute.adapters.http;

import com.bettercompute.application.nodepool.CreateNodePool;
import com.bettercompute.application.nodepool.DeleteNodePool;
import com.bettercompute.application.nodepool.GetNodePool;
import com.bettercompute.application.nodepool.ListNodePools;
import com.bettercompute.application.nodepool.UpdateNodePool;

/** The use cases of {@code /api/compute/kubernetesNodePools/}, wired by bootstrap. */
public record NodePoolUseCases(
        CreateNodePool createNodePool,
        ListNodePools listNodePools,
        GetNodePool getNodePool,
        UpdateNodePool updateNodePool,
        DeleteNodePool deleteNodePool) {}
