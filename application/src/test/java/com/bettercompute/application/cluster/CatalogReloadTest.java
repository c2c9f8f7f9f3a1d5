package com.bettercompute.application.cluster;

import com.bettercompute.application.port.CatalogRepository.Kind;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static com.bettercompute.application.cluster.ClusterWorld.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A catalog loaded over another makes the database the new file's: who it no longer names loses access at
 * once; what clusters point at is retired, so nothing new goes on it while those clusters keep working.
 */
class CatalogReloadTest {
    private final ClusterWorld w = new ClusterWorld();

    @Test
    void a_principal_the_file_no_longer_names_is_cut_off_at_once() {
        Cluster c = w.create(w.alice, standard("a"));
        w.reload(withPrincipals(w.catalog, p -> !p.id().startsWith("user:alice")));

        assertThatThrownBy(() -> w.authenticate.byToken("token-user:alice@acme.example"))
                .hasFieldOrPropertyWithValue("code", ErrorCode.UNAUTHENTICATED);
        assertThat(w.ports.access().owner(c.id())).as("its ownership ends with it").isEmpty();
        assertThat(w.ports.access().bindings("user:alice@acme.example")).isEmpty();
        assertThat(w.get(w.dave, "acme", c.id()).id()).as("the others keep theirs").isEqualTo(c.id());
    }

    @Test
    void a_principal_named_again_gets_only_what_the_file_gives_it() {
        Cluster c = w.create(w.alice, standard("a"));
        w.reload(withPrincipals(w.catalog, p -> !p.id().startsWith("user:alice")));
        w.reload(w.catalog);

        assertThat(w.authenticate.byToken("token-user:alice@acme.example").id()).isEqualTo("user:alice@acme.example");
        assertThat(w.ports.access().owner(c.id())).as("a removal is not undone by a later load").isEmpty();
    }

    @Test
    void a_binding_the_file_no_longer_lists_loses_its_access_at_once() {
        Cluster c = w.create(w.alice, standard("a"));
        assertThat(w.get(w.dave, "acme", c.id()).id()).isEqualTo(c.id());

        w.reload(withPrincipals(w.catalog, p -> true, p -> p.id().startsWith("user:dave")
                ? new CatalogPrincipal(p.id(), p.tokenSha256(), false, List.of()) : p));

        assertThatThrownBy(() -> w.get(w.dave, "acme", c.id())).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThatThrownBy(() -> w.list(w.dave, "acme", false)).hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
    }

    @Test
    void a_token_the_file_moves_to_another_principal_names_that_one() {
        String aliceHash = Ids.sha256Hex("token-user:alice@acme.example");
        w.reload(withPrincipals(w.catalog, p -> !p.id().startsWith("user:alice"), p -> p.id().startsWith("user:dave")
                ? new CatalogPrincipal(p.id(), aliceHash, false, p.bindings()) : p));

        assertThat(w.authenticate.byToken("token-user:alice@acme.example").id()).isEqualTo("user:dave@acme.example");
        assertThatThrownBy(() -> w.authenticate.byToken("token-user:dave@acme.example"))
                .hasFieldOrPropertyWithValue("code", ErrorCode.UNAUTHENTICATED);
    }

    static Stream<Arguments> retirements() {
        return Stream.of(
                arguments(Kind.PROVIDER, (UnaryOperator<Catalog>) c -> copy(c, c.providers().stream().filter(p -> !p.id().equals("gcp")).toList(),
                        null, null, null, null, null, null)),
                arguments(Kind.ACCOUNT, (UnaryOperator<Catalog>) c -> copy(c, null, c.accounts().stream().filter(a -> !a.id().equals("acct_platform")).toList(),
                        null, null, null, null, null)),
                arguments(Kind.POOL, (UnaryOperator<Catalog>) c -> copy(c, null, null, c.pools().stream().filter(p -> !p.id().equals(POOL)).toList(),
                        null, null, null, null)),
                arguments(Kind.TENANT, (UnaryOperator<Catalog>) c -> copy(c, null, null, null, null,
                        c.tenants().stream().filter(t -> !t.id().equals("acme")).toList(), null, null)),
                arguments(Kind.PROJECT, (UnaryOperator<Catalog>) c -> copy(c, null, null, null, null, null, List.of(), null)),
                arguments(Kind.NETWORK, (UnaryOperator<Catalog>) c -> copy(c, null, null, null, null, null, null,
                        c.networks().stream().filter(n -> !n.id().equals(NETWORK)).toList())));
    }

    @ParameterizedTest(name = "a {0} the file stops naming is retired")
    @MethodSource("retirements")
    void nothing_new_goes_on_a_retired_entry_while_its_clusters_keep_working(Kind kind, UnaryOperator<Catalog> without) {
        Cluster c = w.create(w.alice, standard("a").projectId(PROJECT).networkId(NETWORK));
        w.reload(without.apply(w.catalog));

        assertThat(w.ports.catalog().retired(kind, switch (kind) {
            case PROVIDER -> "gcp";
            case ACCOUNT -> "acct_platform";
            case POOL -> POOL;
            case TENANT -> "acme";
            case PROJECT -> PROJECT;
            case NETWORK -> NETWORK;
        })).isTrue();
        assertThatThrownBy(() -> w.create(w.alice, standard("b").projectId(PROJECT).networkId(NETWORK)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
                    assertThat(e.details()).containsEntry("reason", "retired").containsEntry("retired", kind.name().toLowerCase());
                });
        assertThat(w.create(w.alice, standard("a").projectId(PROJECT).networkId(NETWORK)).id())
                .as("a retry of a create that was accepted returns it").isEqualTo(c.id());
        assertThat(w.get(w.alice, "acme", c.id()).id()).isEqualTo(c.id());
        assertThat(w.describe(w.alice, "acme", c.id(), "winding down").description())
                .isEqualTo("winding down");
        assertThat(w.delete(w.alice, "acme", c.id()).state()).isEqualTo(ClusterState.DELETING);

        w.reload(w.catalog);
        assertThat(w.ports.catalog().retired(kind, kind == Kind.TENANT ? "acme" : kind == Kind.POOL ? POOL : "gcp")).isFalse();
        assertThat(w.create(w.alice, standard("b").projectId(PROJECT).networkId(NETWORK)).state())
                .as("named again, it is current again").isEqualTo(ClusterState.PENDING);
    }

    @Test
    void an_offer_the_file_no_longer_lists_hides_the_pool_for_new_clusters_only() {
        Cluster c = w.create(w.alice, standard("a"));
        w.reload(copyOffers(w.catalog, w.catalog.offers().stream().filter(o -> !(o.poolId().equals(POOL) && o.tenantId().equals("acme"))).toList()));

        assertThat(w.ports.catalog().offer(POOL, "acme")).isEmpty();
        assertThatThrownBy(() -> w.create(w.alice, standard("b"))).hasFieldOrPropertyWithValue("code", ErrorCode.NOT_FOUND);
        assertThat(w.get(w.alice, "acme", c.id()).id()).isEqualTo(c.id());
        assertThat(w.delete(w.alice, "acme", c.id()).state()).isEqualTo(ClusterState.DELETING);
    }

    @Test
    void a_budget_the_file_no_longer_lists_no_longer_limits() {
        ClusterWorld spent = new ClusterWorld(10, List.of(new Budget("monthly", "acme", new BigDecimal("10"), new BigDecimal("10"))));
        assertThatThrownBy(() -> spent.create(spent.alice, standard("a"))).hasFieldOrPropertyWithValue("code", ErrorCode.QUOTA_EXCEEDED);

        spent.reload(copyBudgets(spent.catalog, List.of()));

        assertThat(spent.ports.catalog().budgets("acme")).isEmpty();
        assertThat(spent.create(spent.alice, standard("a")).state()).isEqualTo(ClusterState.PENDING);
    }

    @Test
    void a_tenant_the_file_no_longer_names_keeps_its_clusters_but_nobody_keeps_access_through_it() {
        Cluster c = w.create(w.alice, standard("a"));
        Cluster g = w.create(w.carol, standard("g").tenantId("globex"));
        String ops = "service:ops";
        RoleBinding opsOnCluster = new RoleBinding(ops, null, c.id(), Role.KUBERNETES_ADMIN, Map.of());
        Catalog withoutAcme = copy(w.catalog, null, null, null, null, w.catalog.tenants().stream().filter(t -> !t.id().equals("acme")).toList(), null, null);
        List<CatalogPrincipal> principals = new java.util.ArrayList<>(w.catalog.principals().stream()
                .map(p -> new CatalogPrincipal(p.id(), p.tokenSha256(), p.operator(),
                        p.bindings().stream().filter(b -> !"acme".equals(b.tenantId())).toList()))
                .toList());
        principals.add(new CatalogPrincipal(ops, Ids.sha256Hex("ops-token"), true, List.of(opsOnCluster)));
        w.reload(new Catalog(withoutAcme.providers(), withoutAcme.accounts(), withoutAcme.pools(), withoutAcme.offers(),
                withoutAcme.tenants(), withoutAcme.projects(), withoutAcme.networks(), withoutAcme.budgets(), principals));

        assertThatThrownBy(() -> w.get(w.alice, "acme", c.id()))
                .as("its owner's ownership ended with the tenant").hasFieldOrPropertyWithValue("code", ErrorCode.ACCESS_DENIED);
        assertThat(w.ports.access().owner(g.id())).as("other tenants' owners keep theirs").contains("user:carol@globex.example");
        var operator = w.authenticate.byToken("ops-token");
        assertThat(w.get(operator, "acme", c.id()).state()).as("the cluster keeps running").isEqualTo(ClusterState.PENDING);
        assertThat(w.delete(operator, "acme", c.id()).state()).as("until someone the file allows deletes it").isEqualTo(ClusterState.DELETING);
    }

    private static Catalog withPrincipals(Catalog c, java.util.function.Predicate<CatalogPrincipal> keep) {
        return withPrincipals(c, keep, p -> p);
    }

    private static Catalog withPrincipals(Catalog c, java.util.function.Predicate<CatalogPrincipal> keep, UnaryOperator<CatalogPrincipal> change) {
        return new Catalog(c.providers(), c.accounts(), c.pools(), c.offers(), c.tenants(), c.projects(), c.networks(), c.budgets(),
                c.principals().stream().filter(keep).map(change).toList());
    }

    private static Catalog copyOffers(Catalog c, List<com.bettercompute.domain.catalog.Offer> offers) {
        return new Catalog(c.providers(), c.accounts(), c.pools(), offers, c.tenants(), c.projects(), c.networks(), c.budgets(), c.principals());
    }

    private static Catalog copyBudgets(Catalog c, List<Budget> budgets) {
        return new Catalog(c.providers(), c.accounts(), c.pools(), c.offers(), c.tenants(), c.projects(), c.networks(), budgets, c.principals());
    }

    /** The catalog with the lists given (null: as it is). */
    private static Catalog copy(Catalog c, List<com.bettercompute.domain.catalog.Provider> providers,
                                List<com.bettercompute.domain.catalog.ProviderAccount> accounts, List<com.bettercompute.domain.catalog.Pool> pools,
                                List<com.bettercompute.domain.catalog.Offer> offers, List<com.bettercompute.domain.catalog.Tenant> tenants,
                                List<com.bettercompute.domain.catalog.Project> projects, List<com.bettercompute.domain.catalog.Network> networks) {
        return new Catalog(providers == null ? c.providers() : providers, accounts == null ? c.accounts() : accounts,
                pools == null ? c.pools() : pools, offers == null ? c.offers() : offers, tenants == null ? c.tenants() : tenants,
                projects == null ? c.projects() : projects, networks == null ? c.networks() : networks, c.budgets(), c.principals());
    }
}
