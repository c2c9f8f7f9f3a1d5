package com.bettercompute.application.signin;

import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The signing keys' schedule as a table: keys sign for 30 days, the next one is published an hour before it
 * signs, and a key that stopped signing stays published 20 minutes (its tokens' 15 and a margin).
 */
class SigningKeyScheduleTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final SigningKeySchedule SCHEDULE = new SigningKeySchedule(Duration.ofDays(30), Duration.ofHours(1), Duration.ofMinutes(20));

    /** {@code "1@PT0S 2@P30D"}: generation 1 signing from T0, generation 2 from T0 + 30 days. */
    static List<SigningKey> keys(String text) {
        List<SigningKey> keys = new ArrayList<>();
        for (String k : text.isBlank() ? new String[0] : text.trim().split(" ")) {
            long generation = Long.parseLong(k.substring(0, k.indexOf('@')));
            Instant from = T0.plus(Duration.parse(k.substring(k.indexOf('@') + 1)));
            keys.add(new SigningKey(generation, "k" + generation, "{}", from.minus(Duration.ofHours(1)), from));
        }
        return keys;
    }

    static String generations(List<SigningKey> keys) {
        return String.join(" ", keys.stream().map(k -> Long.toString(k.generation())).toList());
    }

    @ParameterizedTest(name = "keys [{0}] at T0+{1}: signing {2}, published [{3}], retired [{4}], next signs from T0+{5}")
    @CsvSource(delimiter = '|', value = {
            // no key yet: the first one signs at once
            "                  | PT0S          | -  |      |   | PT0S",
            // one key: it signs, and its successor is due an hour before its 30 days are up
            "1@PT0S            | PT0S          | 1  | 1    |   | -",
            "1@PT0S            | P29DT22H59M   | 1  | 1    |   | -",
            "1@PT0S            | P29DT23H      | 1  | 1    |   | P30D",
            // a replica that was down past the due time: the next key is still published an hour ahead
            "1@PT0S            | P40D          | 1  | 1    |   | P40DT1H",
            // the next key published ahead: both published, the old one signs, nothing more is due
            "1@PT0S 2@P30D     | P29DT23H30M   | 1  | 1 2  |   | -",
            // the next key signs; the old one stays published while its tokens may live
            "1@PT0S 2@P30D     | P30D          | 2  | 1 2  |   | -",
            "1@PT0S 2@P30D     | P30DT19M59S   | 2  | 1 2  |   | -",
            "1@PT0S 2@P30D     | P30DT20M      | 2  | 2    | 1 | -",
            // generations, not the order given, say which key is newer
            "2@P30D 1@PT0S     | P30DT20M      | 2  | 2    | 1 | -",
            // three keys, the oldest retired long ago but not removed yet
            "1@PT0S 2@P30D 3@P60D | P60DT1M    | 3  | 2 3  | 1 | -",
            // only a key published ahead (its predecessor removed by hand): nothing signs until it does
            "2@P30D            | P29DT23H30M   | -  | 2    |   | -"})
    void the_plan_of_the_kept_keys_at_an_instant(String kept, String at, String signing, String published, String retired, String next) {
        SigningKeySchedule.Plan plan = SCHEDULE.plan(keys(kept == null ? "" : kept), T0.plus(Duration.parse(at)));

        assertThat(plan.signing().map(k -> Long.toString(k.generation())).orElse("-")).isEqualTo(signing);
        assertThat(generations(plan.published())).isEqualTo(published == null ? "" : published.trim());
        assertThat(generations(plan.retired())).isEqualTo(retired == null ? "" : retired.trim());
        assertThat(plan.nextSignsFrom()).isEqualTo(next.equals("-") ? Optional.empty() : Optional.of(T0.plus(Duration.parse(next))));
    }

    @Test
    void every_key_is_published_before_it_signs_and_until_its_last_token_expires() {
        // walk a year in ten-minute steps, making each key when the plan says it is due
        List<SigningKey> kept = new ArrayList<>();
        Duration tokenLifetime = Duration.ofMinutes(15);
        for (Instant at = T0; at.isBefore(T0.plus(Duration.ofDays(365))); at = at.plus(Duration.ofMinutes(10))) {
            Instant now = at;
            SigningKeySchedule.Plan plan = SCHEDULE.plan(kept, now);
            if (plan.nextSignsFrom().isPresent()) {
                long generation = kept.size() + 1L;
                kept.add(new SigningKey(generation, "k" + generation, "{}", now, plan.nextSignsFrom().get()));
                plan = SCHEDULE.plan(kept, now);
            }
            SigningKey signing = plan.signing().orElseThrow();
            assertThat(plan.published()).contains(signing);
            for (SigningKey k : kept) {
                boolean published = plan.published().contains(k);
                if (!now.isBefore(k.createdAt()) && now.isBefore(k.signsFrom())) {
                    assertThat(published).as("%s published ahead at %s", k, now).isTrue();
                }
                // a token signed by k just before it stopped signing lives until then + 15 minutes
                Instant stopped = kept.stream().filter(n -> n.generation() > k.generation()).map(SigningKey::signsFrom)
                        .filter(f -> !now.isBefore(f)).min(Instant::compareTo).orElse(null);
                if (stopped != null && now.isBefore(stopped.plus(tokenLifetime))) {
                    assertThat(published).as("%s published while its tokens live, at %s", k, now).isTrue();
                }
            }
        }
        assertThat(kept).hasSizeBetween(12, 13);
    }

    @Test
    void a_key_must_sign_for_longer_than_it_is_published_ahead() {
        assertThatThrownBy(() -> new SigningKeySchedule(Duration.ofHours(1), Duration.ofHours(1), Duration.ofMinutes(20)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
