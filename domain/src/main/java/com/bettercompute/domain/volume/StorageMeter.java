package com.bettercompute.domain.volume;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The billing integral of a volume's bytes over time, between samples: the bytes of the last sample are taken as
 * held until the next one (a step function; samples come every minute or so), and the integral is cut at every
 * hour of the clock (UTC), each closed hour becoming one {@link StorageHour}. The meter lives on the volume's row
 * and moves in the same transaction as the hours it closes, which are keyed by (volume, hour): a pass replayed after
 * a crash closes nothing twice.
 *
 * @param lastSampleAt when the bytes below were sampled; the integral is complete up to here
 * @param lastBytes    the bytes held at that sample
 * @param hourStart    the hour the open integral belongs to
 * @param byteMillis   bytes × milliseconds accrued in that hour so far
 */
public record StorageMeter(Instant lastSampleAt, long lastBytes, Instant hourStart, BigInteger byteMillis) {

    /** One closed hour of storage: the byte-seconds held in it. */
    public record StorageHour(Instant hourStart, BigInteger byteSeconds) {}

    /** The meter after a step, and the hours it closed (oldest first). */
    public record Step(StorageMeter meter, List<StorageHour> closed) {}

    /** The meter a volume starts with at its first sample: nothing is billed before it. */
    public static StorageMeter start(long bytes, Instant at) {
        return new StorageMeter(at, bytes, hour(at), BigInteger.ZERO);
    }

    /** A new sample of {@code bytes} at {@code at}: the time since the last one is billed at the last one's bytes. */
    public Step sample(long bytes, Instant at) {
        if (!at.isAfter(lastSampleAt)) {
            return new Step(this, List.of());
        }
        List<StorageHour> closed = new ArrayList<>();
        StorageMeter m = advanceTo(at, closed);
        return new Step(new StorageMeter(at, bytes, m.hourStart, m.byteMillis), List.copyOf(closed));
    }

    /**
     * Billing stops at {@code at} (a delete was accepted): everything up to it is closed, the hour in progress
     * included, and the meter ends.
     */
    public List<StorageHour> stop(Instant at) {
        List<StorageHour> closed = new ArrayList<>();
        StorageMeter m = at.isAfter(lastSampleAt) ? advanceTo(at, closed) : this;
        if (m.byteMillis.signum() > 0) {
            closed.add(new StorageHour(m.hourStart, seconds(m.byteMillis)));
        }
        return List.copyOf(closed);
    }

    private StorageMeter advanceTo(Instant end, List<StorageHour> closed) {
        Instant t = lastSampleAt;
        Instant hour = hourStart;
        BigInteger acc = byteMillis;
        BigInteger bytes = BigInteger.valueOf(lastBytes);
        while (t.isBefore(end)) {
            Instant hourEnd = hour.plus(Duration.ofHours(1));
            Instant segmentEnd = end.isBefore(hourEnd) ? end : hourEnd;
            acc = acc.add(bytes.multiply(BigInteger.valueOf(Duration.between(t, segmentEnd).toMillis())));
            if (segmentEnd.equals(hourEnd)) {
                closed.add(new StorageHour(hour, seconds(acc)));
                acc = BigInteger.ZERO;
                hour = hourEnd;
            }
            t = segmentEnd;
        }
        return new StorageMeter(t, lastBytes, hour, acc);
    }

    private static BigInteger seconds(BigInteger millis) {
        return millis.add(BigInteger.valueOf(500)).divide(BigInteger.valueOf(1000));
    }

    static Instant hour(Instant at) {
        return at.truncatedTo(ChronoUnit.HOURS);
    }
}
