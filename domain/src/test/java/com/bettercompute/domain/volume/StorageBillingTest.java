package com.bettercompute.domain.volume;

import com.bettercompute.domain.market.Money;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StorageBillingTest {
    private static final Instant H = Instant.parse("2026-12-01T10:00:00Z");
    private static final long GIB = StoragePrice.GIB;

    /**
     * Samples as "minute:GiB" after 10:00, the stop (a delete accepted) as a minute; the closed hours as
     * "hour-offset:GiB-minutes" (GiB held × minutes).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "one sample: nothing billed yet                        | 0:10                 | -   | ''",
            "bytes held until the next sample (a step)             | 0:10 30:20           | -   | ''",
            "an hour closes at the clock's hour                    | 0:10 30:20 61:0      | -   | 0:900",
            "a sample spanning hours closes each                   | 0:1 150:1            | -   | 0:60 1:60",
            "a sample repeated at the same time changes nothing    | 0:10 0:10 60:0       | -   | 0:600",
            "zero bytes bill zero                                  | 0:0 120:0            | -   | 0:0 1:0",
            "a delete closes the hour in progress                  | 0:10                 | 45  | 0:450",
            "a delete on the hour closes exactly it                | 0:10 30:10           | 60  | 0:600",
            "a stop between samples bills up to the stop only      | 0:10 20:40           | 30  | 0:600"})
    void bytes_are_integrated_over_time_and_cut_into_clock_hours(String rule, String samples, Integer stop, String hours) {
        StorageMeter meter = null;
        List<StorageMeter.StorageHour> closed = new ArrayList<>();
        for (String s : samples.trim().split(" +")) {
            String[] p = s.split(":");
            Instant at = H.plusSeconds(Long.parseLong(p[0]) * 60);
            long bytes = Long.parseLong(p[1]) * GIB;
            if (meter == null) {
                meter = StorageMeter.start(bytes, at);
            } else {
                StorageMeter.Step step = meter.sample(bytes, at);
                closed.addAll(step.closed());
                meter = step.meter();
            }
        }
        if (stop != null) {
            closed.addAll(meter.stop(H.plusSeconds(stop * 60L)));
        }
        List<String> got = closed.stream().map(h -> (h.hourStart().getEpochSecond() - H.getEpochSecond()) / 3600 + ":"
                + h.byteSeconds().divide(BigInteger.valueOf(GIB * 60))).toList();
        assertThat(got).as(rule).containsExactlyElementsOf(hours.isBlank() ? List.of() : List.of(hours.trim().split(" +")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a GiB for a month at 0.20                | 0.20 | 1       | 730 | 0.20",
            "2 TiB for a month at 0.20                | 0.20 | 2048    | 730 | 409.60",
            "a GiB for an hour at 0.20                | 0.20 | 1       | 1   | 0.000274",
            "a TiB for an hour at 0.30                | 0.30 | 1024    | 1   | 0.420822",
            "nothing held is free                     | 0.20 | 0       | 730 | 0.00",
            "a free site                              | 0    | 2048    | 730 | 0.00"})
    void the_price_is_per_GiB_month_of_730_hours_rounded_half_up_to_the_micro_dollar(String rule, String price, long gib, long hours,
                                                                                     String amount) {
        BigInteger byteSeconds = BigInteger.valueOf(gib * GIB).multiply(BigInteger.valueOf(hours * 3600));
        assertThat(new StoragePrice(Money.parse(price)).amount(byteSeconds)).as(rule).isEqualTo(Money.parse(amount));
    }

    /** However the samples fall, the closed hours add up to the integral of the step function, and none repeats. */
    @Property(tries = 300)
    void the_hours_closed_add_up_to_the_whole_integral(@ForAll @Size(min = 1, max = 30) List<@IntRange(min = 1, max = 7200) Integer> gaps,
                                                       @ForAll @Size(min = 31, max = 31) List<@LongRange(min = 0, max = 4096) Long> gib) {
        Instant t = H.plusSeconds(17);
        StorageMeter meter = StorageMeter.start(gib.get(0) * GIB, t);
        BigInteger expected = BigInteger.ZERO;
        List<StorageMeter.StorageHour> closed = new ArrayList<>();
        long bytes = gib.get(0) * GIB;
        for (int i = 0; i < gaps.size(); i++) {
            Instant next = t.plusSeconds(gaps.get(i));
            expected = expected.add(BigInteger.valueOf(bytes).multiply(BigInteger.valueOf(gaps.get(i))));
            bytes = gib.get(i + 1) * GIB;
            StorageMeter.Step step = meter.sample(bytes, next);
            closed.addAll(step.closed());
            meter = step.meter();
            t = next;
        }
        closed.addAll(meter.stop(t));
        assertThat(closed.stream().map(StorageMeter.StorageHour::byteSeconds).reduce(BigInteger.ZERO, BigInteger::add)).isEqualTo(expected);
        assertThat(closed.stream().map(StorageMeter.StorageHour::hourStart).distinct().count()).isEqualTo(closed.size());
    }
}
