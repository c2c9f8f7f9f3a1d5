package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ConsoleSessionRepository;
import com.bettercompute.application.port.ConsoleSessionRepository.StoredSession;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link ConsoleSessionRepository} must do; run against the fake, H2 and PostgreSQL. */
abstract class ConsoleSessionRepositoryContract extends BackendContract<ConsoleSessionRepository> {
    static final Instant T0 = Instant.parse("2026-03-01T10:15:30.123456Z");
    static final String TOKEN = "a".repeat(64);

    static StoredSession session(String idHash, String tokenHash, Instant signedIn) {
        return new StoredSession(idHash, tokenHash, signedIn, signedIn);
    }

    static String hash(int n) {
        return String.format("%064x", n);
    }

    @Test
    void a_session_comes_back_as_added_and_is_gone_once_removed_by_the_one_call_that_removes_it() {
        StoredSession s = session(hash(1), TOKEN, T0);
        port.add(s);

        assertThat(port.find(hash(1))).contains(s);
        assertThat(port.find(hash(2))).isEmpty();
        assertThat(port.remove(hash(1))).isTrue();
        assertThat(port.remove(hash(1))).isFalse();
        assertThat(port.find(hash(1))).isEmpty();
    }

    @Test
    void a_second_session_of_the_same_id_hash_is_a_conflict_and_leaves_the_first() {
        StoredSession first = session(hash(1), TOKEN, T0);
        port.add(first);

        assertThatThrownBy(() -> port.add(session(hash(1), hash(9), T0.plusSeconds(5))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(port.find(hash(1))).contains(first);
    }

    @Test
    void seen_moves_the_last_use_forward_only() {
        port.add(session(hash(1), TOKEN, T0));

        port.seen(hash(1), T0.plusSeconds(90));
        port.seen(hash(1), T0.plusSeconds(60));
        port.seen(hash(2), T0.plusSeconds(60));

        StoredSession s = port.find(hash(1)).orElseThrow();
        assertThat(s.lastSeenAt()).isEqualTo(T0.plusSeconds(90));
        assertThat(s.signedInAt()).isEqualTo(T0);
        assertThat(port.find(hash(2))).isEmpty();
    }

    @Test
    void remove_ended_takes_the_idle_and_the_too_old_and_leaves_the_live() {
        port.add(session(hash(1), TOKEN, T0));                         // idle since T0
        port.add(session(hash(2), TOKEN, T0.minus(Duration.ofHours(13)))); // signed in too long ago
        port.seen(hash(2), T0.plusSeconds(100));
        port.add(session(hash(3), TOKEN, T0.plusSeconds(30)));         // live

        int removed = port.removeEnded(T0.plusSeconds(10), T0.minus(Duration.ofHours(12)));

        assertThat(removed).isEqualTo(2);
        assertThat(port.find(hash(1))).isEmpty();
        assertThat(port.find(hash(2))).isEmpty();
        assertThat(port.find(hash(3))).isPresent();
        assertThat(port.removeEnded(T0.plusSeconds(10), T0.minus(Duration.ofHours(12)))).isZero();
    }

    @Test
    void keep_newest_bounds_one_tokens_sessions_and_leaves_other_tokens_alone() {
        for (int i = 1; i <= 5; i++) {
            port.add(session(hash(i), TOKEN, T0.plusSeconds(i)));
        }
        port.add(session(hash(100), hash(7), T0));

        assertThat(port.keepNewest(TOKEN, 3)).isEqualTo(2);

        assertThat(port.find(hash(1))).isEmpty();
        assertThat(port.find(hash(2))).isEmpty();
        assertThat(port.find(hash(3))).isPresent();
        assertThat(port.find(hash(5))).isPresent();
        assertThat(port.find(hash(100))).as("another token's").isPresent();
        assertThat(port.keepNewest(TOKEN, 3)).isZero();
    }
}
