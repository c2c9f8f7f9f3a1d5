package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketChanges;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketSnapshot.ClusterState;
import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.MarketSnapshot.NodeState;
import com.bettercompute.domain.market.MarketSnapshot.PoolState;
import com.bettercompute.domain.market.MarketSnapshot.RequestState;
import com.bettercompute.domain.market.MarketSnapshot.TenantState;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@link MarketRepository} on the {@code market_*} tables (V30 migration), one row per entity.
 *
 * <p><b>What a save writes.</b> The repository keeps the state of the last save (or load) in memory. A
 * save takes the market's {@link MarketChanges}: everything but the requests is compared entity by entity (by
 * id) with the state its market was loaded from; of the requests (the bulk of a book) only those the market
 * recorded as filed, changed or gone are compared. Only the rows that differ are written (batched), plus the
 * one {@code market_state} row. A request that leaves the market keeps its row as an episode
 * ({@code is_open = FALSE}, when and how it ended).
 *
 * <p><b>Versions and locks.</b> {@code market_state.version} is a fresh random number each save: the save
 * updates that row only where it still holds the version its market was loaded at, else it is refused
 * {@code CONFLICT}. A random version (not a counter) means a cached snapshot matches the database exactly
 * when the numbers match, even after a save whose transaction rolled back. Inside a transaction
 * {@link #load()} reads the row {@code FOR UPDATE}, so writers queue on it until commit.
 *
 * <p><b>Loads.</b> When the database's version is the cached one, nothing but that number is read: a load
 * inside a transaction (a writer, such as the tick) gets the market this repository saved last as it is,
 * if no one holds it; any other load gets one restored from the cached state (its whole snapshot made once
 * per version). Otherwise (another replica saved, or first use) every open row is read once.
 */
public final class JdbiMarketRepository implements MarketRepository {
    private static final String VERSION = "SELECT version FROM market_state WHERE id = 1";
    /** How many saved versions are kept: a load racing a save's commit still finds the one before. */
    private static final int CACHED_VERSIONS = 2;

    private final Db db;
    private final Clock clock;
    /** Moved by every save of this process once committed, and by the other replicas' notifications. */
    private final ChangeSignal saves;
    private final SecureRandom random = new SecureRandom();
    /**
     * Guarded by {@code this}: the state of the newest version seen. Its request map is shared with the state
     * it was saved from and updated in place after each commit, so only this one reads it.
     */
    private Saved latest;
    /** Guarded by {@code this}: whole snapshots of the latest versions restored from, newest last. */
    private final LinkedHashMap<Long, MarketSnapshot> wholes = new LinkedHashMap<>();
    /** Guarded by {@code this}: the market of the newest cached version, while no one holds it. */
    private Market idle;
    private long idleVersion;
    /** Guarded by {@code this}: the version each market handed out was loaded at (identity keys). */
    private final Map<Market, Long> loadedAt = new WeakHashMap<>();
    /** Entity rows the last save wrote (inserted, updated, deleted), besides the market_state row; for tests. */
    private volatile int lastSaveRows;

    /**
     * A saved market: its snapshot without requests and grants, its pools without nodes ({@code rest}), indexed
     * by id, with the orders the rows keep; its nodes, grants (as their rows hold them: a grant's billing cursor
     * is written when its ledger entry opens or closes, and a restored market bills it on to the last tick), open
     * requests (by filing sequence), the grants' orders and each job id's highest attempt among its ended requests
     * (the maximum over its closed rows). Those are the big ones: they are updated in place after each commit
     * ({@link Delta}), never copied per save.
     */
    private record Saved(long version, MarketSnapshot rest, long nextOrd, Map<String, PoolState> pools,
                         Map<String, MarketChanges.PoolNode> nodes, Map<String, TenantState> tenants,
                         Map<String, Long> tenantOrd, Map<String, ClusterState> clusters, Map<String, Long> clusterOrd,
                         Map<Long, RequestState> requests, Map<String, GrantState> grants, Map<String, Long> grantOrd,
                         Map<String, Long> idleOrd, Map<String, Integer> endedAttempts) {

        MarketSnapshot whole() {
            List<RequestState> open = new ArrayList<>(requests.values());
            open.sort(java.util.Comparator.comparingLong(RequestState::sequence));
            Map<com.bettercompute.domain.market.PoolId, List<NodeState>> byPool = new HashMap<>();
            for (MarketChanges.PoolNode n : nodes.values()) {
                byPool.computeIfAbsent(n.pool(), p -> new ArrayList<>()).add(n.node());
            }
            List<PoolState> poolList = new ArrayList<>();
            for (PoolState p : rest.pools()) {
                List<NodeState> inPool = byPool.getOrDefault(p.id(), new ArrayList<>());
                inPool.sort(java.util.Comparator.comparing(NodeState::id));
                poolList.add(new PoolState(p.id(), p.gpusPerNode(), p.reserve(), p.lastPrice(), List.copyOf(inPool),
                        p.reclaimingIds(), p.drainingIds()));
            }
            List<GrantState> grantList = new ArrayList<>(grants.values());
            grantList.sort(java.util.Comparator.comparingLong(g -> grantOrd.get(g.id())));
            return new MarketSnapshot(rest.timings(), rest.lastTick(), rest.sequence(), rest.grantSequence(),
                    List.copyOf(poolList), rest.tenants(), rest.clusters(), List.copyOf(open), List.copyOf(grantList),
                    rest.idleOrder(), rest.betweenTicks(), endedAttempts);
        }
    }

    /**
     * What a save changes in the saved state's big maps, applied once its transaction commits (a save that
     * fails leaves the state as the database still holds it).
     */
    private record Delta(Map<String, GrantState> grants, Map<String, Long> grantOrd) {

        void applyTo(Saved saved, MarketChanges changes) {
            for (MarketChanges.Gone gone : changes.gone()) {
                saved.requests().remove(gone.sequence());
                saved.endedAttempts().merge(gone.last().jobId(), gone.last().attempt(), Math::max);
            }
            for (RequestState r : changes.requests()) {
                saved.requests().put(r.sequence(), r);
            }
            changes.nodesGone().forEach(saved.nodes()::remove);
            for (MarketChanges.PoolNode n : changes.nodes()) {
                saved.nodes().put(n.node().id(), n);
            }
            for (String id : changes.grantsGone()) {
                saved.grants().remove(id);
                saved.grantOrd().remove(id);
            }
            saved.grants().putAll(grants);
            saved.grantOrd().putAll(grantOrd);
        }
    }

    /** A save's written state: the saved state it moves to once committed, and the change to get there. */
    private record Written(Saved saved, Delta delta) {
    }

    JdbiMarketRepository(Jdbi jdbi, Clock clock, ChangeSignal saves) {
        this.db = new Db(jdbi);
        this.clock = Objects.requireNonNull(clock);
        this.saves = Objects.requireNonNull(saves);
    }

    /**
     * The {@link ChangeSignal}'s number while it can be trusted (no query: the validating webhook asks on every
     * review), else the saved version read from the database.
     */
    @Override
    public long version() {
        long epoch = saves.current();
        if (epoch != ChangeSignal.UNTRUSTED) {
            return epoch;
        }
        return db.call("reading the market's version", h -> h.createQuery(VERSION).mapTo(Long.class).findOne().orElse(0L));
    }

    @Override
    public Market load() {
        return db.call("loading the market", h -> {
            boolean writer = h.isInTransaction();
            long version = h.createQuery(writer ? VERSION + " FOR UPDATE" : VERSION).mapTo(Long.class).one();
            Market market;
            synchronized (this) {
                // only a writer gets the saved market itself: it saves it back, so the next tick gets it too
                if (writer && idle != null && idleVersion == version) {
                    market = idle;
                    idle = null;
                    loadedAt.put(market, version);
                    return market;
                }
            }
            MarketSnapshot whole = whole(version);
            long at = version;
            if (whole == null) {
                Saved saved = writer ? readAll(h, version) : readAll(h);
                at = saved.version();
                synchronized (this) {
                    // a reader's rows may be older than a save that finished meanwhile: it never replaces one
                    if (writer || latest == null) {
                        latest = saved;
                    }
                    whole = saved.whole();
                    rememberWhole(at, whole);
                }
            }
            market = Market.restore(whole);
            synchronized (this) {
                loadedAt.put(market, at);
            }
            return market;
        });
    }

    /** The whole snapshot of {@code version} if this repository knows it, made from the latest state once. */
    private synchronized MarketSnapshot whole(long version) {
        MarketSnapshot whole = wholes.get(version);
        if (whole == null && latest != null && latest.version() == version) {
            whole = latest.whole();
            rememberWhole(version, whole);
        }
        return whole;
    }

    private void rememberWhole(long version, MarketSnapshot whole) {
        wholes.remove(version);
        wholes.put(version, whole);
        while (wholes.size() > CACHED_VERSIONS) {
            wholes.remove(wholes.keySet().iterator().next());
        }
    }

    private synchronized Saved latest(long version) {
        return latest != null && latest.version() == version ? latest : null;
    }

    @Override
    public void save(Market market) {
        Long loaded;
        synchronized (this) {
            loaded = loadedAt.get(market);
        }
        if (loaded == null) {
            throw new DomainException(ErrorCode.INVALID_STATE, "a market is saved by the repository it was loaded from");
        }
        MarketChanges changes = market.changes();
        Instant now = clock.instant();
        long version = newVersion(loaded);
        Written written = db.inTransaction("saving the market", h -> {
            // first: it takes the row's lock, and a save committed since the load makes it match nothing
            if (h.createUpdate("UPDATE market_state SET version = :version WHERE id = 1 AND version = :loaded")
                    .bind("version", version).bind("loaded", loaded.longValue()).execute() != 1) {
                throw new DomainException(ErrorCode.CONFLICT, "the market changed meanwhile; load it again and retry");
            }
            // once the outermost transaction has committed, not before: a reader must not keep what it reads
            // before the commit under the number that follows it (other replicas hear of it from the
            // market_state row's trigger, V52)
            h.afterCommit(saves::committed);
            Saved before = latest(loaded);
            return write(h, before != null ? before : readAll(h, loaded), changes, version, now);
        });
        synchronized (this) {
            // committed: the big maps move on to the new version (the old one is no longer the latest)
            written.delta().applyTo(written.saved(), changes);
            latest = written.saved();
            idle = market;
            idleVersion = version;
            loadedAt.put(market, version);
        }
        market.clearChanges();
    }

    private long newVersion(long loaded) {
        long v;
        do {
            v = random.nextLong() & Long.MAX_VALUE;
        } while (v == 0 || v == loaded);
        return v;
    }

    int lastSaveRows() {
        return lastSaveRows;
    }

    @Override
    public List<Episode> episodes(String clusterId) {
        return db.call("reading a cluster's market requests", h -> h.createQuery(
                        "SELECT id, job_id, attempt, cluster_id, pool_id, created_at, running_at, ended_at, end_kind"
                                + " FROM market_requests WHERE cluster_id = :cluster_id ORDER BY request_seq")
                .bind("cluster_id", clusterId)
                .map((rs, ctx) -> new Episode(rs.getString("id"), rs.getString("job_id"), rs.getInt("attempt"),
                        rs.getString("cluster_id"), rs.getString("pool_id"), Times.instant(rs, "created_at"),
                        Times.instant(rs, "running_at"), Times.instant(rs, "ended_at"), rs.getString("end_kind")))
                .list());
    }

    @Override
    public List<Closed> closed(String clusterId, int limit) {
        return db.call("reading a cluster's ended market requests", h -> h.createQuery(
                        "SELECT * FROM market_requests WHERE cluster_id = :cluster_id AND is_open = FALSE"
                                + " ORDER BY ended_at DESC, request_seq DESC LIMIT :limit")
                .bind("cluster_id", clusterId).bind("limit", limit)
                .map((rs, ctx) -> new Closed(MarketRows.request(rs), Times.instant(rs, "ended_at"),
                        rs.getString("end_kind")))
                .list());
    }

    // ---------------------------------------------------------------- the diff

    /**
     * Writes what differs between {@code before} (as the database holds it) and {@code next}: deletes, then
     * updates, then inserts, each table in one batch. The version is written by the caller.
     */
    private Written write(Handle h, Saved before, MarketChanges changes, long version, Instant now) {
        MarketSnapshot next = changes.rest();
        long[] ord = {before.nextOrd()};
        Map<String, PoolState> pools = new HashMap<>();
        Rows poolRows = new Rows(h, "market_pools", MarketRows.POOL);
        Rows nodeRows = new Rows(h, "market_nodes", MarketRows.NODE);
        for (PoolState p : next.pools()) {
            String id = p.id().toString();
            pools.put(id, p);
            poolRows.write(before.pools().get(id), p, s -> MarketRows.bindPool(s, p));
        }
        poolRows.deleteGone(before.pools().keySet(), pools.keySet());
        for (MarketChanges.PoolNode n : changes.nodes()) {
            nodeRows.write(before.nodes().get(n.node().id()), n, s -> MarketRows.bindNode(s, n.pool(), n.node()));
        }
        for (String id : changes.nodesGone()) {
            if (before.nodes().containsKey(id)) {
                nodeRows.delete(id);
            }
        }

        Map<String, TenantState> tenants = new HashMap<>();
        Map<String, Long> tenantOrd = new HashMap<>();
        Rows tenantRows = new Rows(h, "market_tenants", MarketRows.TENANT);
        for (TenantState t : next.tenants()) {
            long o = before.tenantOrd().getOrDefault(t.id(), -1L);
            long kept = o >= 0 ? o : ord[0]++;
            tenants.put(t.id(), t);
            tenantOrd.put(t.id(), kept);
            tenantRows.write(before.tenants().get(t.id()), t, s -> MarketRows.bindTenant(s, t, kept));
        }
        tenantRows.deleteGone(before.tenants().keySet(), tenants.keySet());

        Map<String, ClusterState> clusters = new HashMap<>();
        Map<String, Long> clusterOrd = new HashMap<>();
        Rows clusterRows = new Rows(h, "market_clusters", MarketRows.CLUSTER);
        for (ClusterState c : next.clusters()) {
            long o = before.clusterOrd().getOrDefault(c.id(), -1L);
            long kept = o >= 0 ? o : ord[0]++;
            clusters.put(c.id(), c);
            clusterOrd.put(c.id(), kept);
            clusterRows.write(before.clusters().get(c.id()), c, s -> MarketRows.bindCluster(s, c, kept));
        }
        clusterRows.deleteGone(before.clusters().keySet(), clusters.keySet());

        GrantWrites grants = new GrantWrites(h, before, changes, idleOrder(before, next, ord), ord);
        int requestRows = writeRequests(h, before, changes, now);

        MarketRows.bindState(h.createUpdate("UPDATE market_state SET " + Db.assignments(MarketRows.STATE)
                + " WHERE id = 1"), next, ord[0]).execute();
        int written = requestRows;
        for (Rows rows : List.of(poolRows, nodeRows, tenantRows, clusterRows, grants.rows)) {
            written += rows.flush();
        }
        lastSaveRows = written;
        // the big maps are shared with before's and move on once the transaction commits
        return new Written(new Saved(version, next, ord[0], pools, before.nodes(), tenants, tenantOrd, clusters,
                clusterOrd, before.requests(), before.grants(), before.grantOrd(), grants.idleOrd,
                before.endedAttempts()), grants.delta);
    }

    /**
     * The grant rows of a save: the grants the market made or changed, those whose billing cursor it recorded
     * (their ledger entry opened or closed: about once an hour each, not every tick), and those whose place in
     * the idle order moved.
     */
    private static final class GrantWrites {
        final Rows rows;
        final Map<String, Long> idleOrd;
        final Delta delta = new Delta(new HashMap<>(), new HashMap<>());
        private final Saved before;
        private final long[] ord;

        GrantWrites(Handle h, Saved before, MarketChanges changes, Map<String, Long> idleOrd, long[] ord) {
            this.rows = new Rows(h, "market_grants", MarketRows.GRANT);
            this.idleOrd = idleOrd;
            this.before = before;
            this.ord = ord;
            Set<String> gone = new HashSet<>(changes.grantsGone());
            // a grant whose idle place changed is written whole, whether or not the market changed it
            Set<String> idleMoved = new HashSet<>();
            for (Map.Entry<String, Long> e : idleOrd.entrySet()) {
                if (before.grants().containsKey(e.getKey()) && !e.getValue().equals(before.idleOrd().get(e.getKey()))) {
                    idleMoved.add(e.getKey());
                }
            }
            for (String id : before.idleOrd().keySet()) {
                if (!idleOrd.containsKey(id) && !gone.contains(id) && before.grants().containsKey(id)) {
                    idleMoved.add(id);
                }
            }
            for (GrantState g : changes.grants()) {
                write(g, idleMoved.remove(g.id()));
            }
            for (GrantState g : changes.billed()) {
                write(g, idleMoved.remove(g.id()));
            }
            for (String id : idleMoved) {
                write(before.grants().get(id), true);
            }
            for (String id : gone) {
                if (before.grants().containsKey(id)) {
                    rows.delete(id);
                }
            }
        }

        private void write(GrantState g, boolean idleMoved) {
            GrantState old = before.grants().get(g.id());
            Long o = before.grantOrd().get(g.id());
            long kept = o != null ? o : ord[0]++;
            if (o == null) {
                delta.grantOrd().put(g.id(), kept);
            }
            delta.grants().put(g.id(), g);
            Long idleAt = idleOrd.get(g.id());
            rows.write(old, idleMoved ? null : old, g, s -> MarketRows.bindGrant(s, g, kept, idleAt));
        }
    }

    /**
     * The requests the market recorded, by filing sequence (the key of the rows since the first schema; request ids
     * are unique too, a job filed again going on at its next attempt): a new one is inserted; a changed one updated, and marked running when
     * first provisioned; one gone is closed as an episode at the instant the market ended it, {@code revoked} when its
     * job goes on as a later attempt. A request filed and gone between two saves is inserted closed: every request ever filed has its
     * row, which is where a load finds the attempts a job id has had. Returns the rows written.
     */
    private static int writeRequests(Handle h, Saved before, MarketChanges changes, Instant now) {
        List<String> set = MarketRows.REQUEST.subList(1, MarketRows.REQUEST.size());
        PreparedBatch insert = h.prepareBatch("INSERT INTO market_requests (" + String.join(", ", MarketRows.REQUEST)
                + ", is_open, running_at) VALUES (" + MarketRows.REQUEST.stream().map(c -> ":" + c)
                .collect(Collectors.joining(", ")) + ", TRUE, :running_at)");
        PreparedBatch update = h.prepareBatch("UPDATE market_requests SET " + Db.assignments(set)
                + ", running_at = COALESCE(running_at, :running_at) WHERE request_seq = :request_seq");
        for (RequestState r : changes.requests()) {
            RequestState old = before.requests().get(r.sequence());
            if (old == null || !old.equals(r)) {
                PreparedBatch batch = old == null ? insert : update;
                MarketRows.bindRequest(batch, r).bindByType("running_at", r.provisioned() ? now : null, Instant.class)
                        .add();
            }
        }
        // the row keeps the request's state as it left, for the requests route's ended and revoked items
        PreparedBatch close = h.prepareBatch("UPDATE market_requests SET " + Db.assignments(set)
                + ", is_open = FALSE, ended_at = :ended_at, end_kind = :end_kind WHERE request_seq = :request_seq");
        PreparedBatch insertClosed = h.prepareBatch("INSERT INTO market_requests (" + String.join(", ", MarketRows.REQUEST)
                + ", is_open, ended_at, end_kind) VALUES (" + MarketRows.REQUEST.stream().map(c -> ":" + c)
                .collect(Collectors.joining(", ")) + ", FALSE, :ended_at, :end_kind)");
        for (MarketChanges.Gone gone : changes.gone()) {
            PreparedBatch batch = before.requests().containsKey(gone.sequence()) ? close : insertClosed;
            MarketRows.bindRequest(batch, gone.last()).bindByType("ended_at", gone.endedAt(), Instant.class)
                    .bind("end_kind", gone.revoked() ? Episode.REVOKED : Episode.ENDED).add();
        }
        int written = 0;
        for (PreparedBatch b : List.of(close, update, insert, insertClosed)) {
            written += b.size();
            if (b.size() > 0) {
                b.execute();
            }
        }
        return written;
    }

    /**
     * Each idle grant's place in the idle order. The market only appends to that order and removes from it,
     * so grants that stay keep their numbers and newcomers get new, higher ones; a grant seen out of order
     * (it left and came back in one save) is numbered anew too.
     */
    private static Map<String, Long> idleOrder(Saved before, MarketSnapshot next, long[] ord) {
        Map<String, Long> idle = new HashMap<>();
        long last = -1;
        for (String id : next.idleOrder()) {
            Long o = before.idleOrd().get(id);
            long kept = o != null && o > last ? o : ord[0]++;
            idle.put(id, kept);
            last = kept;
        }
        return idle;
    }

    /** One table's writes of a save, batched: rows by their {@code id} column. */
    private static final class Rows {
        private final PreparedBatch insert;
        private final PreparedBatch update;
        private final PreparedBatch delete;

        Rows(Handle h, String table, List<String> columns) {
            this.insert = h.prepareBatch(Db.insertSql(table, columns));
            this.update = h.prepareBatch("UPDATE " + table + " SET " + Db.assignments(columns.subList(1, columns.size()))
                    + " WHERE id = :id");
            this.delete = h.prepareBatch("DELETE FROM " + table + " WHERE id = :id");
        }

        <T> void write(T before, T after, Function<PreparedBatch, PreparedBatch> bind) {
            write(before, before, after, bind);
        }

        /** {@code compared} is what {@code after} is compared with (null: write it anyway). */
        <T> void write(T before, T compared, T after, Function<PreparedBatch, PreparedBatch> bind) {
            if (before == null) {
                bind.apply(insert).add();
            } else if (compared == null || !compared.equals(after)) {
                bind.apply(update).add();
            }
        }

        void deleteGone(java.util.Set<String> before, java.util.Set<String> after) {
            for (String id : before) {
                if (!after.contains(id)) {
                    delete(id);
                }
            }
        }

        void delete(String id) {
            delete.bind("id", id).add();
        }

        int flush() {
            int rows = 0;
            for (PreparedBatch b : List.of(delete, update, insert)) {
                rows += b.size();
                if (b.size() > 0) {
                    b.execute();
                }
            }
            return rows;
        }
    }

    // ---------------------------------------------------------------- reading everything

    /**
     * Every open row, as the snapshot they make, with the orders the rows keep. Outside a transaction the
     * rows are read by several statements while another replica may save: the version is read before and
     * after, and the reading starts again until they agree.
     */
    private static Saved readAll(Handle h) {
        while (true) {
            long version = h.createQuery(VERSION).mapTo(Long.class).one();
            Saved saved = readAll(h, version);
            if (h.createQuery(VERSION).mapTo(Long.class).one() == version) {
                return saved;
            }
        }
    }

    /** {@link #readAll(Handle)} as of {@code version} (the caller makes sure no save commits meanwhile). */
    private static Saved readAll(Handle h, long version) {
        if (version == 0) {
            MarketSnapshot empty = new Market().snapshot();
            return new Saved(0, empty, 0, Map.of(), new HashMap<>(), Map.of(), Map.of(), Map.of(), Map.of(),
                    new HashMap<>(), new HashMap<>(), new HashMap<>(), Map.of(), new HashMap<>());
        }
        Map<String, PoolState> pools = new HashMap<>();
        List<PoolState> poolList = h.createQuery("SELECT * FROM market_pools ORDER BY id").map((rs, ctx) -> {
            PoolState p = MarketRows.pool(rs, List.of());
            pools.put(p.id().toString(), p);
            return p;
        }).list();
        Map<String, com.bettercompute.domain.market.PoolId> poolIds = new HashMap<>();
        pools.forEach((id, p) -> poolIds.put(id, p.id()));
        Map<String, MarketChanges.PoolNode> nodes = new HashMap<>();
        h.createQuery("SELECT * FROM market_nodes").map((rs, ctx) -> {
            NodeState n = MarketRows.node(rs);
            nodes.put(n.id(), new MarketChanges.PoolNode(poolIds.get(rs.getString("pool_id")), n));
            return n;
        }).list();
        Map<String, TenantState> tenants = new HashMap<>();
        Map<String, Long> tenantOrd = new HashMap<>();
        List<TenantState> tenantList = h.createQuery("SELECT * FROM market_tenants ORDER BY ord").map((rs, ctx) -> {
            TenantState t = MarketRows.tenant(rs);
            tenants.put(t.id(), t);
            tenantOrd.put(t.id(), rs.getLong("ord"));
            return t;
        }).list();
        Map<String, ClusterState> clusters = new HashMap<>();
        Map<String, Long> clusterOrd = new HashMap<>();
        List<ClusterState> clusterList = h.createQuery("SELECT * FROM market_clusters ORDER BY ord").map((rs, ctx) -> {
            ClusterState c = MarketRows.cluster(rs);
            clusters.put(c.id(), c);
            clusterOrd.put(c.id(), rs.getLong("ord"));
            return c;
        }).list();
        Map<Long, RequestState> requests = new HashMap<>();
        h.createQuery("SELECT * FROM market_requests WHERE is_open = TRUE").map((rs, ctx) -> {
            RequestState r = MarketRows.request(rs);
            requests.put(r.sequence(), r);
            return r;
        }).list();
        Map<String, GrantState> grants = new HashMap<>();
        Map<String, Long> grantOrd = new HashMap<>();
        Map<String, Long> idleOrd = new HashMap<>();
        h.createQuery("SELECT * FROM market_grants").map((rs, ctx) -> {
            GrantState g = MarketRows.grant(rs);
            grants.put(g.id(), g);
            grantOrd.put(g.id(), rs.getLong("ord"));
            long idleAt = rs.getLong("idle_ord");
            if (!rs.wasNull()) {
                idleOrd.put(g.id(), idleAt);
            }
            return g;
        }).list();
        // every request ever filed has its row, so the highest attempt of its job id is there after it ends
        Map<String, Integer> endedAttempts = new HashMap<>();
        h.createQuery("SELECT job_id, MAX(attempt) AS attempt FROM market_requests WHERE is_open = FALSE"
                + " GROUP BY job_id").map((rs, ctx) -> endedAttempts.put(rs.getString("job_id"), rs.getInt("attempt")))
                .list();
        List<String> idleOrder = idleOrd.entrySet().stream().sorted(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey).toList();
        long[] nextOrd = new long[1];
        MarketSnapshot snapshot = h.createQuery("SELECT * FROM market_state WHERE id = 1").map((rs, ctx) -> {
            nextOrd[0] = rs.getLong("next_ord");
            return new MarketSnapshot(MarketRows.timings(rs), Times.instant(rs, "last_tick"),
                    rs.getLong("request_sequence"), rs.getLong("grant_sequence"), List.copyOf(poolList),
                    List.copyOf(tenantList), List.copyOf(clusterList), List.of(), List.of(), idleOrder,
                    MarketRows.events(rs.getString("between_ticks_json")), Map.of());
        }).one();
        return new Saved(version, snapshot, nextOrd[0], pools, nodes, tenants, tenantOrd, clusters, clusterOrd, requests,
                grants, grantOrd, idleOrd, endedAttempts);
    }
}
