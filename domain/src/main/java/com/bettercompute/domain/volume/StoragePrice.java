package com.bettercompute.domain.volume;

import com.bettercompute.domain.market.Money;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * A site's storage price: USD per GiB-month of bytes held, a month being 730 hours (the average month, as cloud
 * providers bill storage). Amounts are rounded half up to the micro-dollar once per billed hour.
 */
public record StoragePrice(Money perGiBMonth) {
    public static final long GIB = 1L << 30;
    public static final long MONTH_SECONDS = 730L * 3600L;
    private static final BigDecimal GIB_SECONDS_PER_GIB_MONTH = BigDecimal.valueOf(GIB).multiply(BigDecimal.valueOf(MONTH_SECONDS));

    /** What {@code byteSeconds} of storage cost. */
    public Money amount(BigInteger byteSeconds) {
        BigDecimal micros = new BigDecimal(byteSeconds).multiply(BigDecimal.valueOf(perGiBMonth.micros()))
                .divide(GIB_SECONDS_PER_GIB_MONTH, 0, RoundingMode.HALF_UP);
        return Money.ofMicros(micros.longValueExact());
    }

    /** What holding {@code bytes} costs for a month at this price: the "current charge" a person reads. */
    public Money perMonth(long bytes) {
        return amount(BigInteger.valueOf(bytes).multiply(BigInteger.valueOf(MONTH_SECONDS)));
    }

    /** {@code byteSeconds} as GiB-hours, to six decimals: the quantity of a usage record. */
    public static BigDecimal gibHours(BigInteger byteSeconds) {
        return new BigDecimal(byteSeconds).divide(BigDecimal.valueOf(GIB).multiply(BigDecimal.valueOf(3600)), 6, RoundingMode.HALF_UP);
    }
}
