package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.CredentialsCommand;
import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.cluster.UpdateClusterCommand;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.ListNodePoolsQuery;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;

/**
 * A body written as JDK values (maps, lists, strings, numbers) turned into its method's command the way the
 * API does it ({@link ApiBodies} for the methods the console's forms use too). For the tests of what the API
 * makes of a body.
 */
public final class Bodies {
    private Bodies() {}

    public static byte[] json(Object body) {
        return Json.write(body);
    }

    public static CreateClusterCommand createCluster(Object body) {
        return ApiBodies.createCluster(body);
    }

    public static UpdateClusterCommand updateCluster(Object body) {
        return Json.command(json(body), ClusterRequests.UpdateCluster.BODY);
    }

    public static ListClustersQuery listClusters(Object body) {
        return Json.command(json(body), ClusterRequests.ListClusters.BODY);
    }

    public static CredentialsCommand credentials(Object body) {
        return Json.command(json(body), ClusterRequests.Credentials.BODY);
    }

    public static CreateNodePoolCommand createNodePool(Object body) {
        return ApiBodies.createNodePool(body);
    }

    public static UpdateNodePoolCommand updateNodePool(Object body) {
        return ApiBodies.updateNodePool(body);
    }

    public static ListNodePoolsQuery listNodePools(Object body) {
        return Json.command(json(body), NodePoolRequests.ListNodePools.BODY);
    }
}
