package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@link MarketFeed} on {@code market_feed}, whose identity column is the sequence: it continues across
 * restarts, and a rolled-back tick leaves a gap, never an entry. One tick appends at most one entry per
 * pool; the tick runs under the market's row lock, so entries commit in sequence order.
 */
public final class JdbiMarketFeed implements MarketFeed {
    private static final String COLUMNS = "seq, tick_at, pool_id, price_micros, reserve_micros, supply, free_nodes,"
            + " demand, waiting, granted";

    private final Db db;

    public JdbiMarketFeed(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public void append(List<PoolTick> ticks) {
        if (ticks.isEmpty()) {
            return;
        }
        db.inTransactionRun("appending to the market feed", h -> {
            PreparedBatch replace = h.prepareBatch("UPDATE market_feed SET price_micros = :price_micros,"
                    + " reserve_micros = :reserve_micros, supply = :supply, free_nodes = :free_nodes, demand = :demand,"
                    + " waiting = :waiting, granted = :granted WHERE pool_id = :pool_id AND tick_at = :tick_at");
            for (PoolTick t : ticks) {
                bind(replace, t).add();
            }
            int[] replaced = replace.execute();
            PreparedBatch insert = h.prepareBatch("INSERT INTO market_feed (tick_at, pool_id, price_micros,"
                    + " reserve_micros, supply, free_nodes, demand, waiting, granted) VALUES (:tick_at, :pool_id,"
                    + " :price_micros, :reserve_micros, :supply, :free_nodes, :demand, :waiting, :granted)");
            for (int i = 0; i < ticks.size(); i++) {
                if (replaced[i] == 0) {
                    bind(insert, ticks.get(i)).add();
                }
            }
            if (insert.size() > 0) {
                insert.execute();
            }
        });
    }

    private static PreparedBatch bind(PreparedBatch b, PoolTick t) {
        return b.bindByType("tick_at", t.at(), Instant.class).bind("pool_id", t.pool().toString())
                .bindByType("price_micros", MarketRows.micros(t.price()), Long.class)
                .bind("reserve_micros", t.reserve().micros()).bind("supply", t.supply()).bind("free_nodes", t.free())
                .bind("demand", t.demand()).bind("waiting", t.waiting()).bind("granted", t.granted());
    }

    @Override
    public List<Entry> after(long after, PoolId pool, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        String sql = "SELECT " + COLUMNS + " FROM market_feed WHERE seq > :after"
                + (pool == null ? "" : " AND pool_id = :pool_id") + " ORDER BY seq LIMIT :limit";
        return db.call("reading the market feed", h -> {
            var q = h.createQuery(sql).bind("after", after).bind("limit", limit);
            if (pool != null) {
                q.bind("pool_id", pool.toString());
            }
            return q.map((rs, ctx) -> new Entry(rs.getLong("seq"), tick(rs))).list();
        });
    }

    @Override
    public List<PoolTick> latest(PoolId pool, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        List<PoolTick> newestFirst = db.call("reading the market feed", h -> h.createQuery("SELECT " + COLUMNS
                        + " FROM market_feed WHERE pool_id = :pool_id ORDER BY tick_at DESC LIMIT :limit")
                .bind("pool_id", pool.toString()).bind("limit", limit).map((rs, ctx) -> tick(rs)).list());
        List<PoolTick> out = new ArrayList<>(newestFirst);
        Collections.reverse(out);
        return out;
    }

    private static PoolTick tick(ResultSet rs) throws SQLException {
        return new PoolTick(Times.instant(rs, "tick_at"), PoolId.parse(rs.getString("pool_id")),
                MarketRows.money(rs, "price_micros"), Money.ofMicros(rs.getLong("reserve_micros")), rs.getInt("supply"),
                rs.getInt("free_nodes"), rs.getInt("demand"), rs.getInt("waiting"), rs.getInt("granted"));
    }
}
