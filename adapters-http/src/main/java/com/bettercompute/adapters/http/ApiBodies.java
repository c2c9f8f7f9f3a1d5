package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.nodepool.CreateNodePoolCommand;
import com.bettercompute.application.nodepool.UpdateNodePoolCommand;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Money;

/**
 * A body written as JDK values (maps, lists, strings, numbers) turned into its method's command exactly as
 * the API does it: written as JSON, bound into the method's request record and checked, so a form of the
 * console refuses what the API refuses with the same field names and problems ({@code INVALID_INPUT}).
 */
public final class ApiBodies {
    private ApiBodies() {}

    public static CreateClusterCommand createCluster(Object body) {
        return Json.command(Json.write(body), ClusterRequests.CreateCluster.BODY);
    }

    public static CreateNodePoolCommand createNodePool(Object body) {
        return Json.command(Json.write(body), NodePoolRequests.CreateNodePool.BODY);
    }

    public static UpdateNodePoolCommand updateNodePool(Object body) {
        return Json.command(Json.write(body), NodePoolRequests.UpdateNodePool.BODY);
    }

    /** The limit price of a {@code PUT /api/k8s/bid} body ({@code cluster}, {@code limit_price}). */
    public static Money limitPrice(Object body) {
        return Json.command(Json.write(body), MarketRequests.BidBody.BODY).limit();
    }

    /** The HTTP status the API answers an error code with: the console answers its pages with the same. */
    public static int status(ErrorCode code) {
        return ErrorMapper.status(code);
    }
}
