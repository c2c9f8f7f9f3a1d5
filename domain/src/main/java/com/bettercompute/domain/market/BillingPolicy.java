package com.bettercompute.domain.market;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;

/**
 * Billing of one node grant over one interval: at its locked rate while protected, after that at the
 * tick's clearing price never above its request's limit. Money is exact: each accrual computes the
 * exact amount in {@link #UNITS_PER_MICRO}ths of a micro-dollar (rate × GPUs × nanoseconds), charges
 * the whole micro-dollars and carries the rest into the grant's next accrual, so a grant's charges
 * are its exact cost cut once, never once per interval. Entries are keyed by (grant, interval start),
 * one per rate and billing period.
 */
public final class BillingPolicy {
    /** Nanoseconds in an hour: a rate is per GPU-hour, so one micro-dollar is this many units. */
    public static final long UNITS_PER_MICRO = 3_600_000_000_000L;

    private BillingPolicy() {
    }

    /** The rate after the window: the tick's price capped by the limit; with no price, the reserve capped. */
    public static long marketRate(Money price, long reserve, long limit) {
        long p = price == null ? reserve : price.micros();
        return Math.min(p, limit);
    }

    /** An accrual: whole micro-dollars to charge, and what is left below one micro-dollar. */
    public record Accrual(long micros, long carry) {
    }

    /**
     * {@code gpus} GPUs at {@code microsPerGpuHour} over [from, to), plus the {@code carry} of the
     * grant's earlier accruals.
     */
    public static Accrual accrue(long microsPerGpuHour, int gpus, Instant from, Instant to, long carry) {
        long nanos = Duration.between(from, to).toNanos();
        if (nanos <= 0) {
            return new Accrual(0, carry);
        }
        return new Accrual(micros(microsPerGpuHour, gpus, nanos, carry), carry(microsPerGpuHour, gpus, nanos, carry));
    }

    /**
     * The whole micro-dollars of {@link #accrue} over {@code nanos} (positive): the tick's form, on
     * primitives, so billing every grant of a market allocates nothing.
     */
    public static long micros(long microsPerGpuHour, int gpus, long nanos, long carry) {
        long units = unitsOrMinusOne(microsPerGpuHour, gpus, nanos, carry);
        return units >= 0 ? units / UNITS_PER_MICRO : exact(microsPerGpuHour, gpus, nanos, carry)[0].longValueExact();
    }

    /** The carry of {@link #accrue} over {@code nanos} (positive), below {@link #UNITS_PER_MICRO}. */
    public static long carry(long microsPerGpuHour, int gpus, long nanos, long carry) {
        long units = unitsOrMinusOne(microsPerGpuHour, gpus, nanos, carry);
        return units >= 0 ? units % UNITS_PER_MICRO : exact(microsPerGpuHour, gpus, nanos, carry)[1].longValueExact();
    }

    /** rate × GPUs × nanoseconds + carry when it fits a long (the common case), else -1. */
    private static long unitsOrMinusOne(long microsPerGpuHour, int gpus, long nanos, long carry) {
        long perNano = microsPerGpuHour * gpus;
        long units = perNano * nanos;
        boolean fits = Math.multiplyHigh(microsPerGpuHour, gpus) == 0 && perNano >= 0
                && Math.multiplyHigh(perNano, nanos) == 0 && units >= 0 && units <= Long.MAX_VALUE - carry;
        return fits ? units + carry : -1;
    }

    /** The same beyond a long (the highest prices over long intervals): quotient and remainder. */
    private static BigInteger[] exact(long microsPerGpuHour, int gpus, long nanos, long carry) {
        return BigInteger.valueOf(microsPerGpuHour).multiply(BigInteger.valueOf(gpus))
                .multiply(BigInteger.valueOf(nanos)).add(BigInteger.valueOf(carry))
                .divideAndRemainder(BigInteger.valueOf(UNITS_PER_MICRO));
    }

    /** Micro-dollars for {@code gpus} GPUs at {@code microsPerGpuHour} over [from, to), cut once. */
    public static long amount(long microsPerGpuHour, int gpus, Instant from, Instant to) {
        return accrue(microsPerGpuHour, gpus, from, to, 0).micros();
    }
}
