package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What every {@link SigningKeyRepository} must do; run against the fake, H2 and PostgreSQL. */
abstract class SigningKeyRepositoryContract extends BackendContract<SigningKeyRepository> {
    static final Instant T0 = Instant.parse("2026-03-01T10:15:30.123456Z");

    static SigningKey key(long generation, String kid) {
        Instant made = T0.plus(Duration.ofDays(30 * (generation - 1)));
        return new SigningKey(generation, kid, "{\"kty\":\"RSA\",\"kid\":\"" + kid + "\",\"d\":\"private-" + kid + "\"}", made,
                made.plus(Duration.ofHours(1)));
    }

    @Test
    void keys_come_back_as_added_oldest_generation_first() {
        assertThat(port.all()).isEmpty();

        assertThat(port.add(key(2, "k2"))).isTrue();
        assertThat(port.add(key(1, "k1"))).isTrue();

        assertThat(port.all()).containsExactly(key(1, "k1"), key(2, "k2"));
    }

    @Test
    void a_generation_already_kept_is_not_added_again_and_the_first_key_stays() {
        port.add(key(1, "first"));

        assertThat(port.add(key(1, "second"))).isFalse();

        assertThat(port.all()).containsExactly(key(1, "first"));
    }

    @Test
    void of_replicas_adding_the_same_generation_at_once_exactly_one_adds_it() throws Exception {
        int replicas = 6;
        CyclicBarrier together = new CyclicBarrier(replicas);
        ExecutorService pool = Executors.newFixedThreadPool(replicas);
        try {
            List<Future<Boolean>> added = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                String kid = "replica-" + i;
                added.add(pool.submit(() -> {
                    together.await(20, TimeUnit.SECONDS);
                    return port.add(key(1, kid));
                }));
            }
            int winners = 0;
            for (Future<Boolean> f : added) {
                winners += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
            assertThat(port.all()).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void remove_before_takes_the_older_generations_only() {
        port.add(key(1, "k1"));
        port.add(key(2, "k2"));
        port.add(key(3, "k3"));

        assertThat(port.removeBefore(3)).isEqualTo(2);
        assertThat(port.removeBefore(3)).isZero();

        assertThat(port.all()).containsExactly(key(3, "k3"));
    }

    @Test
    void the_version_holds_while_nothing_is_added_and_moves_when_a_key_is() {
        long before = port.version();
        assertThat(port.version()).isEqualTo(before);

        port.add(key(1, "k1"));
        long after = port.version();

        assertThat(after).isNotEqualTo(before);
        assertThat(port.add(key(1, "again"))).isFalse();
        port.add(key(2, "k2"));
        assertThat(port.version()).isNotEqualTo(after);
    }
}
