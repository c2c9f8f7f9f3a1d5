package com.bettercompute.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static com.bettercompute.adapters.http.MarketApiWorld.q;
import static com.bettercompute.application.market.MarketWorld.ACME_TRAIN;
import static com.bettercompute.application.market.MarketWorld.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared volumes over HTTP ({@link MarketApiWorld}, every exchange held to the served document): the list, the
 * delete every API token is refused before its query is read, a cluster's {@code sharedVolume} and the delete's
 * {@code deleteVolume} as their schemas say.
 */
class VolumeRoutesTest {
    final MarketApiWorld api = new MarketApiWorld();

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void the_organizations_volumes_are_listed_and_a_bad_org_is_named_in_the_query() {
        MarketApiWorld.Reply list = api.send("GET", VolumeRoutes.VOLUMES, ALICE, null);
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(list.json().get("items").isArray()).isTrue();
        assertThat(list.json().get("items")).isEmpty();

        MarketApiWorld.Reply bad = api.send("GET", VolumeRoutes.VOLUMES + "?org=acme%21", ALICE, null);
        assertThat(bad.status()).as(bad.body()).isEqualTo(400);
        JsonNode field = bad.json().at("/error/details/fields/0");
        assertThat(field.get("field").asText()).isEqualTo("org");
        assertThat(field.get("in").asText()).isEqualTo("query");
        assertThat(field.get("problem").asText()).startsWith("must be a tenant id");
        assertThat(field.at("/allowed/pattern").asText()).isEqualTo(Wire.TENANT_ID.pattern().pattern());
    }

    @ParameterizedTest
    @ValueSource(strings = {"?volume=bc-v-0123456789abcdefghjkmnpq&confirm=bc-v-0123456789abcdefghjkmnpq", "", "?volume=NOT%20A%20NAME",
            "?nothing=here"})
    void an_api_token_is_refused_the_delete_before_its_query_is_read(String query) {
        MarketApiWorld.Reply refused = api.send("DELETE", VolumeRoutes.VOLUMES + query, ALICE, null);
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("ACCESS_DENIED");
        assertThat(refused.json().at("/error/details/reason").asText()).isEqualTo("session-required");
    }

    @Test
    void a_cluster_without_a_volume_answers_shared_volume_null_and_delete_volume_is_a_boolean() {
        MarketApiWorld.Reply got = api.send("POST", ClusterRoutes.BASE + "get", ALICE,
                q("{'tenantId': 'acme', 'clusterId': '" + ACME_TRAIN + "'}"));
        assertThat(got.status()).as(got.body()).isEqualTo(200);
        assertThat(got.json().has("sharedVolume")).isTrue();
        assertThat(got.json().get("sharedVolume").isNull()).isTrue();

        MarketApiWorld.Reply bad = api.send("POST", ClusterRoutes.BASE + "delete", ALICE,
                q("{'tenantId': 'acme', 'clusterId': '" + ACME_TRAIN + "', 'deleteVolume': 'yes'}"));
        assertThat(bad.status()).as(bad.body()).isEqualTo(400);
        JsonNode field = bad.json().at("/error/details/fields/0");
        assertThat(field.get("field").asText()).isEqualTo("deleteVolume");
        assertThat(field.get("problem").asText()).isEqualTo("must be true or false");
        assertThat(field.at("/allowed/type").asText()).isEqualTo("boolean");
    }
}
