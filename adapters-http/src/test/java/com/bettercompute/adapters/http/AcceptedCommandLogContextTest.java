package com.bettercompute.adapters.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import static org.assertj.core.api.Assertions.assertThat;

/** The tenant and cluster an accepted command names go to the logging context of its request, read once per command type. */
class AcceptedCommandLogContextTest {
    record ClusterCommand(String tenantId, String clusterId, String name) {}

    record TenantCommand(String tenantId, int count) {}

    record NoIds(String name) {}

    @AfterEach
    void clear() {
        MDC.clear();
    }

    @Test
    void a_command_naming_its_tenant_and_cluster_puts_both() {
        for (int i = 0; i < 3; i++) {
            MDC.clear();
            OperatorRoutes.accepted(new ClusterCommand("acme", "kcl_" + i, "train"));
            assertThat(MDC.get(OperatorRoutes.MDC_TENANT)).isEqualTo("acme");
            assertThat(MDC.get(OperatorRoutes.MDC_CLUSTER)).isEqualTo("kcl_" + i);
        }
    }

    @Test
    void a_command_without_ids_or_with_blank_ones_or_not_a_record_puts_nothing() {
        OperatorRoutes.accepted(new NoIds("train"));
        OperatorRoutes.accepted(new TenantCommand("", 3));
        OperatorRoutes.accepted("acme");
        assertThat(MDC.get(OperatorRoutes.MDC_TENANT)).isNull();
        assertThat(MDC.get(OperatorRoutes.MDC_CLUSTER)).isNull();

        OperatorRoutes.accepted(new TenantCommand("globex", 3));
        assertThat(MDC.get(OperatorRoutes.MDC_TENANT)).isEqualTo("globex");
        assertThat(MDC.get(OperatorRoutes.MDC_CLUSTER)).isNull();
    }
}
