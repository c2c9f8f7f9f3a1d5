package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.math.BigDecimal;
import java.util.Map;

/**
 * An exact amount of US dollars in integer micro-dollars. Prices are per GPU-hour; amounts (credits,
 * charges) are plain dollars. Never a double: {@link #parse} refuses more than six decimals.
 */
public record Money(long micros) implements Comparable<Money> {
    public static final Money ZERO = new Money(0);
    /** The highest limit price the market accepts: 100,000 USD per GPU-hour (keeps sort keys in 38 bits). */
    public static final Money MAX_PRICE = new Money(100_000_000_000L);

    public Money {
        if (micros < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "an amount of money is never negative",
                    Map.of("micros", micros));
        }
    }

    public static Money ofMicros(long micros) {
        return new Money(micros);
    }

    public static Money usd(long dollars) {
        return new Money(Math.multiplyExact(dollars, 1_000_000L));
    }

    /** Parses a decimal string such as {@code "2.50"} or {@code "0"}: at most six decimals, not negative. */
    public static Money parse(String usd) {
        if (usd == null || usd.isBlank()) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a price is a decimal string such as \"2.50\"",
                    Map.of("value", String.valueOf(usd)));
        }
        try {
            BigDecimal value = new BigDecimal(usd.trim());
            if (value.signum() < 0 || value.stripTrailingZeros().scale() > 6) {
                throw new NumberFormatException();
            }
            return new Money(value.movePointRight(6).longValueExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw new DomainException(ErrorCode.INVALID_INPUT,
                    "a price is a non-negative decimal with at most six decimals, not \"" + usd + "\"",
                    Map.of("value", usd));
        }
    }

    public Money plus(Money other) {
        return new Money(Math.addExact(micros, other.micros));
    }

    public boolean isBelow(Money other) {
        return micros < other.micros;
    }

    public double toDouble() {
        return micros / 1_000_000.0;
    }

    @Override
    public int compareTo(Money o) {
        return Long.compare(micros, o.micros);
    }

    /** The plain decimal form with at least two decimals: {@code 2.50}, {@code 0.000125}. */
    @Override
    public String toString() {
        BigDecimal value = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        return value.scale() < 2 ? value.setScale(2).toPlainString() : value.toPlainString();
    }
}
