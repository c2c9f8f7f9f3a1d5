package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.TopUpCredits;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.market.LimitPriceWritePolicy;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;

import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * The bodies of the market routes as Jackson binds them, in the spec's snake_case (API.md, "The market
 * API"). Money is a decimal string (at most six decimals), never a JSON number; a pool reads
 * {@code site/nodeClass}. Each record names every bad field.
 */
final class MarketRequests {
    static final Pattern POOL = Pattern.compile("^[a-z0-9][-a-z0-9.]{0,62}/[a-z0-9][-a-z0-9.]{0,62}$");
    static final Pattern NODE = Pattern.compile("^[a-z0-9][-a-z0-9.]{0,252}$");
    static final Pattern CLUSTER_ID = Pattern.compile("^kcl_[a-z0-9]{1,60}$");
    static final int MAX_NOTE = 256;
    /** Plain decimal digits: no sign, no exponent, no spaces. */
    static final Pattern DECIMAL = Pattern.compile("^[0-9]{1,20}(\\.[0-9]{1,20})?$");

    private MarketRequests() {}

    /** The command of {@code PUT /api/k8s/bid}. */
    record Bid(String org, String cluster, Money limit) {}

    record BidBody(@Required String cluster, @Required String limit_price, String org) implements Request<Bid> {
        @Override
        public Bid command(Fields in) {
            String name = in.string("cluster", cluster, true, 40, Patterns.NAME);
            Money limit = money(in, "limit_price", limit_price, true);
            if (limit != null) {
                try {
                    LimitPriceWritePolicy.checkInRange(limit);
                } catch (DomainException e) {
                    in.reject("limit_price", "must be at most " + Money.MAX_PRICE + " USD per GPU-hour");
                }
            }
            String o = in.string("org", org, false, 128, Patterns.TENANT_ID);
            in.finish(this).throwIfInvalid();
            return new Bid(o, name, limit);
        }
    }

    record ReserveBody(@Required String pool, @Required String reserve) implements Request<ChangeReservePrice.Command> {
        @Override
        public ChangeReservePrice.Command command(Fields in) {
            String p = MarketRequests.pool(in, pool);
            Money r = money(in, "reserve", reserve, true);
            if (r != null && r.compareTo(Money.MAX_PRICE) > 0) {
                in.reject("reserve", "must be at most " + Money.MAX_PRICE + " USD per GPU-hour");
            }
            in.finish(this).throwIfInvalid();
            return new ChangeReservePrice.Command(p, r.toString());
        }
    }

    record SupplyBody(@Required String pool, BigInteger add, BigInteger remove) implements Request<ChangeSupply.Command> {
        @Override
        public ChangeSupply.Command command(Fields in) {
            String p = MarketRequests.pool(in, pool);
            Integer a = in.integer("add", add, false, 1, 10_000);
            Integer r = in.integer("remove", remove, false, 1, 10_000);
            if (in.given("add", add) == in.given("remove", remove)) {
                in.reject("add", "give exactly one of add and remove");
            }
            in.finish(this).throwIfInvalid();
            return new ChangeSupply.Command(p, a == null ? 0 : a, r == null ? 0 : r);
        }
    }

    record NodeBody(@Required String node) implements Request<String> {
        @Override
        public String command(Fields in) {
            String n = in.string("node", node, true, 253, NODE);
            in.finish(this).throwIfInvalid();
            return n;
        }
    }

    record CreditsBody(@Required String org, @Required String amount, String note, @Required String idempotency_key)
            implements Request<TopUpCredits.Command> {
        @Override
        public TopUpCredits.Command command(Fields in) {
            String o = in.string("org", org, true, 128, Patterns.TENANT_ID);
            Money a = money(in, "amount", amount, true);
            if (a != null && a.micros() == 0) {
                in.reject("amount", "must be more than 0");
            }
            String n = in.string("note", note, false, MAX_NOTE, null);
            String key = in.string("idempotency_key", idempotency_key, true, 128, Patterns.IDEMPOTENCY_KEY);
            in.finish(this).throwIfInvalid();
            return new TopUpCredits.Command(o, a, n, key);
        }
    }

    record BlockBody(@Required String pool, @Required BigInteger nodes) {}

    record EnrolBody(@Required String cluster_id, BigInteger max_cluster_gpus, Boolean packing, BlockBody block)
            implements Request<EnrolCluster.Command> {
        @Override
        public EnrolCluster.Command command(Fields in) {
            String id = in.string("cluster_id", cluster_id, true, 64, CLUSTER_ID);
            Integer max = in.integer("max_cluster_gpus", max_cluster_gpus, false, 0, 1_000_000);
            Boolean p = in.bool("packing", packing, null);
            EnrolCluster.Block b = null;
            Fields blockFields = in.object("block", block, false);
            if (blockFields != null) {
                String pool = blockFields.string("pool", block.pool(), true, 127, POOL);
                if (pool != null && !validPool(pool)) {
                    blockFields.reject("pool", "must read site/nodeClass, such as us-central1/h100-8x");
                }
                Integer nodes = blockFields.integer("nodes", block.nodes(), true, 0, 10_000);
                blockFields.finish(block);
                b = pool == null || nodes == null ? null : new EnrolCluster.Block(pool, nodes);
            }
            in.finish(this).throwIfInvalid();
            return new EnrolCluster.Command(id, max == null ? null : Long.valueOf(max), p, b);
        }
    }

    /** A required pool id: {@code site/nodeClass}. */
    static String pool(Fields in, String value) {
        String p = in.string("pool", value, true, 127, POOL);
        if (p != null && !validPool(p)) {
            in.reject("pool", "must read site/nodeClass, such as us-central1/h100-8x");
            return null;
        }
        return p;
    }

    private static boolean validPool(String text) {
        try {
            PoolId.parse(text);
            return true;
        } catch (DomainException e) {
            return false;
        }
    }

    /** A decimal string of USD: not negative, at most six decimals; null (and a problem) when it is not. */
    static Money money(Fields in, String field, String value, boolean required) {
        String text = in.string(field, value, required, 40, null);
        if (text == null) {
            return null;
        }
        if (!DECIMAL.matcher(text).matches()) {
            in.reject(field, text.startsWith("-") ? "must not be negative" : "must be a decimal string such as \"2.40\"");
            return null;
        }
        try {
            return Money.parse(text);
        } catch (DomainException e) {
            in.reject(field, moneyProblem(String.valueOf(e.details().get("reason"))));
            return null;
        }
    }

    private static String moneyProblem(String reason) {
        return switch (reason) {
            case "negative" -> "must not be negative";
            case "too-many-decimals" -> "must have at most six decimals";
            case "too-large" -> "is too large";
            default -> "must be a decimal string such as \"2.40\"";
        };
    }
}
