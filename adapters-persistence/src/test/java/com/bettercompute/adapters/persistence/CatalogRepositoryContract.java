package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.CatalogRepository.Kind;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link CatalogRepository} must do; run against the fake, H2 and PostgreSQL. */
abstract class CatalogRepositoryContract extends PortsContract {
    private CatalogRepository catalog;

    @BeforeEach
    void repository() {
        catalog = ports.catalog();
    }

    static final Provider GCP = new Provider("gcp", true);
    static final Provider METAL = new Provider("metal", false);
    static final ProviderAccount PLATFORM = new ProviderAccount("acct_platform", "gcp", ProviderAccount.PLATFORM,
            "platform-prod", List.of("us-central1-b", "us-central1-a", "europe-west4-a"));
    static final ProviderAccount OWN = new ProviderAccount("acct_acme", "gcp", "acme", null, List.of());
    static final Pool PROVIDER_POOL = new Pool("pool_1", "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.METERED);
    static final Pool ODD_POOL = new Pool("pool_2", "acct_acme", PoolKind.OTHER, "spot-market", BillingMode.NONE);
    static final Offer OFFER = new Offer("pool_1", "acme", true, List.of("europe-west4"));
    static final Offer SUSPENDED = new Offer("pool_1", "globex", false, List.of());
    static final Tenant ACME = new Tenant("acme", 10);
    static final Tenant GLOBEX = new Tenant("globex", 3);
    static final Project PROJECT = new Project("prj_1", "acme");
    static final Network NETWORK = new Network("net_1", "acme", "acct_platform", "provisioned",
            List.of(new Subnet("main", "us-central1", "ready"), new Subnet("alt", "us-central1", "pending")));
    static final Budget MONTHLY = new Budget("monthly", "acme", new BigDecimal("5000"), new BigDecimal("120.5"));
    static final Budget DAILY = new Budget("daily", "acme", new BigDecimal("200"), new BigDecimal("0"));
    static final Budget GLOBEX_MONTHLY = new Budget("monthly", "globex", new BigDecimal("10.25"), new BigDecimal("10.25"));

    static Catalog full() {
        return new Catalog(List.of(GCP, METAL), List.of(PLATFORM, OWN), List.of(PROVIDER_POOL, ODD_POOL),
                List.of(OFFER, SUSPENDED), List.of(ACME, GLOBEX), List.of(PROJECT), List.of(NETWORK),
                List.of(MONTHLY, DAILY, GLOBEX_MONTHLY), List.of());
    }

    @Test
    void every_saved_entry_reads_back() {
        catalog.save(full());

        assertThat(catalog.provider("gcp")).contains(GCP);
        assertThat(catalog.provider("metal")).contains(METAL);
        assertThat(catalog.account("acct_platform")).contains(PLATFORM);
        assertThat(catalog.account("acct_acme")).contains(OWN);
        assertThat(catalog.pool("pool_1")).contains(PROVIDER_POOL);
        assertThat(catalog.pool("pool_2")).contains(ODD_POOL);
        assertThat(catalog.offer("pool_1", "acme")).contains(OFFER);
        assertThat(catalog.offer("pool_1", "globex")).contains(SUSPENDED);
        assertThat(catalog.tenant("acme")).contains(ACME);
        assertThat(catalog.project("prj_1")).contains(PROJECT);
        assertThat(catalog.network("net_1")).contains(NETWORK);
        assertThat(catalog.budgets("acme")).containsExactly(DAILY, MONTHLY);
        assertThat(catalog.budgets("globex")).containsExactly(GLOBEX_MONTHLY);
    }

    @Test
    void unknown_ids_are_empty() {
        catalog.save(full());

        assertThat(catalog.provider("aws")).isEmpty();
        assertThat(catalog.account("acct_x")).isEmpty();
        assertThat(catalog.pool("pool_x")).isEmpty();
        assertThat(catalog.offer("pool_2", "acme")).isEmpty();
        assertThat(catalog.offer("pool_1", "initech")).isEmpty();
        assertThat(catalog.tenant("initech")).isEmpty();
        assertThat(catalog.project("prj_x")).isEmpty();
        assertThat(catalog.network("net_x")).isEmpty();
        assertThat(catalog.budgets("initech")).isEmpty();
    }

    @Test
    void saving_again_updates_values_and_never_duplicates() {
        catalog.save(full());
        Network rewired = new Network("net_1", "acme", "acct_platform", "pending",
                List.of(new Subnet("edge", "europe-west4", "ready")));
        Budget spentMore = new Budget("monthly", "acme", new BigDecimal("6000"), new BigDecimal("4999.99"));
        Catalog second = new Catalog(List.of(new Provider("gcp", false)),
                List.of(new ProviderAccount("acct_platform", "gcp", "platform", "platform-dev", List.of("us-east1-b"))),
                List.of(new Pool("pool_1", "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.PLATFORM_FEE)),
                List.of(new Offer("pool_1", "acme", false, List.of())), List.of(new Tenant("acme", 2)),
                List.of(new Project("prj_1", "acme")), List.of(rewired), List.of(spentMore), List.of());
        catalog.save(second);
        // the same entries once more: nothing doubles (subnets, budgets)
        catalog.save(second);

        assertThat(catalog.provider("gcp")).contains(new Provider("gcp", false));
        assertThat(catalog.account("acct_platform").orElseThrow().zones()).containsExactly("us-east1-b");
        assertThat(catalog.pool("pool_1").orElseThrow().billingMode()).isEqualTo(BillingMode.PLATFORM_FEE);
        assertThat(catalog.offer("pool_1", "acme")).contains(new Offer("pool_1", "acme", false, List.of()));
        assertThat(catalog.tenant("acme")).contains(new Tenant("acme", 2));
        assertThat(catalog.network("net_1")).contains(rewired);
        assertThat(catalog.budgets("acme")).containsExactly(spentMore);
    }

    @Test
    void entries_clusters_point_at_are_kept_retired_when_a_later_save_does_not_name_them() {
        catalog.save(full());
        catalog.save(new Catalog(List.of(METAL), List.of(OWN), List.of(ODD_POOL), List.of(), List.of(GLOBEX),
                List.of(), List.of(), List.of(), List.of()));

        assertThat(catalog.provider("gcp")).as("still read, for the clusters on it").contains(GCP);
        assertThat(catalog.account("acct_platform")).contains(PLATFORM);
        assertThat(catalog.pool("pool_1")).contains(PROVIDER_POOL);
        assertThat(catalog.tenant("acme")).contains(ACME);
        assertThat(catalog.project("prj_1")).contains(PROJECT);
        assertThat(catalog.network("net_1")).contains(NETWORK);
        assertThat(List.of(catalog.retired(Kind.PROVIDER, "gcp"), catalog.retired(Kind.ACCOUNT, "acct_platform"),
                catalog.retired(Kind.POOL, "pool_1"), catalog.retired(Kind.TENANT, "acme"),
                catalog.retired(Kind.PROJECT, "prj_1"), catalog.retired(Kind.NETWORK, "net_1"))).containsOnly(true);
        assertThat(List.of(catalog.retired(Kind.PROVIDER, "metal"), catalog.retired(Kind.ACCOUNT, "acct_acme"),
                catalog.retired(Kind.POOL, "pool_2"), catalog.retired(Kind.TENANT, "globex"),
                catalog.retired(Kind.TENANT, "initech"))).as("named, or never known").containsOnly(false);
    }

    @Test
    void offers_and_budgets_a_later_save_does_not_name_are_removed() {
        catalog.save(full());
        catalog.save(new Catalog(List.of(GCP, METAL), List.of(PLATFORM, OWN), List.of(PROVIDER_POOL, ODD_POOL),
                List.of(SUSPENDED), List.of(ACME, GLOBEX), List.of(PROJECT), List.of(NETWORK), List.of(DAILY), List.of()));

        assertThat(catalog.offer("pool_1", "acme")).isEmpty();
        assertThat(catalog.offer("pool_1", "globex")).contains(SUSPENDED);
        assertThat(catalog.budgets("acme")).containsExactly(DAILY);
        assertThat(catalog.budgets("globex")).isEmpty();
    }

    @Test
    void a_retired_entry_named_again_is_current_again() {
        catalog.save(full());
        catalog.save(new Catalog(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of()));
        assertThat(catalog.retired(Kind.POOL, "pool_1")).isTrue();

        catalog.save(full());

        assertThat(catalog.retired(Kind.POOL, "pool_1")).isFalse();
        assertThat(catalog.retired(Kind.TENANT, "acme")).isFalse();
        assertThat(catalog.offer("pool_1", "acme")).contains(OFFER);
    }

    @Test
    void lock_tenant_tells_whether_the_tenant_exists() {
        catalog.save(full());

        assertThat(ports.transactions().inTransaction(() -> catalog.lockTenant("acme"))).isTrue();
        assertThat(ports.transactions().inTransaction(() -> catalog.lockTenant("initech"))).isFalse();
        assertThat(ports.transactions().inTransaction(() -> catalog.lockTenant("acme") && catalog.lockTenant("acme")))
                .as("the same transaction may take its lock again").isTrue();
    }

    @Test
    void lock_tenant_outside_a_transaction_is_a_programming_error() {
        catalog.save(full());
        assertThatThrownBy(() -> catalog.lockTenant("acme")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void a_rolled_back_save_leaves_nothing() {
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            catalog.save(full());
            throw new IllegalStateException("the file is malformed after all");
        }));
        assertThat(catalog.tenant("acme")).isEmpty();
        assertThat(catalog.network("net_1")).isEmpty();
    }
}
