package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.util.Map;

/** A pool: one node class at one site. The market clears each pool on its own. */
public record PoolId(String site, String nodeClass) implements Comparable<PoolId> {
    public PoolId {
        if (site == null || site.isBlank() || nodeClass == null || nodeClass.isBlank()
                || site.contains("/") || nodeClass.contains("/")) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a pool is a site and a node class, such as us-east/h100-8x",
                    Map.of("site", String.valueOf(site), "nodeClass", String.valueOf(nodeClass)));
        }
    }

    /** Parses {@code site/nodeClass}. */
    public static PoolId parse(String text) {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a pool reads site/nodeClass, not \"" + text + "\"",
                    Map.of("pool", String.valueOf(text)));
        }
        return new PoolId(text.substring(0, slash), text.substring(slash + 1));
    }

    @Override
    public int compareTo(PoolId o) {
        return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
        return site + "/" + nodeClass;
    }
}
