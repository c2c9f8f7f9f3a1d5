package com.bettercompute.bootstrap.catalog;

import com.bettercompute.application.market.MarketCatalog;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalog's {@code market} section and the tenants' {@code credits} and {@code market} settings (docs/operators/catalog.md). */
class MarketCatalogFileTest {
    static final String ACCOUNT = "providers: [{id: gcp}]\\naccounts:\\n  - {id: a, provider: gcp, owner: platform, cloudProject: p, zones: [us-central1-a]}\\n";

    @Test
    void reads_the_market_example_of_api_md() throws IOException {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/api-md-market-catalog.yaml")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        MarketCatalog m = CatalogFile.parseAll(text).market();
        assertThat(m.timings()).isEqualTo(MarketTimings.standard());
        assertThat(m.pools()).singleElement().satisfies(p -> {
            assertThat(p.id()).isEqualTo(PoolId.parse("us-central1/h100-8x"));
            assertThat(p.gpusPerNode()).isEqualTo(8);
            assertThat(p.nodes()).isEqualTo(32);
            assertThat(p.reserve()).isEqualTo(Money.parse("1.20"));
            assertThat(p.acceleratorType()).isEqualTo("nvidia-h100-80gb");
        });
        assertThat(m.tenants()).singleElement().satisfies(t -> {
            assertThat(t.tenantId()).isEqualTo("acme");
            assertThat(t.credits()).isEqualTo(Money.usd(5000));
            assertThat(t.settings()).isEqualTo(new MarketCatalog.Settings(64, false));
        });
        assertThat(m.site("us-central1")).isTrue();
        assertThat(m.site("europe-west4")).isFalse();
    }

    @Test
    void short_durations_let_a_demo_run_a_day_in_minutes_and_a_file_without_a_market_has_none() {
        MarketCatalog m = CatalogFile.parseAll((ACCOUNT + "market:\\n  durations: {notice: 5s, minimumHold: 1m, protectionWindow: 2m, "
                + "idleGrace: 10s, balanceCover: 1h30m, billingPeriod: 10s}\\n").replace("\\n", "\n")).market();
        assertThat(m.timings().notice()).isEqualTo(Duration.ofSeconds(5));
        assertThat(m.timings().minimumHold()).isEqualTo(Duration.ofMinutes(1));
        assertThat(m.timings().protection()).isEqualTo(Duration.ofMinutes(2));
        assertThat(m.timings().idleGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(m.timings().balanceHorizon()).isEqualTo(Duration.ofMinutes(90));
        assertThat(m.timings().billingPeriod()).isEqualTo(Duration.ofSeconds(10));
        assertThat(CatalogFile.parseAll(ACCOUNT.replace("\\n", "\n")).market().timings().billingPeriod())
                .as("ledger entries of at most an hour, ending on the hour").isEqualTo(Duration.ofHours(1));
        assertThat(CatalogFile.parseAll(ACCOUNT.replace("\\n", "\n")).market().pools()).isEmpty();
    }

    @ParameterizedTest(name = "line {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: b, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1'} | 6 | no account 'b'",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-east1-b, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1'} | 6 | not one of the zones",
            "market:\\n  pools:\\n    - {id: europe-west4/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1'} | 6 | must be the region",
            "market:\\n  pools:\\n    - {id: h100, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1'} | 6 | id: must match",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1.0000001'} | 6 | reserve: must be an amount",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '-1'} | 6 | reserve: must be an amount",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t}, nodes: 1, reserve: '1'} | 6 | 'count' is required",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, reserve: '1'} | 6 | 'nodes' is required",
            "market:\\n  pools:\\n    - {id: us-central1/h100-8x, account: a, zone: us-central1-a, machineType: m, accelerator: {type: t, count: 8}, nodes: 1, reserve: '1', gpus: 8} | 6 | unknown key 'gpus'",
            "market:\\n  durations:\\n    notice: soon                   | 6 | notice: must be a duration",
            "market:\\n  durations:\\n    minimumHold: 2h\\n    protectionWindow: 1h | 7 | protectionWindow: must be at least",
            "market:\\n  durations:\\n    idleGrace: 0s                  | 6 | idleGrace: must be more than zero",
            "market:\\n  durations:\\n    billingPeriod: 7m              | 6 | billingPeriod: must be whole seconds that divide an hour",
            "market:\\n  durations:\\n    billingPeriod: 2h              | 6 | billingPeriod: must be whole seconds that divide an hour",
            "market:\\n  durations:\\n    billingPeriod: 500ms           | 6 | billingPeriod: must be whole seconds that divide an hour",
            "market:\\n  surge: true                                          | 5 | unknown key 'surge'",
            "tenants:\\n  - id: acme\\n    credits: lots                    | 6 | credits: must be an amount",
            "tenants:\\n  - id: acme\\n    market: {packing: true}          | 6 | 'maxClusterGpus' is required",
            "tenants:\\n  - id: acme\\n    market: {maxClusterGpus: 8, pack: true} | 6 | unknown key 'pack'",
    })
    void a_malformed_market_section_names_the_line_and_the_problem(String yaml, int line, String problem) {
        assertThatThrownBy(() -> CatalogFile.parseAll((ACCOUNT + yaml).replace("\\n", "\n")))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.getMessage()).contains(problem);
                    assertThat(e.line()).isEqualTo(line);
                });
    }
}
