package com.bettercompute.domain.usage;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterHoursTest {
    private static final Instant ACCEPTED = Instant.parse("2026-03-01T10:15:30Z");

    /** Instants as minutes after the acceptance; hours due as their starts' minutes, space-separated. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "nothing lived yet                      |   0 | -   |  24 | ''",
            "the first minute starts hour one       |   1 | -   |  24 | 0",
            "exactly one hour is one hour           |  60 | -   |  24 | 0",
            "61 minutes start a second hour         |  61 | -   |  24 | 0 60",
            "hours follow the acceptance, not :00   | 150 | -   |  24 | 0 60 120",
            "recorded hours are not due again       | 150 | 60  |  24 | 120",
            "all recorded                           | 150 | 120 |  24 | ''",
            "at most max, oldest first              | 600 | -   |   3 | 0 60 120",
            "a catch-up continues after the last    | 600 | 120 |   3 | 180 240 300",
            "end before the acceptance              | -30 | -   |  24 | ''",
            "max zero                               | 150 | -   |   0 | ''"})
    void one_hour_per_started_hour_after_the_last_recorded(String rule, long endMinute, Long lastRecordedMinute,
                                                          int max, String dueMinutes) {
        Instant end = ACCEPTED.plusSeconds(endMinute * 60);
        Instant last = lastRecordedMinute == null ? null : ACCEPTED.plusSeconds(lastRecordedMinute * 60);

        assertThat(ClusterHours.due(ACCEPTED, end, last, max)).as(rule).containsExactlyElementsOf(minutes(dueMinutes));
    }

    private static List<Instant> minutes(String spaced) {
        return spaced.isBlank() ? List.of()
                : Arrays.stream(spaced.trim().split(" +")).map(m -> ACCEPTED.plusSeconds(Long.parseLong(m) * 60)).toList();
    }
}
