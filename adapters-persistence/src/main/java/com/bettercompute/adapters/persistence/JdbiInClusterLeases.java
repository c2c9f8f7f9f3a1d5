package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.InClusterLeases;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link InClusterLeases} on {@code in_cluster_replicas} and {@code in_cluster_leases} (V88). A lease is a row
 * only while held: taken by a conditional UPDATE (the row's lock serializes racing claims, and each re-checks
 * the condition on the row as the winner left it, on PostgreSQL READ COMMITTED and H2 MVStore alike), or, when
 * there is no row, by {@code INSERT ... ON CONFLICT DO NOTHING}, whose row count says who was first. A claim of
 * many clusters is two batches in one transaction, so a pass over hundreds of clusters costs a few round trips.
 */
public final class JdbiInClusterLeases implements InClusterLeases {
    private static final String TAKE = """
            UPDATE in_cluster_leases SET lease_owner = :owner, lease_until = :until
            WHERE cluster_id = :id AND (lease_owner = :owner OR lease_until < :now)""";
    private static final String TAKE_FREE = """
            INSERT INTO in_cluster_leases (cluster_id, lease_owner, lease_until) VALUES (:id, :owner, :until)
            ON CONFLICT DO NOTHING""";

    private final Db db;

    public JdbiInClusterLeases(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public List<String> replicas(String owner, Instant now, Instant until) {
        return db.inTransaction("recording an in-cluster replica", h -> {
            int updated = h.createUpdate("UPDATE in_cluster_replicas SET alive_until = :until WHERE owner = :owner")
                    .bind("owner", owner).bind("until", until).execute();
            if (updated == 0) {
                h.createUpdate("INSERT INTO in_cluster_replicas (owner, alive_until) VALUES (:owner, :until) ON CONFLICT DO NOTHING")
                        .bind("owner", owner).bind("until", until).execute();
            }
            h.createUpdate("DELETE FROM in_cluster_replicas WHERE alive_until < :now").bind("now", now).execute();
            return h.createQuery("SELECT owner FROM in_cluster_replicas WHERE alive_until >= :now ORDER BY owner")
                    .bind("now", now).mapTo(String.class).list();
        });
    }

    @Override
    public Set<String> claim(Collection<String> clusterIds, String owner, Instant now, Instant until) {
        if (clusterIds.isEmpty()) {
            return Set.of();
        }
        List<String> ids = List.copyOf(new LinkedHashSet<>(clusterIds));
        return db.inTransaction("claiming in-cluster leases", h -> {
            Set<String> held = new LinkedHashSet<>();
            List<String> rest = new ArrayList<>();
            int[] taken = batch(h, TAKE, ids, owner, now, until);
            for (int i = 0; i < ids.size(); i++) {
                (taken[i] == 1 ? held : rest).add(ids.get(i));
            }
            if (!rest.isEmpty()) {
                int[] inserted = batch(h, TAKE_FREE, rest, owner, now, until);
                for (int i = 0; i < rest.size(); i++) {
                    if (inserted[i] == 1) {
                        held.add(rest.get(i));
                    }
                }
            }
            return held;
        });
    }

    private static int[] batch(Handle h, String sql, List<String> ids, String owner, Instant now, Instant until) {
        PreparedBatch batch = h.prepareBatch(sql);
        for (String id : ids) {
            batch.bind("id", id).bind("owner", owner).bind("now", now).bind("until", until).add();
        }
        return batch.execute();
    }

    @Override
    public void release(Collection<String> clusterIds, String owner) {
        if (clusterIds.isEmpty()) {
            return;
        }
        db.inTransaction("releasing in-cluster leases", h -> {
            PreparedBatch batch = h.prepareBatch("DELETE FROM in_cluster_leases WHERE cluster_id = :id AND lease_owner = :owner");
            for (String id : new LinkedHashSet<>(clusterIds)) {
                batch.bind("id", id).bind("owner", owner).add();
            }
            return batch.execute();
        });
    }

    @Override
    public void leave(String owner) {
        db.inTransaction("leaving the in-cluster replicas", h -> {
            h.createUpdate("DELETE FROM in_cluster_leases WHERE lease_owner = :owner").bind("owner", owner).execute();
            return h.createUpdate("DELETE FROM in_cluster_replicas WHERE owner = :owner").bind("owner", owner).execute();
        });
    }
}
