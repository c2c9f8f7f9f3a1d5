package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.LoadBalancerRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.loadbalancer.HealthCheck;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link LoadBalancerRepository} on {@code load_balancers}. */
final class JdbiLoadBalancerRepository implements LoadBalancerRepository {
    private static final List<String> COLUMNS = List.of("cluster_id", "service_uid", "tenant_id", "namespace", "service", "project",
            "region", "provider_name", "state", "address", "ports_json", "backends_json", "health_check_port", "health_check_path",
            "refusal", "refusal_text", "created_at", "updated_at", "version");
    private static final String SELECT = "SELECT " + String.join(", ", COLUMNS) + " FROM load_balancers";
    private static final String ORDER = " ORDER BY cluster_id, created_at, service_uid";
    private static final String HOLDING = " AND state <> 'PENDING'";
    private static final TypeReference<List<Integer>> PORTS = new TypeReference<>() { };
    private static final TypeReference<List<String>> BACKENDS = new TypeReference<>() { };

    private final Db db;

    JdbiLoadBalancerRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public Optional<LoadBalancer> find(String clusterId, String serviceUid) {
        return db.call("reading a load balancer", h -> h.createQuery(SELECT + " WHERE cluster_id = :cluster AND service_uid = :uid")
                .bind("cluster", clusterId).bind("uid", serviceUid).map((rs, ctx) -> row(rs)).findOne());
    }

    @Override
    public List<LoadBalancer> ofCluster(String clusterId) {
        return db.call("listing a cluster's load balancers", h -> h.createQuery(SELECT + " WHERE cluster_id = :cluster" + ORDER)
                .bind("cluster", clusterId).map((rs, ctx) -> row(rs)).list());
    }

    @Override
    public List<LoadBalancer> all() {
        return db.call("listing load balancers", h -> h.createQuery(SELECT + ORDER).map((rs, ctx) -> row(rs)).list());
    }

    @Override
    public List<String> clusters() {
        return db.call("listing the clusters with load balancers", h -> h.createQuery(
                "SELECT DISTINCT cluster_id FROM load_balancers ORDER BY cluster_id").mapTo(String.class).list());
    }

    @Override
    public int holdingInCluster(String clusterId) {
        return db.call("counting a cluster's load balancers", h -> h.createQuery(
                        "SELECT COUNT(*) FROM load_balancers WHERE cluster_id = :cluster" + HOLDING)
                .bind("cluster", clusterId).mapTo(Long.class).one().intValue());
    }

    @Override
    public int holdingInRegion(String region) {
        return db.call("counting a region's load balancers", h -> h.createQuery(
                        "SELECT COUNT(*) FROM load_balancers WHERE region = :region" + HOLDING)
                .bind("region", region).mapTo(Long.class).one().intValue());
    }

    @Override
    public void lockRegion(String region) {
        // a row lock both engines hold until the transaction ends: the region's row, made on its first claim
        db.inTransaction("locking a region's load balancer claims", h -> {
            try {
                Db.guardUnique(h, "load_balancer_region", x -> x.createUpdate(
                        "INSERT INTO load_balancer_regions (region) SELECT :region WHERE NOT EXISTS"
                                + " (SELECT 1 FROM load_balancer_regions WHERE region = :region)").bind("region", region).execute(),
                        e -> new DomainException(ErrorCode.CONFLICT, "made by a concurrent claim", Map.of()));
            } catch (DomainException madeMeanwhile) {
                // another claim made the row first: locking it below waits for that one
            }
            return h.createQuery("SELECT region FROM load_balancer_regions WHERE region = :region FOR UPDATE")
                    .bind("region", region).mapTo(String.class).one();
        });
    }

    @Override
    public void insert(LoadBalancer row) {
        db.inTransaction("recording a load balancer", h -> Db.guardUnique(h, "load_balancer_insert",
                x -> bind(x.createUpdate(Db.insertSql("load_balancers", COLUMNS)), row.withVersion(0)).execute(),
                e -> new DomainException(ErrorCode.CONFLICT, "a load balancer of Service " + row.namespace() + "/" + row.service()
                        + " exists already", Map.of())));
    }

    @Override
    public boolean update(LoadBalancer row, long expectedVersion) {
        List<String> changed = COLUMNS.stream().filter(c -> !c.equals("cluster_id") && !c.equals("service_uid")).toList();
        return db.call("saving a load balancer", h -> bind(h.createUpdate("UPDATE load_balancers SET " + Db.assignments(changed)
                        + " WHERE cluster_id = :cluster_id AND service_uid = :service_uid AND version = :expected"),
                row.withVersion(expectedVersion + 1)).bind("expected", expectedVersion).execute()) == 1;
    }

    @Override
    public boolean delete(String clusterId, String serviceUid, long expectedVersion) {
        return db.call("removing a load balancer", h -> h.createUpdate(
                        "DELETE FROM load_balancers WHERE cluster_id = :cluster AND service_uid = :uid AND version = :expected")
                .bind("cluster", clusterId).bind("uid", serviceUid).bind("expected", expectedVersion).execute()) == 1;
    }

    private static <S extends SqlStatement<S>> S bind(S s, LoadBalancer r) {
        return s.bind("cluster_id", r.clusterId()).bind("service_uid", r.serviceUid()).bind("tenant_id", r.tenantId())
                .bind("namespace", r.namespace()).bind("service", r.service()).bind("project", r.project())
                .bind("region", r.region()).bind("provider_name", r.providerName()).bind("state", r.state().name())
                .bind("address", r.address()).bind("ports_json", Json.write(r.ports(), PORTS))
                .bind("backends_json", Json.write(r.backends(), BACKENDS))
                .bind("health_check_port", r.healthCheck() == null ? null : r.healthCheck().port())
                .bind("health_check_path", r.healthCheck() == null ? null : r.healthCheck().path())
                .bind("refusal", r.refusal() == null ? null : r.refusal().name()).bind("refusal_text", r.refusalText())
                .bindByType("created_at", r.createdAt(), Instant.class).bindByType("updated_at", r.updatedAt(), Instant.class)
                .bind("version", r.version());
    }

    private static LoadBalancer row(ResultSet rs) throws SQLException {
        int port = rs.getInt("health_check_port");
        HealthCheck check = rs.wasNull() ? null : new HealthCheck(port, rs.getString("health_check_path"));
        String refusal = rs.getString("refusal");
        return new LoadBalancer(rs.getString("cluster_id"), rs.getString("tenant_id"), rs.getString("namespace"), rs.getString("service"),
                rs.getString("service_uid"), rs.getString("project"), rs.getString("region"), rs.getString("provider_name"),
                LoadBalancerState.valueOf(rs.getString("state")), rs.getString("address"), Json.read(rs.getString("ports_json"), PORTS),
                Json.read(rs.getString("backends_json"), BACKENDS), check, refusal == null ? null : RefusalReason.valueOf(refusal),
                rs.getString("refusal_text"), Times.instant(rs, "created_at"), Times.instant(rs, "updated_at"), rs.getLong("version"));
    }

}
