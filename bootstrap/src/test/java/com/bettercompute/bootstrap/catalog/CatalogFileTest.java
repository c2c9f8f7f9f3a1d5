package com.bettercompute.bootstrap.catalog;

import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CatalogFileTest {

    static String apiMdExample() throws IOException {
        try (InputStream in = CatalogFileTest.class.getResourceAsStream("/api-md-catalog.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void reads_the_example_of_api_md() throws IOException {
        Catalog c = CatalogFile.parse(apiMdExample());
        assertThat(c.providers()).extracting(p -> p.id() + "=" + p.managedKubernetes()).containsExactly("gcp=true", "metal=false");
        assertThat(c.accounts()).singleElement().satisfies(a -> {
            assertThat(a.owner()).isEqualTo("platform");
            assertThat(a.zones()).contains("europe-west4-a");
        });
        assertThat(c.pools()).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(PoolKind.PROVIDER);
            assertThat(p.billingMode()).isEqualTo(BillingMode.METERED);
        });
        assertThat(c.offers()).singleElement().satisfies(o -> {
            assertThat(o.active()).isTrue();
            assertThat(o.excludedRegions()).containsExactly("europe-west4");
        });
        assertThat(c.tenants()).singleElement().satisfies(t -> assertThat(t.maxClusters()).isEqualTo(10));
        assertThat(c.projects()).extracting(p -> p.tenantId()).containsExactly("acme");
        assertThat(c.networks()).singleElement().satisfies(n -> assertThat(n.readySubnetIn("us-central1")).isPresent());
        assertThat(c.budgets()).singleElement().satisfies(b -> assertThat(b.spentUsd()).isEqualByComparingTo(new BigDecimal("120.5")));
        CatalogPrincipal bob = c.principals().get(1);
        assertThat(bob.bindings()).hasSize(2);
        assertThat(bob.bindings().get(0).role()).isEqualTo(Role.KUBERNETES_EDITOR);
        assertThat(bob.bindings().get(0).where()).containsEntry("mode", List.of("autopilot"));
        assertThat(bob.bindings().get(1).clusterId()).isEqualTo("kcl_0000000000000000000000000a");
        CatalogPrincipal ops = c.principals().get(2);
        assertThat(ops.operator()).isTrue();
        assertThat(ops.tokenSha256()).isEqualTo(Ids.sha256Hex("dev-only-plain-token"));
        assertThat(ops.toString()).doesNotContain("dev-only-plain-token");
    }

    @Test
    void an_empty_file_is_an_empty_catalog() {
        assertThat(CatalogFile.parse("# nothing yet\n").tenants()).isEmpty();
    }

    @ParameterizedTest(name = "line {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "providers: [{id: gcp, managedKubernets: true}]                       | 1 | unknown key 'managedKubernets'",
            "providers:\\n  - id: gcp\\naccounts:\\n  - {id: a, provider: aws, owner: platform, cloudProject: p, zones: [us-central1-a]} | 4 | no provider 'aws'",
            "tenants:\\n  - id: acme\\n    maxClusters: many                                  | 3 | maxClusters: must be a whole number",
            "tenants:\\n  - id: acme\\n  - id: acme                                         | 3 | 'acme' is listed twice",
            "pools:\\n  - {id: pool_x, account: a, kind: provider, billingMode: metered}  | 2 | must match",
            "principals:\\n  - {id: 'user:a'}                                             | 2 | exactly one of tokenSha256 and token",
            "principals:\\n  - {id: 'user:a', token: t, bindings: [{tenant: nope, role: kubernetes-admin}]} | 2 | no tenant 'nope'",
            "tenants:\\n  - id: acme\\nprincipals:\\n  - id: 'user:a'\\n    token: t\\n    bindings:\\n      - {tenant: acme, role: owner} | 7 | role: must be one of",
            "tenants: [{id: acme}]\\nprincipals:\\n  - {id: 'user:a', token: t, bindings: [{tenant: acme, role: kubernetes-admin, where: {colour: [red]}}]} | 3 | conditions may name",
            "providers: [{id: gcp}\\n                                                       | 1 | not valid YAML",
            "- just\\n- a list                                                         | 1 | must be a mapping",
            "providers: [{id: 5}]                                                    | 1 | id: must be a non-empty string",
            "providers:\\n  - id: gcp\\n    managedKubernetes: 'yes'                       | 3 | managedKubernetes: must be true or false",
            "providers: gcp                                                          | 1 | providers: must be a list",
            "providers:\\n  -\\n  - id: gcp                                             | 2 | each item of providers must be a mapping",
            "providers:\\n  - gcp                                                     | 2 | each item of providers must be a mapping",
            "tenants:\\n  - id: acme\\n    maxClusters: 2.5                                 | 3 | maxClusters: must be a whole number from 0 to 100000",
            "tenants:\\n  - id: acme\\n    maxClusters: '7'                                 | 3 | maxClusters: must be a whole number from 0 to 100000",
            "tenants:\\n  - id: acme\\n    maxClusters: 99999999999999999999                | 3 | maxClusters: must be a whole number from 0 to 100000",
            "tenants:\\n  - id: acme\\n    projects: [prj_01hzx8k3v4w5y6z7a8b9c0d1e3, {a: b}] | 3 | projects: each item must be a string",
            "tenants:\\n  - id: acme\\n    budgets: [{id: b, limitUsd: lots, spentUsd: 0}]  | 3 | limitUsd: must be an amount of 0 or more",
            "tenants:\\n  - id: acme\\n    market: 8                                        | 3 | market must be a mapping",
            "tenants: [{id: acme}]\\nprincipals:\\n  - {id: 'user:a', token: t, bindings: [{tenant: acme, role: kubernetes-admin, where: {mode: autopilot}}]} | 3 | mode: must be a list",
            "providers: [{id: gcp}]\\nproviders: [{id: aws}]                               | 2 | the key 'providers' appears twice",
            "providers: [{id: gcp}]\\n---\\ntenants: [{id: acme}]                             | 3 | only one YAML document",
            "colour: blue                                                            | 1 | unknown key 'colour'"})
    void a_malformed_file_names_the_line_and_the_problem(String yaml, int line, String problem) {
        assertThatThrownBy(() -> CatalogFile.parse(yaml.replace("\\n", "\n")))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.getMessage()).contains(problem);
                    assertThat(e.line()).isEqualTo(line);
                });
    }
}
