package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;
import java.util.Objects;

/** A pool's terms: how many GPUs one node carries and the reserve price the operator set. */
public record Pool(PoolId id, int gpusPerNode, Money reserve) {
    public Pool {
        Objects.requireNonNull(id);
        Objects.requireNonNull(reserve);
        if (gpusPerNode < 1) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a node carries at least one GPU",
                    Map.of("pool", id.toString(), "gpusPerNode", gpusPerNode));
        }
    }

    public Pool withReserve(Money newReserve) {
        return new Pool(id, gpusPerNode, newReserve);
    }
}
