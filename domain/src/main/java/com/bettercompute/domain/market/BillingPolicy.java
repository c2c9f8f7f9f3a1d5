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
        try {
            long units = Math.addExact(Math.multiplyExact(Math.multiplyExact(microsPerGpuHour, (long) gpus), nanos),
                    carry);
            return new Accrual(units / UNITS_PER_MICRO, units % UNITS_PER_MICRO);
        } catch (ArithmeticException beyondLong) {
            BigInteger[] qr = BigInteger.valueOf(microsPerGpuHour).multiply(BigInteger.valueOf(gpus))
                    .multiply(BigInteger.valueOf(nanos)).add(BigInteger.valueOf(carry))
                    .divideAndRemainder(BigInteger.valueOf(UNITS_PER_MICRO));
            return new Accrual(qr[0].longValueExact(), qr[1].longValueExact());
        }
    }

    /** Micro-dollars for {@code gpus} GPUs at {@code microsPerGpuHour} over [from, to), cut once. */
    public static long amount(long microsPerGpuHour, int gpus, Instant from, Instant to) {
        return accrue(microsPerGpuHour, gpus, from, to, 0).micros();
    }
}
