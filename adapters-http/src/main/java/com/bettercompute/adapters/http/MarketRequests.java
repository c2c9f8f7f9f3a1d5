package com.bettercompute.adapters.http;

import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.TopUpCredits;
import com.bettercompute.adapters.http.Request.Body;
import com.bettercompute.adapters.http.Schema.Flag;
import com.bettercompute.adapters.http.Schema.Obj;
import com.bettercompute.adapters.http.Schema.Whole;
import com.bettercompute.domain.market.Money;

/**
 * The bodies of the market routes, in the spec's snake_case (API.md, "The market API"). Money is a decimal
 * string (at most six decimals), never a JSON number; a pool reads {@code site/nodeClass}.
 */
final class MarketRequests {
    private MarketRequests() {}

    /** The command of {@code PUT /api/k8s/bid}. */
    record Bid(String org, String cluster, Money limit) {}

    record BidBody(String cluster, String limit_price, String org) implements Request<Bid> {
        static final Body<BidBody> BODY = new Body<>(BidBody.class, Obj.named("BidBody")
                .required("cluster", Wire.NAME)
                .required("limit_price", Wire.PRICE)
                .optional("org", Wire.TENANT_ID)
                .build());

        @Override
        public Bid command(Given given) {
            return new Bid(org, cluster, Money.parse(limit_price));
        }
    }

    record ReserveBody(String pool, String reserve) implements Request<ChangeReservePrice.Command> {
        static final Body<ReserveBody> BODY = new Body<>(ReserveBody.class, Obj.named("ReserveBody")
                .required("pool", Wire.POOL)
                .required("reserve", Wire.PRICE)
                .build());

        @Override
        public ChangeReservePrice.Command command(Given given) {
            return new ChangeReservePrice.Command(pool, Money.parse(reserve).toString());
        }
    }

    record SupplyBody(String pool, Integer add, Integer remove) implements Request<ChangeSupply.Command> {
        static final Body<SupplyBody> BODY = new Body<>(SupplyBody.class, Obj.named("SupplyBody")
                .required("pool", Wire.POOL)
                .optional("add", new Whole(1, 10_000, null))
                .optional("remove", new Whole(1, 10_000, null))
                .exactlyOneOf("add", "remove")
                .build());

        @Override
        public ChangeSupply.Command command(Given given) {
            return new ChangeSupply.Command(pool, add == null ? 0 : add, remove == null ? 0 : remove);
        }
    }

    record NodeBody(String node) implements Request<String> {
        static final Body<NodeBody> BODY = new Body<>(NodeBody.class, Obj.named("NodeBody").required("node", Wire.NODE).build());

        @Override
        public String command(Given given) {
            return node;
        }
    }

    record CreditsBody(String org, String amount, String note, String idempotency_key) implements Request<TopUpCredits.Command> {
        static final Body<CreditsBody> BODY = new Body<>(CreditsBody.class, Obj.named("CreditsBody")
                .required("org", Wire.TENANT_ID)
                .required("amount", Wire.CREDIT)
                .optional("note", Wire.NOTE)
                .required("idempotency_key", Wire.IDEMPOTENCY_KEY)
                .build());

        @Override
        public TopUpCredits.Command command(Given given) {
            return new TopUpCredits.Command(org, Money.parse(amount), note, idempotency_key);
        }
    }

    record BlockBody(String pool, Integer nodes) {}

    static final Obj BLOCK = Obj.named("BlockBody")
            .required("pool", Wire.POOL)
            .required("nodes", new Whole(0, 10_000, null))
            .build();

    record EnrolBody(String cluster_id, Integer max_cluster_gpus, Boolean packing, BlockBody block)
            implements Request<EnrolCluster.Command> {
        static final Body<EnrolBody> BODY = new Body<>(EnrolBody.class, Obj.named("EnrolBody")
                .required("cluster_id", Wire.CLUSTER_ID)
                .optional("max_cluster_gpus", new Whole(0, 1_000_000, null))
                .optional("packing", new Flag(null))
                .optional("block", BLOCK)
                .build());

        @Override
        public EnrolCluster.Command command(Given given) {
            return new EnrolCluster.Command(cluster_id, max_cluster_gpus == null ? null : Long.valueOf(max_cluster_gpus), packing,
                    block == null ? null : new EnrolCluster.Block(block.pool(), block.nodes()));
        }
    }
}
