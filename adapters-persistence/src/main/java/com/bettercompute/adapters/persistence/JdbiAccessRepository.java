package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static com.bettercompute.adapters.persistence.Db.row;
import static com.bettercompute.adapters.persistence.Db.upsert;

/** {@link AccessRepository} on {@code principals}, {@code role_bindings} and {@code cluster_owners}. */
public final class JdbiAccessRepository implements AccessRepository {
    private static final TypeReference<Map<String, List<String>>> CONDITIONS = new TypeReference<>() {};

    private final Db db;

    public JdbiAccessRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    /**
     * Principals not listed go first, then the listed ones' old tokens are cleared, so tokens may move
     * between them in one save; two listed principals with one token are {@code CONFLICT} and nothing is saved.
     */
    @Override
    public void save(List<CatalogPrincipal> principals) {
        List<String> ids = principals.stream().map(CatalogPrincipal::id).toList();
        db.inTransactionRun("saving principals", h -> Db.guardUnique(h, "principals_save", g -> {
            for (String table : List.of("role_bindings", "cluster_owners")) {
                exceptListed(g, "DELETE FROM " + table, "principal_id", ids, "");
            }
            exceptListed(g, "DELETE FROM principals", "id", ids, "");
            g.createUpdate("UPDATE principals SET token_sha256 = NULL").execute();
            for (CatalogPrincipal p : principals) {
                upsert(g, "principals", List.of("id"),
                        row("id", p.id(), "token_sha256", p.tokenSha256(), "is_operator", p.operator()));
                g.createUpdate("DELETE FROM role_bindings WHERE principal_id = :id").bind("id", p.id()).execute();
                for (int i = 0; i < p.bindings().size(); i++) {
                    RoleBinding b = p.bindings().get(i);
                    g.createUpdate("INSERT INTO role_bindings (principal_id, ordinal, tenant_id, cluster_id, role, conditions_json)"
                                    + " VALUES (:principal_id, :ordinal, :tenant_id, :cluster_id, :role, :conditions_json)")
                            .bind("principal_id", p.id()).bind("ordinal", i).bind("tenant_id", b.tenantId())
                            .bind("cluster_id", b.clusterId()).bind("role", b.role().wire())
                            .bind("conditions_json", Json.write(b.where())).execute();
                }
            }
            return null;
        }, unique -> new DomainException(ErrorCode.CONFLICT, "Two principals have the same API token.")));
    }

    @Override
    public void removeOwnersOutside(Set<String> tenantIds) {
        db.inTransactionRun("ending the ownership of clusters in tenants no longer listed", h -> exceptListed(h,
                "DELETE FROM cluster_owners WHERE cluster_id IN (SELECT id FROM clusters", "tenant_id", List.copyOf(tenantIds), ")"));
    }

    /**
     * Runs {@code statement} (then {@code close}) on the rows whose {@code column} is none of {@code listed},
     * every row when none is listed ({@code NOT IN ()} is not SQL).
     */
    private static void exceptListed(Handle h, String statement, String column, List<String> listed, String close) {
        if (listed.isEmpty()) {
            h.createUpdate(statement + close).execute();
        } else {
            h.createUpdate(statement + " WHERE " + column + " NOT IN (<listed>)" + close).bindList("listed", listed).execute();
        }
    }

    @Override
    public Optional<Principal> principalByTokenHash(String tokenSha256) {
        return db.call("finding a principal", h -> h.createQuery(
                        "SELECT id, is_operator FROM principals WHERE token_sha256 = :hash")
                .bind("hash", tokenSha256)
                .map((rs, ctx) -> new Principal(rs.getString("id"), rs.getBoolean("is_operator")))
                .findOne());
    }

    @Override
    public List<RoleBinding> bindings(String principalId) {
        return db.call("reading role bindings", h -> h.createQuery(
                        "SELECT principal_id, tenant_id, cluster_id, role, conditions_json FROM role_bindings"
                                + " WHERE principal_id = :id ORDER BY ordinal")
                .bind("id", principalId)
                .map((rs, ctx) -> new RoleBinding(rs.getString("principal_id"), rs.getString("tenant_id"),
                        rs.getString("cluster_id"), role(rs.getString("role")),
                        Json.read(rs.getString("conditions_json"), CONDITIONS)))
                .list());
    }

    private static Role role(String wire) {
        return Role.fromWire(wire).orElseThrow(() -> new IllegalStateException("unknown stored role " + wire));
    }

    @Override
    public Optional<String> owner(String clusterId) {
        return db.call("reading a cluster's owner", h -> h.createQuery(
                        "SELECT principal_id FROM cluster_owners WHERE cluster_id = :id")
                .bind("id", clusterId).mapTo(String.class).findOne());
    }

    @Override
    public Set<String> clustersOwnedBy(String principalId) {
        return db.call("reading the clusters a principal owns", h -> Set.copyOf(h.createQuery(
                        "SELECT cluster_id FROM cluster_owners WHERE principal_id = :id")
                .bind("id", principalId).mapTo(String.class).list()));
    }

    @Override
    public void addOwner(String clusterId, String principalId) {
        db.inTransactionRun("recording a cluster's owner", h -> upsert(h, "cluster_owners", List.of("cluster_id"),
                row("cluster_id", clusterId, "principal_id", principalId)));
    }

    /**
     * As {@link #addOwner} for each, in two round trips: the rows removed, then inserted in one JDBC batch; none of
     * their own when {@link JdbiTransactions#writesTogether} holds them (then one upsert of the columns as arrays).
     */
    @Override
    public void addOwners(Map<String, String> ownerByCluster) {
        if (ownerByCluster.size() <= 1) {
            ownerByCluster.forEach(this::addOwner);
            return;
        }
        Db.Together held = Db.together();
        if (held != null) {
            List<Object> rows = new ArrayList<>();
            ownerByCluster.forEach((cluster, principal) -> {
                rows.add(cluster);
                rows.add(principal);
            });
            // held writes are PostgreSQL's: an upsert in one statement, where the delete before the insert (below, for
            // both engines) probed the table once per cluster only to find nothing for a new cluster
            held.addRows("cluster_owners", List.of("cluster_id varchar", "principal_id varchar"), rows,
                    " ON CONFLICT (cluster_id) DO UPDATE SET principal_id = EXCLUDED.principal_id", null);
            return;
        }
        db.inTransactionRun("recording clusters' owners", h -> {
            h.createUpdate("DELETE FROM cluster_owners WHERE cluster_id IN (<ids>)")
                    .bindList("ids", List.copyOf(ownerByCluster.keySet())).execute();
            PreparedBatch rows = h.prepareBatch("INSERT INTO cluster_owners (cluster_id, principal_id) VALUES (:cluster_id, :principal_id)");
            ownerByCluster.forEach((cluster, principal) -> rows.bind("cluster_id", cluster).bind("principal_id", principal).add());
            rows.execute();
        });
    }

    @Override
    public void removeOwner(String clusterId) {
        db.call("removing a cluster's owner", h -> h.createUpdate("DELETE FROM cluster_owners WHERE cluster_id = :id")
                .bind("id", clusterId).execute());
    }
}
