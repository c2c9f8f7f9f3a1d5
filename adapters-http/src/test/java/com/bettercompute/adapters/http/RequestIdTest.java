package com.bettercompute.adapters.http;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The request id of every answer: a random (version 4, IETF variant) UUID, a new one each time. */
class RequestIdTest {
    @Test
    void a_request_id_is_a_random_uuid_and_never_repeats() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String id = ApiServer.requestId();
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            assertThat(seen.add(id)).as(id).isTrue();
        }
    }
}
