package com.bettercompute.bootstrap.catalog;

import com.bettercompute.domain.loadbalancer.LoadBalancerSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalog's load balancer settings: the default cap, the tenants' caps, the regions' shared pools. */
class LoadBalancerCatalogFileTest {
    static final String BASE = """
            providers: [{id: gcp}]
            accounts:
              - {id: acct, provider: gcp, owner: platform, cloudProject: p, zones: [us-central1-a]}
            tenants:
              - id: acme
                loadBalancers: {clusterCap: 9}
              - id: beta
            """;

    @Test
    void the_section_gives_the_default_cap_each_tenants_and_the_regions_pools() {
        LoadBalancerSettings s = CatalogFile.parseAll(BASE + """
                loadBalancers:
                  clusterCap: 2
                  addressPools:
                    - {region: us-central1, limit: 50}
                    - {region: europe-west4, limit: 0}
                """).loadBalancers();

        assertThat(s.clusterCap("acme")).isEqualTo(9);
        assertThat(s.clusterCap("beta")).isEqualTo(2);
        assertThat(s.poolLimits()).isEqualTo(Map.of("us-central1", 50, "europe-west4", 0));
        assertThat(s.regionEnabled("us-central1")).isTrue();
        assertThat(s.regionEnabled("asia-east1")).isFalse();
    }

    @Test
    void without_the_section_no_region_is_enabled_and_the_default_cap_holds() {
        LoadBalancerSettings s = CatalogFile.parseAll(BASE).loadBalancers();

        assertThat(s.poolLimits()).isEmpty();
        assertThat(s.clusterCap("beta")).isEqualTo(LoadBalancerSettings.DEFAULT_CLUSTER_CAP);
        assertThat(s.clusterCap("acme")).isEqualTo(9);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "addressPools: [{region: us-central1-a, limit: 5}] | not a region name",
            "addressPools: [{region: us-central1}]             | 'limit' is required",
            "addressPools: [{region: us-central1, limit: 5}, {region: us-central1, limit: 6}] | two address pools",
            "clusterCap: -1                                    | clusterCap",
            "colour: blue                                      | colour"})
    void a_bad_section_names_the_line_and_the_problem(String section, String problem) {
        assertThatThrownBy(() -> CatalogFile.parseAll(BASE + "loadBalancers:\n  " + section.trim() + "\n"))
                .isInstanceOf(CatalogException.class).hasMessageContaining(problem);
    }
}
