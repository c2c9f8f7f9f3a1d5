package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;
import java.util.Objects;

/**
 * A job's ask, as Kueue files it: a gang of {@code gpus} GPUs of one pool in one cluster, its own
 * limit price ({@code null}: the cluster's) and its priority class.
 */
public record JobDemand(String jobId, String clusterId, PoolId pool, int gpus, Money jobLimit,
                        PriorityClass priority) {
    public JobDemand {
        Objects.requireNonNull(pool);
        if (jobId == null || jobId.isBlank() || clusterId == null || clusterId.isBlank()) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a job and a cluster are required",
                    Map.of("jobId", String.valueOf(jobId), "clusterId", String.valueOf(clusterId)));
        }
        if (gpus < 1) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a market job requests at least one GPU",
                    Map.of("jobId", jobId, "gpus", gpus));
        }
        LimitPriceWritePolicy.checkInRange(jobLimit);
        priority = priority == null ? PriorityClass.NONE : priority;
    }
}
