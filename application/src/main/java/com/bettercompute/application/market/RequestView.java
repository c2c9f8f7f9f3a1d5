package com.bettercompute.application.market;

import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Money;
import java.time.Instant;
import java.util.List;

/**
 * A request as the API and the in-cluster adapter read it. {@code reason} is the wire form
 * ({@code Pending}, {@code BidTooLow}, {@code Outbid}, …); {@code lockedRate} is null before the first grant.
 */
public record RequestView(String id, String jobId, String clusterId, String pool, int gpus, int nodes, String phase,
                          String reason, String message, int grantedNodes, List<String> nodeIds, Money limit,
                          Money lockedRate, Instant noticeDeadline) {
    static RequestView of(MarketRequest r) {
        return new RequestView(r.id(), r.jobId(), r.clusterId(), r.pool().toString(), r.gpus(), r.nodes(),
                r.phase().name(), r.reason().wire(), r.message(), r.grantedNodes(), r.grantedNodeIds(),
                r.effectiveLimit(), r.lockedRate(), r.noticeDeadline());
    }
}
