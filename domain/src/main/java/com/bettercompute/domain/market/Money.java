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
    /** The largest amount the market handles: one trillion USD, far below where micro-dollars overflow. */
    public static final Money MAX_AMOUNT = new Money(1_000_000_000_000L * 1_000_000L);
    private static final BigDecimal MAX_AMOUNT_USD = BigDecimal.valueOf(MAX_AMOUNT.micros, 6);

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

    /**
     * Parses a decimal string such as {@code "2.50"} or {@code "0"}: at most six decimals, not negative,
     * at most {@link #MAX_AMOUNT}. Each refusal says which rule the text broke.
     */
    public static Money parse(String usd) {
        if (usd == null || usd.isBlank()) {
            throw new DomainException(ErrorCode.INVALID_INPUT,
                    "an amount of money is a decimal string such as \"2.50\"",
                    Map.of("value", String.valueOf(usd), "reason", "not-a-number"));
        }
        BigDecimal value;
        try {
            value = new BigDecimal(usd.trim());
        } catch (NumberFormatException e) {
            throw refused(usd, "is not a number", "not-a-number");
        }
        if (value.signum() < 0) {
            throw refused(usd, "is negative", "negative");
        }
        if (value.stripTrailingZeros().scale() > 6) {
            throw refused(usd, "has more than six decimals", "too-many-decimals");
        }
        if (value.compareTo(MAX_AMOUNT_USD) > 0) {
            throw refused(usd, "is too large: at most " + MAX_AMOUNT + " USD", "too-large");
        }
        return new Money(value.movePointRight(6).longValueExact());
    }

    private static DomainException refused(String usd, String why, String reason) {
        return new DomainException(ErrorCode.INVALID_INPUT, "\"" + usd + "\" " + why
                + " (an amount is a non-negative decimal with at most six decimals)", Map.of("value", usd,
                "reason", reason));
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
