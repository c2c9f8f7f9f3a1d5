package com.bettercompute.bootstrap;

import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.fakes.InMemoryAccessRepository;
import com.bettercompute.application.fakes.InMemoryCatalogRepository;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The catalog's reads kept in memory: a load through the cache is seen by the next call, a change beneath it
 * (another replica's load on the same database) only once its entry has expired.
 */
class CatalogCacheTest {
    final InMemoryStore store = new InMemoryStore();
    final InMemoryCatalogRepository dbCatalog = new InMemoryCatalogRepository(store);
    final InMemoryAccessRepository dbAccess = new InMemoryAccessRepository(store);
    /** Long enough that nothing expires during the test. */
    final CatalogCache cache = new CatalogCache(dbCatalog, dbAccess, Duration.ofHours(1));
    final LoadCatalog load = new LoadCatalog(new InMemoryTransactions(store), cache.catalog(), cache.access());
    final Authenticate authenticate = new Authenticate(cache.access());

    static Catalog catalog(int maxClusters, String... tokens) {
        List<CatalogPrincipal> principals = new java.util.ArrayList<>();
        for (String token : tokens) {
            principals.add(new CatalogPrincipal("user:" + token, Ids.sha256Hex(token), false,
                    List.of(new RoleBinding("user:" + token, "acme", null, Role.KUBERNETES_ADMIN, Map.of()))));
        }
        return new Catalog(List.of(), List.of(), List.of(), List.of(), List.of(new Tenant("acme", maxClusters)),
                List.of(), List.of(), List.of(), principals);
    }

    @Test
    void a_load_through_the_cache_is_seen_by_the_next_call() {
        load.load(catalog(10, "alice", "bob"));
        assertThat(authenticate.byToken("alice").id()).isEqualTo("user:alice");
        assertThat(cache.access().bindings("user:alice")).hasSize(1);
        assertThat(cache.catalog().tenant("acme")).map(Tenant::maxClusters).contains(10);

        load.load(catalog(3, "bob"));

        assertThatThrownBy(() -> authenticate.byToken("alice")).isInstanceOf(DomainException.class)
                .hasMessageContaining("not valid");
        assertThat(cache.access().bindings("user:alice")).isEmpty();
        assertThat(cache.catalog().tenant("acme")).map(Tenant::maxClusters).contains(3);
        assertThat(authenticate.byToken("bob").id()).isEqualTo("user:bob");
    }

    @Test
    void a_load_beneath_the_cache_is_not_read_again_until_the_entry_expires() {
        load.load(catalog(10, "alice"));
        assertThat(authenticate.byToken("alice").id()).isEqualTo("user:alice");
        assertThat(cache.catalog().tenant("acme")).map(Tenant::maxClusters).contains(10);

        // another replica loads a catalog into the same database
        new LoadCatalog(new InMemoryTransactions(store), dbCatalog, dbAccess).load(catalog(3));

        assertThat(dbAccess.principalByTokenHash(Ids.sha256Hex("alice"))).isEmpty();
        assertThat(authenticate.byToken("alice").id()).as("served from memory").isEqualTo("user:alice");
        assertThat(cache.catalog().tenant("acme")).map(Tenant::maxClusters).contains(10);
    }

    @Test
    void an_unknown_token_is_refused_and_a_load_naming_it_lets_it_in() {
        load.load(catalog(10));
        assertThatThrownBy(() -> authenticate.byToken("carol")).isInstanceOf(DomainException.class);

        load.load(catalog(10, "carol"));

        assertThat(authenticate.byToken("carol").id()).isEqualTo("user:carol");
    }
}
