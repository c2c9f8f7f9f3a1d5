package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Accelerators;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.cache.JdbiCache;
import org.jdbi.v3.core.cache.JdbiCacheBuilder;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@link ClusterRepository} on the {@code clusters} and {@code node_pools} tables. Enums are stored in
 * their wire form ({@code pending}, {@code standard}); the column {@code active_name} carries the name
 * while the cluster is not deleted and NULL after, so {@code UNIQUE (tenant_id, active_name)} is the
 * database's own guard of name uniqueness.
 *
 * <p>{@link #find} answers from memory while nothing was written to clusters since it read the cluster
 * (docs/decisions/persistence-caches.md): every write here moves a {@link ChangeSignal} once its
 * transaction commits, and on PostgreSQL the tables' trigger (V51) notifies the other replicas at the commit.
 * A read inside a transaction, or while the signal cannot be trusted, goes to the database.
 */
public final class JdbiClusterRepository implements ClusterRepository {
    /** The clusters table's columns, in the order of {@link #clusterValues}. */
    private static final List<String> CLUSTER_COLUMNS = List.of(
            "id", "tenant_id", "project_id", "pool_id", "provider_account_id", "name", "active_name", "description",
            "mode", "location", "region", "location_type", "release_channel", "requested_version", "kubernetes_version",
            "node_version", "endpoint", "authorized_networks_json", "private_nodes", "network_id", "subnet_name", "state",
            "message", "provider_name", "owner_id", "request_fingerprint", "version", "created_at", "updated_at",
            "ready_at", "deleted_at",
            // Cluster.Progress: failures in attempts, nextAttemptAt in next_reconcile_at (the due queue's key)
            "delete_requested_at", "provider_accepted_at", "pending_action", "attempts", "next_reconcile_at",
            "ca_certificate", "pending_operation", "identity_service_refused_at");
    /** The node_pools table's columns, in the order of {@link #nodePoolValues}. */
    private static final List<String> NODE_POOL_COLUMNS = List.of(
            "id", "cluster_id", "ordinal", "name", "machine_type", "node_count", "autoscaling_min", "autoscaling_max",
            "disk_gib", "disk_type", "spot", "accelerator_type", "accelerator_count", "zones_json", "labels_json",
            "taints_json", "state", "message", "version", "created_at", "updated_at", "request_fingerprint");

    private static final String SELECT_CLUSTERS = "SELECT " + String.join(", ", CLUSTER_COLUMNS) + " FROM clusters";
    private static final String INSERT_CLUSTER = Db.insertSql("clusters", CLUSTER_COLUMNS);
    /** A cluster and its node pools (oldest first), the pools' columns labelled {@code np_<column>}. */
    private static final String FIND_WITH_NODE_POOLS = "SELECT "
            + CLUSTER_COLUMNS.stream().map(c -> "c." + c).collect(Collectors.joining(", ")) + ", "
            + NODE_POOL_COLUMNS.stream().map(c -> "np." + c + " AS np_" + c).collect(Collectors.joining(", "))
            + " FROM clusters c LEFT JOIN node_pools np ON np.cluster_id = c.id WHERE c.id = :id"
            + " ORDER BY np.created_at, np.ordinal, np.id";
    /** sets every column but the first, the id */
    private static final String UPDATE_CLUSTER = "UPDATE clusters SET "
            + Db.assignments(CLUSTER_COLUMNS.subList(1, CLUSTER_COLUMNS.size()))
            + " WHERE id = :id AND version = :expected_version";
    /** The reconciler's bookkeeping: an API write ({@link #updateRequest}) leaves these as they are. */
    private static final List<String> RECONCILER_COLUMNS = List.of("provider_accepted_at", "pending_action", "attempts", "ca_certificate",
            "pending_operation", "identity_service_refused_at");
    private static final String UPDATE_REQUEST = "UPDATE clusters SET "
            + Db.assignments(CLUSTER_COLUMNS.subList(1, CLUSTER_COLUMNS.size()).stream().filter(c -> !RECONCILER_COLUMNS.contains(c)).toList())
            + " WHERE id = :id AND version = :expected_version";
    private static final String INSERT_NODE_POOL = Db.insertSql("node_pools", NODE_POOL_COLUMNS);
    private static final String UPDATE_NODE_POOL = "UPDATE node_pools SET "
            + Db.assignments(NODE_POOL_COLUMNS.subList(1, NODE_POOL_COLUMNS.size()))
            + " WHERE id = :id AND cluster_id = :cluster_id";
    private static final String NAME_CONSTRAINT = "clusters_active_name_uq";
    /** Moves a tenant's count of clusters not deleted by :delta, creating its row on first use (V60). */
    private static final String COUNT_CONFLICT = " ON CONFLICT (tenant_id) DO UPDATE SET not_deleted = cluster_counts.not_deleted"
            + " + EXCLUDED.not_deleted";
    private static final String COUNT_POSTGRES = "INSERT INTO cluster_counts (tenant_id, not_deleted) VALUES (:tenant_id, :delta)"
            + COUNT_CONFLICT;
    private static final String COUNT_H2 = "MERGE INTO cluster_counts c"
            + " USING (VALUES (CAST(:tenant_id AS VARCHAR), CAST(:delta AS BIGINT))) s (tenant_id, delta) ON c.tenant_id = s.tenant_id"
            + " WHEN MATCHED THEN UPDATE SET not_deleted = c.not_deleted + s.delta"
            + " WHEN NOT MATCHED THEN INSERT (tenant_id, not_deleted) VALUES (s.tenant_id, s.delta)";

    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {};
    private static final TypeReference<List<Taint>> TAINTS = new TypeReference<>() {};

    /** At most this many clusters are kept (the cache's own eviction chooses which go). */
    static final int KEPT_AT_MOST = 50_000;

    private final Db db;
    private final ChangeSignal changes;
    /** PostgreSQL (else H2): the counts' upsert, and whether a group's locks and reads go in one round trip. */
    private final boolean postgres;
    /**
     * Clusters as read, by id and the signal's number read before them: once the number moves on, no lookup asks for
     * the entries of the number before, and the cache's size bound lets them go.
     */
    private final JdbiCache<ReadAt, Cluster> kept;

    private record ReadAt(String clusterId, long epoch) {}

    /** The inserts of new clusters, committed in groups. */
    private final ClusterInserts inserts;

    /**
     * What a group of creates checks under its tenants' locks ({@link #lockAndCheck}): the tenants that exist (and are
     * locked), the names in use among those asked (by tenant id), those tenants' counts of clusters not deleted, and
     * the clusters of the asked ids that exist.
     */
    record CreateChecks(Set<String> tenants, Map<String, Set<String>> namesInUse, Map<String, Integer> counts,
                        List<Cluster> existing) {}

    /**
     * A cluster to insert, with what can be made of it without the database made ahead ({@link #prepareInsert}): in the
     * caller's thread, so that a group's writer, which writes one group at a time, only sends it.
     */
    interface PreparedInsert {
        Cluster cluster();
    }

    JdbiClusterRepository(Jdbi jdbi, ChangeSignal changes, boolean postgres, JdbiTransactions tx, JdbiAccessRepository access,
                          JdbiEventOutbox outbox, JdbiCacheBuilder cache) {
        this.db = new Db(jdbi);
        this.kept = cache.maxSize(KEPT_AT_MOST).build();
        this.changes = changes;
        this.postgres = postgres;
        this.inserts = new ClusterInserts(tx, this, access, outbox);
    }

    @Override
    public Optional<Cluster> find(String clusterId) {
        if (JdbiTransactions.active()) {
            return read(clusterId);
        }
        long epoch = changes.current();
        if (epoch == ChangeSignal.UNTRUSTED) {
            return read(clusterId);
        }
        // a cluster not found is the loader's null: Caffeine keeps none, so guessed ids fill nothing
        return Optional.ofNullable(kept.getWithLoader(new ReadAt(clusterId, epoch), at -> read(at.clusterId()).orElse(null)));
    }

    /**
     * Called by every write to clusters or node pools, inside its transaction: this replica's signal moves
     * after the commit (never before: a reader must not keep what it read before the commit under the number
     * that follows it). On PostgreSQL the other replicas hear of it from the tables' trigger (V51), which
     * notifies {@link PostgresChangeListener#CLUSTERS_CHANNEL} from the statement itself.
     */
    private void changed(Handle h) {
        h.afterCommit(changes::committed);
    }

    private Optional<Cluster> read(String clusterId) {
        // one round trip: the cluster's row once per node pool (or once, without pools)
        return db.call("reading a cluster", h -> h.createQuery(FIND_WITH_NODE_POOLS).bind("id", clusterId)
                .scanResultSet((rows, ctx) -> {
                    ResultSet rs = rows.get();
                    if (!rs.next()) {
                        return Optional.<Cluster>empty();
                    }
                    Cluster cluster = cluster(rs);
                    List<NodePool> pools = new ArrayList<>();
                    do {
                        if (rs.getString("np_id") != null) {
                            pools.add(nodePool(rs, "np_"));
                        }
                    } while (rs.next());
                    return Optional.of(cluster.toBuilder().nodePools(pools).build());
                }));
    }

    /** The clusters of these ids that exist, with their node pools, in one round trip each. */
    List<Cluster> findAll(Collection<String> clusterIds) {
        if (clusterIds.isEmpty()) {
            return List.of();
        }
        return db.call("reading clusters", h -> withNodePools(h,
                h.createQuery(SELECT_CLUSTERS + " WHERE id IN (<ids>)").bindList("ids", List.copyOf(clusterIds))
                        .map((rs, ctx) -> cluster(rs)).list()));
    }

    @Override
    public List<Cluster> list(ClusterFilter filter, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        StringBuilder sql = new StringBuilder(SELECT_CLUSTERS).append(" WHERE 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        narrow(sql, params, "tenant_id", filter.tenantId());
        narrow(sql, params, "pool_id", filter.poolId());
        narrow(sql, params, "project_id", filter.projectId());
        if (!filter.includeDeleted()) {
            sql.append(" AND state <> :deleted");
            params.put("deleted", ClusterState.DELETED.wire());
        }
        sql.append(" ORDER BY created_at, id LIMIT :limit");
        params.put("limit", limit);
        return db.call("listing clusters", h -> withNodePools(h,
                h.createQuery(sql.toString()).bindMap(params).map((rs, ctx) -> cluster(rs)).list()));
    }

    private static void narrow(StringBuilder sql, Map<String, Object> params, String column, String value) {
        if (value != null) {
            sql.append(" AND ").append(column).append(" = :").append(column);
            params.put(column, value);
        }
    }

    @Override
    public int countNotDeleted(String tenantId) {
        return db.call("counting clusters", h -> h.createQuery("SELECT not_deleted FROM cluster_counts WHERE tenant_id = :tenant_id")
                .bind("tenant_id", tenantId).mapTo(Long.class).findOne().orElse(0L).intValue());
    }

    @Override
    public boolean nameInUse(String tenantId, String name) {
        return db.call("checking a cluster name", h -> h.createQuery(
                        "SELECT COUNT(*) FROM clusters WHERE tenant_id = :tenant_id AND active_name = :name")
                .bind("tenant_id", tenantId).bind("name", name)
                .mapTo(Long.class).one() > 0);
    }

    /** Grouped with the inserts of concurrent calls ({@link ClusterInserts}): see there. */
    @Override
    public Insertion insert(NewCluster cluster) {
        return inserts.insert(cluster);
    }

    /** The asked (tenant, name) pairs, each once. */
    private static List<Map.Entry<String, String>> pairs(Map<String, ? extends Collection<String>> namesByTenant) {
        return namesByTenant.entrySet().stream()
                .flatMap(e -> e.getValue().stream().distinct().map(name -> Map.entry(e.getKey(), name))).toList();
    }

    /**
     * The pairs as one row-value {@code IN} (H2's checks): a lookup in clusters_active_name_uq per pair, where
     * "tenant_id IN (...) AND active_name IN (...)" made H2 walk every cluster the tenants ever had.
     */
    private static String pairsIn(int pairs) {
        return "(tenant_id, active_name) IN (" + String.join(", ", java.util.Collections.nCopies(pairs, "(?, ?)")) + ")";
    }

    /**
     * The checks of {@link #lockAndCheck} on PostgreSQL (after the tenants' locks): one short text whatever the group's
     * size, its values in arrays. Each name is probed in clusters_active_name_uq on both of its columns (one row at
     * most, so no statistics, however stale, make a scan of the tenant's clusters look cheaper: the row-value
     * {@code IN} this replaces was planned as such a scan while a new table's statistics were not gathered yet, and
     * took longer as the tenant's clusters grew). {@code PostgresCreateChecksPlanTest} holds the plan to that.
     */
    static final String CHECKS_POSTGRES =
            "SELECT 'n' AS kind, p.tenant_id AS k, p.name AS v, 0 AS n FROM unnest(?::varchar[], ?::varchar[]) AS p (tenant_id, name)"
            + " WHERE EXISTS (SELECT 1 FROM clusters c WHERE c.tenant_id = p.tenant_id AND c.active_name = p.name)"
            + " UNION ALL SELECT 'c' AS kind, tenant_id AS k, NULL AS v, not_deleted AS n FROM cluster_counts WHERE tenant_id = ANY(?::varchar[])"
            + " UNION ALL SELECT 'i' AS kind, id AS k, NULL AS v, 0 AS n FROM clusters WHERE id = ANY(?::varchar[])";
    private static final String LOCK_AND_CHECK_POSTGRES =
            "SELECT id FROM tenants WHERE id = ANY(?::varchar[]) ORDER BY id FOR UPDATE;\n" + CHECKS_POSTGRES;

    /**
     * The tenants' row locks (as {@code JdbiCatalogRepository.lockTenant} takes them; the sort runs before the lock),
     * then the names, the counts and the ids as one {@code UNION ALL} (each branch naming its columns: any of them may
     * be the only one). On PostgreSQL the two statements go in one round trip (one prepared statement of two
     * queries, which the driver sends before one Sync); each statement of a READ COMMITTED transaction reads with a
     * snapshot taken when it starts, so the reads see every commit made before the locks were granted. (A single
     * statement would not: its sub-selects would read with the snapshot taken before it waited for the locks.) On
     * H2, in the process, they are two statements. Then the clusters of the ids found, if any (a replay), with
     * their pools.
     */
    CreateChecks lockAndCheck(Map<String, ? extends Collection<String>> namesByTenant, Collection<String> clusterIds) {
        List<String> tenants = namesByTenant.keySet().stream().sorted().toList();
        List<Map.Entry<String, String>> pairs = pairs(namesByTenant);
        List<String> ids = clusterIds.stream().distinct().toList();
        Set<String> locked = new java.util.TreeSet<>();
        Map<String, Set<String>> used = new HashMap<>();
        Map<String, Integer> counts = new HashMap<>();
        tenants.forEach(t -> counts.put(t, 0));
        List<String> found = new ArrayList<>();
        db.call("locking tenants and checking a group of creates", h -> {
            if (!h.isInTransaction()) {
                throw new IllegalStateException("lockAndCheck must be called inside Transactions.inTransaction");
            }
            try {
                if (postgres && !tenants.isEmpty()) {
                    java.sql.Connection c = h.getConnection();
                    try (PreparedStatement both = c.prepareStatement(LOCK_AND_CHECK_POSTGRES)) {
                        // planned for the arrays of each call: a plan kept on the server would be the one made for the
                        // table's size when the connection first ran it (a scan of a then tiny table, kept as it grows)
                        both.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
                        both.setArray(1, c.createArrayOf("varchar", tenants.toArray()));
                        both.setArray(2, c.createArrayOf("varchar", pairs.stream().map(Map.Entry::getKey).toArray()));
                        both.setArray(3, c.createArrayOf("varchar", pairs.stream().map(Map.Entry::getValue).toArray()));
                        both.setArray(4, c.createArrayOf("varchar", tenants.toArray()));
                        both.setArray(5, c.createArrayOf("varchar", ids.toArray()));
                        both.execute();
                        readLocked(both.getResultSet(), locked);
                        both.getMoreResults();
                        readChecks(both.getResultSet(), used, counts, found);
                    }
                } else {
                    lockThenCheck(h.getConnection(), tenants, pairs, ids, locked, used, counts, found);
                }
                return null;
            } catch (SQLException e) {
                throw new UnableToExecuteStatementException("locking tenants and checking a group of creates", e, null);
            }
        });
        return new CreateChecks(locked, used, counts, found.isEmpty() ? List.of() : findAll(found));
    }

    /** {@link #lockAndCheck} as two statements, one after the other (H2, in the process): texts sized to the group. */
    private static void lockThenCheck(java.sql.Connection c, List<String> tenants, List<Map.Entry<String, String>> pairs,
                                      List<String> ids, Set<String> locked, Map<String, Set<String>> used,
                                      Map<String, Integer> counts, List<String> found) throws SQLException {
        if (!tenants.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM tenants WHERE id IN (" + Db.marks(tenants.size()) + ") ORDER BY id FOR UPDATE")) {
                bind(ps, 1, tenants);
                readLocked(ps.executeQuery(), locked);
            }
        }
        List<String> branches = new ArrayList<>();
        List<String> params = new ArrayList<>();
        if (!pairs.isEmpty()) {
            branches.add("SELECT 'n' AS kind, tenant_id AS k, active_name AS v, 0 AS n FROM clusters WHERE " + pairsIn(pairs.size()));
            pairs.forEach(p -> {
                params.add(p.getKey());
                params.add(p.getValue());
            });
        }
        if (!tenants.isEmpty()) {
            branches.add("SELECT 'c' AS kind, tenant_id AS k, NULL AS v, not_deleted AS n FROM cluster_counts WHERE tenant_id IN ("
                    + Db.marks(tenants.size()) + ")");
            params.addAll(tenants);
        }
        if (!ids.isEmpty()) {
            branches.add("SELECT 'i' AS kind, id AS k, NULL AS v, 0 AS n FROM clusters WHERE id IN (" + Db.marks(ids.size()) + ")");
            params.addAll(ids);
        }
        if (!branches.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(String.join(" UNION ALL ", branches))) {
                bind(ps, 1, params);
                readChecks(ps.executeQuery(), used, counts, found);
            }
        }
    }

    private static void bind(PreparedStatement ps, int from, List<String> values) throws SQLException {
        for (int i = 0; i < values.size(); i++) {
            ps.setString(from + i, values.get(i));
        }
    }

    private static void readLocked(ResultSet rs, Set<String> locked) throws SQLException {
        try (rs) {
            while (rs.next()) {
                locked.add(rs.getString(1));
            }
        }
    }

    private static void readChecks(ResultSet rs, Map<String, Set<String>> used, Map<String, Integer> counts, List<String> found)
            throws SQLException {
        try (rs) {
            while (rs.next()) {
                String k = rs.getString("k");
                switch (rs.getString("kind")) {
                    case "n" -> used.computeIfAbsent(k, t -> new HashSet<>()).add(rs.getString("v"));
                    case "c" -> counts.put(k, (int) rs.getLong("n"));
                    default -> found.add(k);
                }
            }
        }
    }

    /**
     * Moves the tenants' counts of clusters not deleted, in the caller's transaction, in the order of the tenants'
     * ids. Called after the write that changed them: a count's row is locked after the tenant's (a group of creates)
     * or the cluster's (a cluster turning deleted), and before the outbox's, by every writer.
     */
    private void count(Handle h, Map<String, Integer> deltas) {
        PreparedBatch batch = h.prepareBatch(postgres ? COUNT_POSTGRES : COUNT_H2);
        new java.util.TreeMap<>(deltas).forEach((tenant, delta) -> {
            if (delta != 0) {
                batch.bind("tenant_id", tenant).bind("delta", (long) delta).add();
            }
        });
        if (batch.size() > 0) {
            batch.execute();
        }
    }

    /** +1 for each cluster not deleted, by tenant. */
    private static Map<String, Integer> added(List<Cluster> clusters) {
        Map<String, Integer> deltas = new HashMap<>();
        clusters.stream().filter(c -> !c.deleted()).forEach(c -> deltas.merge(c.tenantId(), 1, Integer::sum));
        return deltas;
    }

    /**
     * One round trip for the clusters and one for their node pools (JDBC batches), whatever their number; when
     * {@link JdbiTransactions#writesTogether} holds them, copies sent with the group's other writes.
     */
    void insertAll(List<Cluster> clusters) {
        if (clusters.size() <= 1) {
            clusters.forEach(this::insertOne);
            return;
        }
        Db.Together held = Db.together();
        if (held != null) {
            hold(held, clusters.stream().map(this::textRows).toList());
            return;
        }
        db.inTransactionRun("inserting clusters", h -> Db.guardUnique(h, "clusters_insert", g -> {
            changed(g);
            PreparedBatch rows = g.prepareBatch(INSERT_CLUSTER);
            PreparedBatch pools = g.prepareBatch(INSERT_NODE_POOL);
            for (Cluster cluster : clusters) {
                bindCluster(rows, cluster).add();
                for (int i = 0; i < cluster.nodePools().size(); i++) {
                    bindNodePool(pools, cluster.nodePools().get(i), i).add();
                }
            }
            rows.execute();
            if (pools.size() > 0) {
                pools.execute();
            }
            count(g, added(clusters));
            return null;
        }, unique -> new DomainException(ErrorCode.CONFLICT, "A cluster with this id or name already exists.")));
    }

    /**
     * A cluster's row and its node pools' rows as the lines held writes copy ({@link Db.Together#addCopy}), made
     * ahead by {@link #prepareInsert} on PostgreSQL.
     */
    private record TextRows(Cluster cluster, byte[] row, byte[] pools) implements PreparedInsert {}

    private TextRows textRows(Cluster cluster) {
        StringBuilder pools = new StringBuilder();
        for (int i = 0; i < cluster.nodePools().size(); i++) {
            Db.copyLine(pools, nodePoolValues(cluster.nodePools().get(i), i));
        }
        StringBuilder row = new StringBuilder(512);
        Db.copyLine(row, clusterValues(cluster));
        return new TextRows(cluster, row.toString().getBytes(StandardCharsets.UTF_8),
                pools.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * On PostgreSQL the rows as lines of COPY's text (the JSON columns, the instants, the enums' wire forms), made in
     * the caller's thread: a group's leader, which writes one group at a time, then only writes them to its copies.
     */
    PreparedInsert prepareInsert(Cluster cluster) {
        return postgres ? textRows(cluster) : () -> cluster;
    }

    /** Held ({@link JdbiTransactions#writesTogether}): the prepared rows as they are; else {@link #insertAll}. */
    void insertAllPrepared(List<? extends PreparedInsert> prepared) {
        Db.Together held = Db.together();
        if (held == null || prepared.size() <= 1) {
            insertAll(prepared.stream().map(PreparedInsert::cluster).toList());
            return;
        }
        hold(held, prepared.stream().map(p -> p instanceof TextRows rows ? rows : textRows(p.cluster())).toList());
    }

    /**
     * The clusters and their node pools as two copies and their tenants' counts as a statement, held to be sent
     * together (PostgreSQL).
     */
    private void hold(Db.Together held, List<TextRows> prepared) {
        db.onHandle(this::changed);
        // each create's lines as it made them: the copies write them one after another, nothing joined here
        List<byte[]> rows = prepared.stream().map(TextRows::row).toList();
        List<byte[]> pools = prepared.stream().map(TextRows::pools).filter(p -> p.length > 0).toList();
        List<Cluster> clusters = prepared.stream().map(TextRows::cluster).toList();
        held.addCopy("clusters", CLUSTER_COLUMNS, rows,
                unique -> new DomainException(ErrorCode.CONFLICT, "A cluster with this id or name already exists."));
        if (!pools.isEmpty()) {
            held.addCopy("node_pools", NODE_POOL_COLUMNS, pools, null);
        }
        List<Object> counts = new ArrayList<>();
        new java.util.TreeMap<>(added(clusters)).forEach((tenant, delta) -> {
            counts.add(tenant);
            counts.add((long) delta);
        });
        if (!counts.isEmpty()) {
            held.addRows("cluster_counts", List.of("tenant_id varchar", "not_deleted bigint"), counts, COUNT_CONFLICT, null);
        }
    }

    /**
     * Stores a new cluster and its node pools, and counts it. A second cluster with the same id, or with the name of
     * one of the tenant's clusters that is not deleted, is {@code CONFLICT}: the database's own constraint, the last
     * guard of the checks {@link ClusterInserts} made under the tenant's lock.
     */
    void insertOne(Cluster cluster) {
        db.inTransactionRun("inserting a cluster", h -> Db.guardUnique(h, "cluster_insert", g -> {
            changed(g);
            bindCluster(g.createUpdate(INSERT_CLUSTER), cluster).execute();
            for (int i = 0; i < cluster.nodePools().size(); i++) {
                bindNodePool(g.createUpdate(INSERT_NODE_POOL), cluster.nodePools().get(i), i).execute();
            }
            count(g, added(List.of(cluster)));
            return null;
        }, unique -> conflict(cluster, unique)));
    }

    @Override
    public boolean update(Cluster cluster, long expectedVersion) {
        return update(cluster, expectedVersion, UPDATE_CLUSTER);
    }

    @Override
    public boolean updateRequest(Cluster cluster, long expectedVersion) {
        return update(cluster, expectedVersion, UPDATE_REQUEST);
    }

    private boolean update(Cluster cluster, long expectedVersion, String sql) {
        return db.inTransaction("updating a cluster", h -> Db.guardUnique(h, "cluster_update", g -> {
            // the stored row not deleted in the usual case; a second try tells a deleted one from another version
            int delta = cluster.deleted() ? -1 : 0;
            if (updateRow(g, sql + " AND state <> :stored_deleted", cluster, expectedVersion) == 0) {
                if (updateRow(g, sql + " AND state = :stored_deleted", cluster, expectedVersion) == 0) {
                    return false;
                }
                delta = cluster.deleted() ? 0 : 1;
            }
            changed(g);
            count(g, Map.of(cluster.tenantId(), delta));
            List<String> keep = cluster.nodePools().stream().map(NodePool::id).toList();
            if (keep.isEmpty()) {
                g.createUpdate("DELETE FROM node_pools WHERE cluster_id = :cluster_id")
                        .bind("cluster_id", cluster.id()).execute();
            } else {
                g.createUpdate("DELETE FROM node_pools WHERE cluster_id = :cluster_id AND id NOT IN (<keep>)")
                        .bind("cluster_id", cluster.id()).bindList("keep", keep).execute();
            }
            for (int i = 0; i < cluster.nodePools().size(); i++) {
                NodePool pool = cluster.nodePools().get(i);
                if (bindNodePool(g.createUpdate(UPDATE_NODE_POOL), pool, i).execute() == 0) {
                    bindNodePool(g.createUpdate(INSERT_NODE_POOL), pool, i).execute();
                }
            }
            return true;
        }, unique -> conflict(cluster, unique)));
    }

    /** bindCluster binds every column; UPDATE_REQUEST leaves the reconciler's out. */
    private static int updateRow(Handle h, String sql, Cluster cluster, long expectedVersion) {
        return bindCluster(h.createUpdate(sql).configure(SqlStatements.class, c -> c.setUnusedBindingAllowed(true)), cluster)
                .bind("expected_version", expectedVersion).bind("stored_deleted", ClusterState.DELETED.wire()).execute();
    }

    @Override
    public List<String> due(Instant now, String owner, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("finding clusters to reconcile", h -> h.createQuery("""
                        SELECT id FROM clusters
                        WHERE state <> :deleted
                          AND (next_reconcile_at IS NULL OR next_reconcile_at <= :now)
                          AND (lease_owner IS NULL OR lease_until < :now OR lease_owner = :owner)
                        ORDER BY COALESCE(next_reconcile_at, created_at), id
                        LIMIT :limit""")
                .bind("deleted", ClusterState.DELETED.wire()).bind("now", now).bind("owner", owner).bind("limit", limit)
                .mapTo(String.class).list());
    }

    @Override
    public boolean claim(String clusterId, String owner, Instant now, Instant until) {
        // One statement: the row lock serializes racing claims, and each re-checks the condition on the
        // row as the winner left it (PostgreSQL READ COMMITTED, H2 MVStore), so at most one matches.
        return db.call("claiming a cluster", h -> h.createUpdate("""
                        UPDATE clusters SET lease_owner = :owner, lease_until = :until
                        WHERE id = :id AND (lease_owner IS NULL OR lease_until < :now OR lease_owner = :owner)""")
                .bind("id", clusterId).bind("owner", owner).bind("now", now).bind("until", until)
                .execute() == 1);
    }

    @Override
    public void release(String clusterId, String owner) {
        db.call("releasing a cluster", h -> h.createUpdate(
                        "UPDATE clusters SET lease_owner = NULL, lease_until = NULL WHERE id = :id AND lease_owner = :owner")
                .bind("id", clusterId).bind("owner", owner).execute());
    }

    private static DomainException conflict(Cluster cluster, SQLException unique) {
        if (Db.violates(unique, NAME_CONSTRAINT)) {
            return new DomainException(ErrorCode.CONFLICT, "The tenant already has a cluster with this name.",
                    Map.of("name", cluster.name()));
        }
        return new DomainException(ErrorCode.CONFLICT, "A cluster with this id already exists.",
                Map.of("id", cluster.id()));
    }

    /** The cluster's row: its values in the order of {@link #CLUSTER_COLUMNS}. */
    private static List<Object> clusterValues(Cluster c) {
        return java.util.Arrays.asList(
                c.id(),
                c.tenantId(),
                c.projectId(),
                c.poolId(),
                c.providerAccountId(),
                c.name(),
                c.deleted() ? null : c.name(),
                c.description(),
                c.mode() == null ? null : c.mode().wire(),
                c.location(),
                c.region(),
                c.locationType() == null ? null : c.locationType().wire(),
                c.releaseChannel() == null ? null : c.releaseChannel().wire(),
                c.requestedVersion(),
                c.kubernetesVersion(),
                c.nodeVersion(),
                c.endpoint(),
                Json.write(c.authorizedNetworks()),
                c.privateNodes(),
                c.networkId(),
                c.subnetName(),
                c.state().wire(),
                c.message(),
                c.providerName(),
                c.ownerId(),
                c.requestFingerprint(),
                c.version(),
                c.createdAt(),
                c.updatedAt(),
                c.readyAt(),
                c.deletedAt(),
                c.progress().deleteRequestedAt(),
                c.progress().providerAcceptedAt(),
                c.progress().pendingAction(),
                c.progress().failures(),
                c.progress().nextAttemptAt(),
                c.progress().caCertificate(),
                c.progress().operation(),
                c.progress().identityServiceRefusedAt());
    }

    private static <S extends SqlStatement<S>> S bindCluster(S s, Cluster c) {
        return Db.bindRow(s, CLUSTER_COLUMNS, clusterValues(c));
    }

    /** The node pool's row: its values in the order of {@link #NODE_POOL_COLUMNS}. */
    private static List<Object> nodePoolValues(NodePool p, int ordinal) {
        NodePoolSpec spec = p.spec();
        return java.util.Arrays.asList(
                p.id(),
                p.clusterId(),
                ordinal,
                spec.name(),
                spec.machineType(),
                spec.nodeCount(),
                spec.autoscaling() == null ? null : spec.autoscaling().minNodes(),
                spec.autoscaling() == null ? null : spec.autoscaling().maxNodes(),
                spec.diskGiB(),
                spec.diskType(),
                spec.spot(),
                spec.accelerators() == null ? null : spec.accelerators().type(),
                spec.accelerators() == null ? null : spec.accelerators().count(),
                Json.write(spec.zones()),
                Json.write(spec.labels()),
                Json.write(spec.taints()),
                p.state().wire(),
                p.message(),
                p.version(),
                p.createdAt(),
                p.updatedAt(),
                p.requestFingerprint());
    }

    private static <S extends SqlStatement<S>> S bindNodePool(S s, NodePool p, int ordinal) {
        return Db.bindRow(s, NODE_POOL_COLUMNS, nodePoolValues(p, ordinal));
    }

    /** Loads the node pools of the clusters (one query) and returns the clusters with them. */
    private static List<Cluster> withNodePools(Handle h, List<Cluster> clusters) {
        if (clusters.isEmpty()) {
            return clusters;
        }
        Map<String, List<NodePool>> pools = h.createQuery("SELECT " + String.join(", ", NODE_POOL_COLUMNS)
                        + " FROM node_pools WHERE cluster_id IN (<ids>) ORDER BY created_at, ordinal, id")
                .bindList("ids", clusters.stream().map(Cluster::id).toList())
                .map((rs, ctx) -> nodePool(rs)).list().stream()
                .collect(Collectors.groupingBy(NodePool::clusterId, LinkedHashMap::new, Collectors.toList()));
        List<Cluster> out = new ArrayList<>(clusters.size());
        for (Cluster c : clusters) {
            out.add(c.toBuilder().nodePools(pools.getOrDefault(c.id(), List.of())).build());
        }
        return out;
    }

    private static Cluster cluster(ResultSet rs) throws SQLException {
        return new Cluster(
                rs.getString("id"),
                rs.getString("tenant_id"),
                rs.getString("project_id"),
                rs.getString("pool_id"),
                rs.getString("provider_account_id"),
                rs.getString("name"),
                rs.getString("description"),
                wireEnum(ClusterMode.class, rs.getString("mode")),
                rs.getString("location"),
                rs.getString("region"),
                wireEnum(LocationType.class, rs.getString("location_type")),
                wireEnum(ReleaseChannel.class, rs.getString("release_channel")),
                rs.getString("requested_version"),
                rs.getString("kubernetes_version"),
                rs.getString("node_version"),
                rs.getString("endpoint"),
                Json.read(rs.getString("authorized_networks_json"), STRINGS),
                rs.getBoolean("private_nodes"),
                rs.getString("network_id"),
                rs.getString("subnet_name"),
                wireEnum(ClusterState.class, rs.getString("state")),
                rs.getString("message"),
                rs.getString("provider_name"),
                rs.getString("owner_id"),
                rs.getString("request_fingerprint"),
                rs.getLong("version"),
                Times.instant(rs, "created_at"),
                Times.instant(rs, "updated_at"),
                Times.instant(rs, "ready_at"),
                Times.instant(rs, "deleted_at"),
                List.of(),
                new Cluster.Progress(
                        Times.instant(rs, "delete_requested_at"),
                        Times.instant(rs, "provider_accepted_at"),
                        rs.getString("pending_action"),
                        rs.getInt("attempts"),
                        Times.instant(rs, "next_reconcile_at"),
                        rs.getString("ca_certificate"),
                        rs.getString("pending_operation"),
                        Times.instant(rs, "identity_service_refused_at")));
    }

    private static NodePool nodePool(ResultSet rs) throws SQLException {
        return nodePool(rs, "");
    }

    /** The node pool of the row whose node-pool columns are labelled {@code prefix + column}. */
    private static NodePool nodePool(ResultSet rs, String p) throws SQLException {
        Integer autoscalingMin = rs.getObject(p + "autoscaling_min", Integer.class);
        Integer autoscalingMax = rs.getObject(p + "autoscaling_max", Integer.class);
        String acceleratorType = rs.getString(p + "accelerator_type");
        NodePoolSpec spec = new NodePoolSpec(
                rs.getString(p + "name"),
                rs.getString(p + "machine_type"),
                rs.getInt(p + "node_count"),
                autoscalingMin == null ? null : new Autoscaling(autoscalingMin, autoscalingMax),
                rs.getInt(p + "disk_gib"),
                rs.getString(p + "disk_type"),
                rs.getBoolean(p + "spot"),
                acceleratorType == null ? null : new Accelerators(acceleratorType, rs.getInt(p + "accelerator_count")),
                Json.read(rs.getString(p + "zones_json"), STRINGS),
                Json.read(rs.getString(p + "labels_json"), LABELS),
                Json.read(rs.getString(p + "taints_json"), TAINTS));
        return new NodePool(
                rs.getString(p + "id"),
                rs.getString(p + "cluster_id"),
                spec,
                wireEnum(ClusterState.class, rs.getString(p + "state")),
                rs.getString(p + "message"),
                rs.getLong(p + "version"),
                Times.instant(rs, p + "created_at"),
                Times.instant(rs, p + "updated_at"),
                rs.getString(p + "request_fingerprint"));
    }

    /** The enum constant whose lower-case name is the stored wire form. */
    static <E extends Enum<E>> E wireEnum(Class<E> type, String wire) {
        return wire == null ? null : Enum.valueOf(type, wire.toUpperCase(Locale.ROOT));
    }
}
