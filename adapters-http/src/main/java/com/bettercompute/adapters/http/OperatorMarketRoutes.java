package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.MarketRequests.CreditsBody;
import com.bettercompute.adapters.http.MarketRequests.EnrolBody;
import com.bettercompute.adapters.http.MarketRequests.NodeBody;
import com.bettercompute.adapters.http.MarketRequests.ReserveBody;
import com.bettercompute.adapters.http.MarketRequests.SupplyBody;
import com.bettercompute.adapters.http.MarketViews.MarketCredit;
import com.bettercompute.adapters.http.MarketViews.MarketEnrolment;
import com.bettercompute.adapters.http.MarketViews.MarketNode;
import com.bettercompute.adapters.http.MarketViews.MarketRemoval;
import com.bettercompute.adapters.http.MarketViews.MarketReserve;
import com.bettercompute.adapters.http.MarketViews.MarketSupply;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeOutOfService;

import java.util.List;

/**
 * The operator's market routes under {@code /api/operator/market/} (API.md, "The market API"), for a
 * principal the catalog marks {@code operator: true}; anyone else is {@code ACCESS_DENIED}. The pool is
 * always in the body or the query (its id holds a {@code /}).
 */
final class OperatorMarketRoutes {
    static final String BASE = "/api/operator/market/";

    private OperatorMarketRoutes() {}

    static void install(Router router, MarketUseCases m) {
        router.put(BASE + "reserve", "Set a pool's reserve price", ReserveBody.BODY, MarketReserve.class, (caller, c) -> {
            MarketCallers.requireOperator(caller);
            m.reserve().change(c);
            return new MarketReserve(c.pool(), c.reserve());
        });
        router.post(BASE + "supply", "Add nodes to a pool or remove them", SupplyBody.BODY, MarketSupply.class, (caller, c) -> {
            MarketCallers.requireOperator(caller);
            return MarketSupply.of(m.supply().change(c));
        });
        router.post(BASE + "nodes/out-of-service", "Health checks took a node out of service", NodeBody.BODY,
                MarketNode.class, (caller, node) -> {
                    MarketCallers.requireOperator(caller);
                    m.outOfService().report(new ReportNodeOutOfService.Command(node));
                    return new MarketNode(node, false);
                });
        router.post(BASE + "nodes/back", "Health checks cleared a node", NodeBody.BODY, MarketNode.class, (caller, node) -> {
            MarketCallers.requireOperator(caller);
            m.back().report(new ReportNodeBack.Command(node));
            return new MarketNode(node, true);
        });
        router.post(BASE + "credits", "Top up an organization's credits, once per idempotency key", CreditsBody.BODY,
                MarketCredit.class, (caller, c) -> {
                    MarketCallers.requireOperator(caller);
                    return MarketCredit.of(m.credits().topUp(c));
                });
        router.put(BASE + "clusters", "Enrol a cluster in the market or change its settings", EnrolBody.BODY,
                MarketEnrolment.class, (caller, c) -> {
                    MarketCallers.requireOperator(caller);
                    return MarketEnrolment.of(m.enrol().enrol(c));
                });
        router.delete(BASE + "clusters", "Take a cluster out of the market",
                List.of(QueryString.Param.required("cluster_id", Wire.CLUSTER_ID, "the cluster's id")), MarketRemoval.class,
                (caller, q) -> {
                    MarketCallers.requireOperator(caller);
                    String id = q.text("cluster_id");
                    m.remove().remove(id);
                    return new MarketRemoval(id, true);
                });
    }
}
