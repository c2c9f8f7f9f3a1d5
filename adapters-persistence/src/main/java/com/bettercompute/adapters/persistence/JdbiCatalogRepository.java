package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Subnet;
import com.bettercompute.domain.catalog.Tenant;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.math.BigDecimal;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.bettercompute.adapters.persistence.Db.row;
import static com.bettercompute.adapters.persistence.Db.upsert;

/** {@link CatalogRepository} on the catalog tables; see the migration for their shape. */
public final class JdbiCatalogRepository implements CatalogRepository {
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final List<String> ID = List.of("id");
    private static final Map<Kind, String> TABLES = new EnumMap<>(Map.of(Kind.PROVIDER, "providers", Kind.ACCOUNT, "accounts",
            Kind.POOL, "pools", Kind.TENANT, "tenants", Kind.PROJECT, "projects", Kind.NETWORK, "networks"));

    private final Db db;

    public JdbiCatalogRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public void save(Catalog catalog) {
        db.inTransactionRun("saving the catalog", h -> {
            for (Provider p : catalog.providers()) {
                upsert(h, "providers", ID, row("id", p.id(), "managed_kubernetes", p.managedKubernetes(), "retired", false));
            }
            for (ProviderAccount a : catalog.accounts()) {
                upsert(h, "accounts", ID, row("id", a.id(), "provider_id", a.providerId(), "owner", a.owner(),
                        "cloud_project", a.cloudProject(), "zones_json", Json.write(a.zones()),
                        "credentials_file", a.credentialsFile(), "retired", false));
            }
            for (Pool p : catalog.pools()) {
                upsert(h, "pools", ID, row("id", p.id(), "account_id", p.accountId(), "kind", p.kind().name(),
                        "kind_name", p.kindName(), "billing_mode", p.billingMode().wire(), "retired", false));
            }
            h.createUpdate("DELETE FROM offers").execute();
            for (Offer o : catalog.offers()) {
                upsert(h, "offers", List.of("pool_id", "tenant_id"), row("pool_id", o.poolId(), "tenant_id", o.tenantId(),
                        "active", o.active(), "excluded_regions_json", Json.write(o.excludedRegions())));
            }
            for (Tenant t : catalog.tenants()) {
                upsert(h, "tenants", ID, row("id", t.id(), "max_clusters", t.maxClusters(), "retired", false));
            }
            for (Project p : catalog.projects()) {
                upsert(h, "projects", ID, row("id", p.id(), "tenant_id", p.tenantId(), "retired", false));
            }
            for (Network n : catalog.networks()) {
                upsert(h, "networks", ID, row("id", n.id(), "tenant_id", n.tenantId(), "account_id", n.accountId(),
                        "state", n.state(), "retired", false));
                h.createUpdate("DELETE FROM subnets WHERE network_id = :id").bind("id", n.id()).execute();
                for (int i = 0; i < n.subnets().size(); i++) {
                    Subnet s = n.subnets().get(i);
                    h.createUpdate("INSERT INTO subnets (network_id, ordinal, name, region, state)"
                                    + " VALUES (:network_id, :ordinal, :name, :region, :state)")
                            .bind("network_id", n.id()).bind("ordinal", i).bind("name", s.name())
                            .bind("region", s.region()).bind("state", s.state()).execute();
                }
            }
            h.createUpdate("DELETE FROM budgets").execute();
            for (Budget b : catalog.budgets()) {
                upsert(h, "budgets", List.of("tenant_id", "id"), row("tenant_id", b.tenantId(), "id", b.id(),
                        "limit_usd", b.limitUsd(), "spent_usd", b.spentUsd()));
            }
            retireOthers(h, Kind.PROVIDER, catalog.providers().stream().map(Provider::id).toList());
            retireOthers(h, Kind.ACCOUNT, catalog.accounts().stream().map(ProviderAccount::id).toList());
            retireOthers(h, Kind.POOL, catalog.pools().stream().map(Pool::id).toList());
            retireOthers(h, Kind.TENANT, catalog.tenants().stream().map(Tenant::id).toList());
            retireOthers(h, Kind.PROJECT, catalog.projects().stream().map(Project::id).toList());
            retireOthers(h, Kind.NETWORK, catalog.networks().stream().map(Network::id).toList());
        });
    }

    private static void retireOthers(Handle h, Kind kind, List<String> named) {
        String table = TABLES.get(kind);
        if (named.isEmpty()) {
            h.createUpdate("UPDATE " + table + " SET retired = TRUE").execute();
        } else {
            h.createUpdate("UPDATE " + table + " SET retired = TRUE WHERE id NOT IN (<ids>)").bindList("ids", named).execute();
        }
    }

    @Override
    public boolean retired(Kind kind, String id) {
        return db.call("reading whether a catalog entry is retired", h -> h.createQuery(
                        "SELECT retired FROM " + TABLES.get(kind) + " WHERE id = :id")
                .bind("id", id).mapTo(Boolean.class).findOne().orElse(false));
    }

    @Override
    public Optional<Provider> provider(String id) {
        return db.call("reading a provider", h -> h.createQuery("SELECT id, managed_kubernetes FROM providers WHERE id = :id")
                .bind("id", id).map((rs, ctx) -> new Provider(rs.getString("id"), rs.getBoolean("managed_kubernetes")))
                .findOne());
    }

    @Override
    public Optional<ProviderAccount> account(String id) {
        return db.call("reading an account", h -> h.createQuery(
                        "SELECT id, provider_id, owner, cloud_project, zones_json, credentials_file FROM accounts WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> new ProviderAccount(rs.getString("id"), rs.getString("provider_id"),
                        rs.getString("owner"), rs.getString("cloud_project"), Json.read(rs.getString("zones_json"), STRINGS),
                        rs.getString("credentials_file")))
                .findOne());
    }

    @Override
    public Optional<Pool> pool(String id) {
        return db.call("reading a pool", h -> h.createQuery(
                        "SELECT id, account_id, kind, kind_name, billing_mode FROM pools WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> new Pool(rs.getString("id"), rs.getString("account_id"),
                        PoolKind.valueOf(rs.getString("kind")), rs.getString("kind_name"),
                        BillingMode.fromWire(rs.getString("billing_mode"))))
                .findOne());
    }

    @Override
    public Optional<Offer> offer(String poolId, String tenantId) {
        return db.call("reading an offer", h -> h.createQuery("SELECT pool_id, tenant_id, active, excluded_regions_json"
                        + " FROM offers WHERE pool_id = :pool_id AND tenant_id = :tenant_id")
                .bind("pool_id", poolId).bind("tenant_id", tenantId)
                .map((rs, ctx) -> new Offer(rs.getString("pool_id"), rs.getString("tenant_id"), rs.getBoolean("active"),
                        Json.read(rs.getString("excluded_regions_json"), STRINGS)))
                .findOne());
    }

    @Override
    public Optional<Tenant> tenant(String id) {
        return db.call("reading a tenant", h -> h.createQuery("SELECT id, max_clusters FROM tenants WHERE id = :id")
                .bind("id", id).map((rs, ctx) -> new Tenant(rs.getString("id"), rs.getInt("max_clusters"))).findOne());
    }

    /**
     * {@code SELECT ... FOR UPDATE} on the tenant's row: both engines hold the row lock until the
     * transaction ends, and a statement run after the lock is granted sees what the previous holder
     * committed (READ COMMITTED), so counting after it is exact.
     */
    @Override
    public boolean lockTenant(String id) {
        return db.call("locking a tenant", h -> {
            if (!h.isInTransaction()) {
                throw new IllegalStateException("lockTenant must be called inside Transactions.inTransaction");
            }
            return h.createQuery("SELECT id FROM tenants WHERE id = :id FOR UPDATE").bind("id", id)
                    .mapTo(String.class).findOne().isPresent();
        });
    }

    @Override
    public Optional<Project> project(String id) {
        return db.call("reading a project", h -> h.createQuery("SELECT id, tenant_id FROM projects WHERE id = :id")
                .bind("id", id).map((rs, ctx) -> new Project(rs.getString("id"), rs.getString("tenant_id"))).findOne());
    }

    @Override
    public Optional<Network> network(String id) {
        return db.call("reading a network", h -> h.createQuery(
                        "SELECT id, tenant_id, account_id, state FROM networks WHERE id = :id")
                .bind("id", id)
                .map((rs, ctx) -> new Network(rs.getString("id"), rs.getString("tenant_id"), rs.getString("account_id"),
                        rs.getString("state"), List.of()))
                .findOne()
                .map(n -> new Network(n.id(), n.tenantId(), n.accountId(), n.state(), h.createQuery(
                                "SELECT name, region, state FROM subnets WHERE network_id = :id ORDER BY ordinal")
                        .bind("id", id)
                        .map((rs, ctx) -> new Subnet(rs.getString("name"), rs.getString("region"), rs.getString("state")))
                        .list())));
    }

    /** The tenant's budgets by id. */
    @Override
    public List<Budget> budgets(String tenantId) {
        return db.call("reading budgets", h -> h.createQuery(
                        "SELECT id, tenant_id, limit_usd, spent_usd FROM budgets WHERE tenant_id = :tenant_id ORDER BY id")
                .bind("tenant_id", tenantId)
                .map((rs, ctx) -> new Budget(rs.getString("id"), rs.getString("tenant_id"),
                        money(rs.getBigDecimal("limit_usd")), money(rs.getBigDecimal("spent_usd"))))
                .list());
    }

    /** NUMERIC(24, 6) pads to six decimals; give back the number as written ({@code 5000}, {@code 120.5}). */
    static BigDecimal money(BigDecimal stored) {
        BigDecimal v = stored.stripTrailingZeros();
        return v.scale() < 0 ? v.setScale(0) : v;
    }
}
