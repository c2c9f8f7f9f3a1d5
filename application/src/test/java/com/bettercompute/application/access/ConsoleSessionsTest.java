package com.bettercompute.application.access;

import com.bettercompute.application.fakes.InMemoryConsoleSessionRepository;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Console sessions on the in-memory store: what is kept (hashes only), the idle and lifetime limits by the
 * injected clock, the CSRF token derived from the id, sign-out, and the bound on one token's sessions. Two
 * {@link ConsoleSessions} on one store are two replicas on one database.
 */
class ConsoleSessionsTest {
    static final String TOKEN_HASH = Ids.sha256Hex("alice-token");

    final MutableClock clock = new MutableClock();
    final InMemoryConsoleSessionRepository store = new InMemoryConsoleSessionRepository();
    final ConsoleSessions one = new ConsoleSessions(store, clock);
    final ConsoleSessions other = new ConsoleSessions(store, clock);

    @Test
    void a_session_opened_on_one_replica_is_found_on_another_with_the_same_csrf_token_and_ends_on_both_at_sign_out() {
        ConsoleSessions.Opened opened = one.open(TOKEN_HASH);

        ConsoleSessions.Session found = other.find(opened.id()).orElseThrow();
        assertThat(found.tokenSha256()).isEqualTo(TOKEN_HASH);
        assertThat(found.csrf()).isEqualTo(opened.session().csrf());
        assertThat(found.csrfMatches(opened.session().csrf())).isTrue();
        assertThat(found.csrfMatches("forged")).isFalse();

        other.close(opened.id());
        assertThat(one.find(opened.id())).isEmpty();
    }

    @Test
    void only_hashes_are_kept_never_the_id_the_csrf_token_or_the_api_token() {
        ConsoleSessions.Opened opened = one.open(TOKEN_HASH);

        assertThat(store.dump()).contains(Ids.sha256Hex(opened.id())).doesNotContain(opened.id())
                .doesNotContain(opened.session().csrf()).doesNotContain("alice-token");
        assertThat(one.find(Ids.sha256Hex(opened.id()))).as("the kept hash is no cookie").isEmpty();
        assertThat(opened.toString()).doesNotContain(opened.id());
        assertThat(opened.session().toString()).doesNotContain(opened.session().csrf());
    }

    @Test
    void each_session_has_its_own_csrf_token() {
        ConsoleSessions.Opened a = one.open(TOKEN_HASH);
        ConsoleSessions.Opened b = one.open(TOKEN_HASH);

        assertThat(a.session().csrf()).isNotEqualTo(b.session().csrf());
        assertThat(one.find(a.id()).orElseThrow().csrfMatches(b.session().csrf())).isFalse();
    }

    @ParameterizedTest(name = "used every {0} min, then idle {1} min: live {2}")
    @CsvSource({
            "30, 59, true",
            "30, 60, false",
            "59, 59, true",
            "59, 61, false"})
    void a_session_ends_an_hour_after_its_last_use(int usedEveryMinutes, int idleMinutes, boolean live) {
        ConsoleSessions.Opened opened = one.open(TOKEN_HASH);
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofMinutes(usedEveryMinutes));
            assertThat(other.find(opened.id())).as("used after %d min", usedEveryMinutes).isPresent();
        }
        clock.advance(Duration.ofMinutes(idleMinutes));

        assertThat(one.find(opened.id()).isPresent()).isEqualTo(live);
    }

    @Test
    void a_session_ends_twelve_hours_after_sign_in_however_busy_and_is_then_removed() {
        ConsoleSessions.Opened opened = one.open(TOKEN_HASH);
        for (Duration d = Duration.ZERO; d.compareTo(ConsoleSessions.LIFETIME.minusMinutes(30)) < 0; d = d.plusMinutes(30)) {
            clock.advance(Duration.ofMinutes(30));
            assertThat(one.find(opened.id())).isPresent();
        }
        clock.advance(Duration.ofMinutes(30));

        assertThat(other.find(opened.id())).isEmpty();
        assertThat(store.find(Ids.sha256Hex(opened.id()))).as("an ended session is removed").isEmpty();
    }

    @Test
    void opening_a_session_removes_those_that_ended_and_keeps_one_tokens_newest() {
        ConsoleSessions.Opened stale = one.open(Ids.sha256Hex("bob-token"));
        clock.advance(ConsoleSessions.IDLE.plusSeconds(1));
        ConsoleSessions.Opened first = one.open(TOKEN_HASH);
        assertThat(store.find(Ids.sha256Hex(stale.id()))).as("idle for over an hour: removed").isEmpty();

        for (int i = 0; i < ConsoleSessions.PER_TOKEN; i++) {
            clock.advance(Duration.ofSeconds(1));
            one.open(TOKEN_HASH);
        }

        assertThat(one.find(first.id())).as("the token's oldest session made room").isEmpty();
    }

    @Test
    void an_id_of_the_wrong_shape_or_unknown_names_no_session() {
        one.open(TOKEN_HASH);

        assertThat(one.find(null)).isEmpty();
        assertThat(one.find("short")).isEmpty();
        assertThat(one.find("A".repeat(ConsoleSessions.ID_LENGTH))).isEmpty();
        one.close(null);
        one.close("short");
    }
}
